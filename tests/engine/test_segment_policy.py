"""How long a segment is by default (randqa/engine/segment_policy.py), for a
stream this process reads and hands out: 32 MiB, so that a run in two
threads holds about 130 MiB of it, or half the suite's state where that is
more, so that the state that travels with each segment stays a fraction of
its test (rc4's 128 MiB of digraph counts), at most 256 MiB."""

from __future__ import annotations

from randqa.battery.suites import load_suite
from randqa.engine.segment_policy import default_segment
from randqa.engine.workloads import StreamWorkload
from randqa.sources.streams import ByteStream


def test_a_stream_read_here_is_cut_by_the_state_that_travels_with_it(tmp_path):
    path = tmp_path / "stream.bin"
    path.write_bytes(bytes(1024))
    segments = {}
    for name in ("quick", "standard", "deep", "rc4"):
        with ByteStream(str(path)) as source:
            workload = StreamWorkload(source, load_suite(name))  # no spec: read here, in order
            assert not workload.remote_open
            segments[name] = default_segment(False, None, 2, workload.state_bytes())
    assert segments["quick"] == 32 << 20
    # standard's state (binary rank's 8192-bit matrices, its folded entries'
    # counts) is about 75 MiB; deep's (lagged_mod3's and affine_digraph's
    # tables too) about 110 MiB
    assert 32 << 20 < segments["standard"] < 48 << 20
    assert 48 << 20 < segments["deep"] < 64 << 20
    assert 64 << 20 <= segments["rc4"] <= 256 << 20
    assert default_segment(False, state_bytes=4 << 30) == 256 << 20
