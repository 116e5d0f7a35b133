"""The run loop (engine/loop.py): a progressive run is judged at each
length and stops at the first failure unless it keeps going, Ctrl-C
while results are judged keeps what was judged, and a saved state resumes
only a run of as many tests."""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest

from randqa.battery._state import StateError
from randqa.battery.base import Accumulator
from randqa.battery.suites import load_suite
from randqa.engine import run, run_progressive
from randqa.engine.lengths import Plan
from randqa.engine.loop import RunLoop
from randqa.engine.records import CheckpointRecord
from randqa.engine.workloads import StreamWorkload
from randqa.results import TestResult
from randqa.sources import open_backend
from process_checks import StopsAfter
from reference_generators import msvc_rand_low_bytes, pcg64_bytes


@pytest.fixture(scope="module")
def msvc_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("streams") / "msvc.bin"
    path.write_bytes(msvc_rand_low_bytes(1 << 20))
    return path


def test_progressive_stops_at_first_failure(cli, msvc_file):
    result = cli("test", str(msvc_file), "--progressive", "--min", "1K", "--max", "1M", "--json", "-")
    doc = result.json()
    assert result.returncode == 1
    lengths = [entry["bytes"] for entry in doc["lengths"]]
    assert lengths == [1024 * 2**i for i in range(len(lengths))]
    assert doc["first_failure_bytes"] == lengths[-1] <= 64 * 1024
    assert doc["lengths"][-1]["verdict"] == "fail"
    assert all(entry["verdict"] != "fail" for entry in doc["lengths"][:-1])


def test_progressive_keep_going_reaches_max(cli, msvc_file):
    doc = cli("test", str(msvc_file), "--progressive", "--max", "1M", "--keep-going", "--json", "-").json()
    assert doc["lengths"][-1]["bytes"] == 1 << 20
    assert doc["first_failure_bytes"] < 1 << 20


def test_progressive_on_good_data_has_no_failure(cli, tmp_path):
    path = tmp_path / "good.bin"
    path.write_bytes(pcg64_bytes(1 << 20, 3))
    result = cli("test", str(path), "--progressive", "--min", "64K", "--json", "-")
    assert result.returncode == 0
    doc = result.json()
    assert doc["first_failure_bytes"] is None
    assert [e["bytes"] for e in doc["lengths"]] == [65536 * 2**i for i in range(5)]  # up to the file's 1 MiB


class InterruptOnFinalize(Accumulator):
    """Sends itself SIGINT while its results are being judged, once."""

    name = "interrupter"

    def __init__(self) -> None:
        super().__init__()
        self.sent = False

    def _update(self, chunk: np.ndarray) -> None:
        pass

    def _merge(self, other: Accumulator) -> None:
        pass

    def finalize(self) -> list[TestResult]:
        if self.bytes_seen >= 4096 and not self.sent:
            self.sent = True
            os.kill(os.getpid(), signal.SIGINT)
        return [TestResult(self.name, 0.0, 0.5)]


def test_ctrl_c_while_judging_keeps_the_lengths_judged(monkeypatch):
    suite = load_suite("quick")
    acc = InterruptOnFinalize()
    monkeypatch.setattr(suite, "build", lambda: [acc])
    with open_backend("pcg64", 1) as source:
        result = run_progressive(source, suite, 1024, 1 << 20)
    assert result.interrupted
    assert [e["bytes"] for e in result.progression.lengths] == [1024, 2048, 4096]


def test_ctrl_c_while_judging_a_plain_run_keeps_the_results(monkeypatch):
    suite = load_suite("quick")
    acc = InterruptOnFinalize()
    monkeypatch.setattr(suite, "build", lambda: [acc])
    with open_backend("pcg64", 1) as source:
        result = run(source, suite, limit=8192)
    assert result.interrupted and result.results[0].pvalue == 0.5


def test_a_saved_state_of_another_number_of_tests_is_refused():
    with open_backend("pcg64", 1) as source:
        workload = StreamWorkload(source, load_suite("quick"))
        tests = len(workload.build())
        with pytest.raises(StateError, match=f"the saved state holds 0 tests, the run {tests}$"):
            RunLoop(workload, Plan(limit=1024), segment=None, resume=(CheckpointRecord(), []))


@pytest.mark.parametrize("limit", [None, 4 << 20], ids=["until-the-end", "n-4M"])
def test_a_stop_while_segments_of_a_stream_are_read_tests_every_byte_read(monkeypatch, limit):
    """Default mode on a stream read in order (stdin, a live runtime): a
    stop signal while the next segment is read tests the segments already
    read (in flight in the threads) and the part of the next that arrived,
    and reports them: the results of a run over exactly those bytes."""
    from randqa.engine import run_mode, segment_policy
    from randqa.engine.run import run_stream

    monkeypatch.setattr(run_mode, "machine_cores", lambda: 2)
    monkeypatch.setattr(run_mode, "SEGMENTS_MIN_BYTES", 0)
    monkeypatch.setattr(run_mode, "SEGMENTS_MIN_S", 0.0)
    monkeypatch.setattr(segment_policy, "PRODUCED_SEGMENT_BYTES", 256 << 10)
    monkeypatch.setattr(StreamWorkload, "state_bytes", lambda self: 0)  # segments of 256 KiB, whatever the suite
    data = pcg64_bytes(4 << 20, seed=9)
    arrived = (2 << 20) + 12345  # inside the ninth segment, with segments still in flight
    suite = load_suite("quick")
    stopped = run_stream(StopsAfter(data, arrived), suite, limit=limit, threads=2)
    assert stopped.execution["run_mode"] == "segment-threads" and stopped.execution["segments_on_workers"] >= 4
    assert stopped.interrupted and not stopped.input_ended_early
    assert stopped.bytes_tested == arrived
    expected = run_stream(StopsAfter(data[:arrived], -1), suite)
    assert [r.to_json() for r in stopped.results] == [r.to_json() for r in expected.results]


def test_a_second_stop_ends_the_segments_a_first_lets_finish(monkeypatch):
    """After a first stop signal the segments already read are tested; a
    second one ends the run at once, with the prefix merged so far."""
    import threading

    from randqa.engine import run_mode, segment_policy
    from randqa.engine.jobs import StreamJob
    from randqa.engine.run import run_stream
    from randqa.engine.signals import clear_stop_signal, last_stop_signal

    monkeypatch.setattr(run_mode, "machine_cores", lambda: 2)
    monkeypatch.setattr(segment_policy, "PRODUCED_SEGMENT_BYTES", 256 << 10)
    monkeypatch.setattr(StreamWorkload, "state_bytes", lambda self: 0)  # segments of 256 KiB, whatever the suite
    data = pcg64_bytes(4 << 20, seed=9)
    source = StopsAfter(data, (1 << 20) + 5)
    compute = StreamJob.compute
    second_sent, release = threading.Lock(), threading.Event()

    def stalled(self, start, count, snapshots, data):
        if start >= 512 << 10:  # these segments never finish by themselves
            for _ in range(6000):
                if last_stop_signal() is not None:  # the run's handler has seen the first stop
                    break
                time.sleep(0.01)
            if second_sent.acquire(blocking=False):
                os.kill(os.getpid(), signal.SIGINT)
            release.wait(60)
        return compute(self, start, count, snapshots, data)

    monkeypatch.setattr(StreamJob, "compute", stalled)
    clear_stop_signal()
    try:
        stopped = run_stream(source, load_suite("quick"), threads=2)
    finally:
        release.set()
    assert stopped.interrupted and stopped.bytes_tested == 512 << 10
