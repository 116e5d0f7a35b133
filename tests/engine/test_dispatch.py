"""Segments in stream order (randqa/engine/dispatch.py): a producer reads at
most two segments per worker thread ahead of the merged prefix, and the
segment task keeps a chunk's temporaries in the heap on Dask's workers."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from randqa.battery.suites import load_suite
from fake_dask import DoneFuture
from randqa.engine.dispatch import Segment, in_stream_order


class _InlineWorkers:
    """Workers whose client runs every task when it is submitted."""

    started = True

    def __init__(self, slots: int) -> None:
        self._slots = slots

    def slots(self) -> int:
        return self._slots

    def client(self, interrupted=lambda: False):
        return self

    def scatter(self, data, hash=False):
        return data

    def submit(self, function, *args, **kwargs):
        return DoneFuture(function, args)


def test_a_producer_holds_at_most_two_segments_per_worker():
    """Segments are read from the stream only as far as two per worker ahead of the merged prefix."""
    from randqa.engine.jobs import StreamJob

    job = StreamJob(load_suite("quick"))
    pulled, merged, ahead = [], [], []

    def segments():
        for index in range(40):
            pulled.append(index)
            ahead.append(len(pulled) - len(merged))
            yield Segment(index, index * 32768, 32768, (), np.zeros(32768, dtype=np.uint8))

    for segment, result in in_stream_order(_InlineWorkers(3), job, segments(), lambda: False):
        merged.append(segment.index)
        assert result["count"] == 32768
    assert merged == list(range(40))
    assert max(ahead) == 2 * 3



def test_a_stream_read_here_frees_each_segment_once_tested(tmp_path, monkeypatch):
    """A stream read in order by this process and tested in segment threads
    holds the segments in flight and the one being read, never more, and
    frees each without the garbage collector (with it off, a cycle of
    future, callback and segment kept every one alive)."""
    import gc
    import weakref

    from randqa.engine import run_mode, segment_policy
    from randqa.engine.run import run_stream
    from randqa.engine.workloads import StreamWorkload
    from randqa.sources.streams import ByteStream

    monkeypatch.setattr(run_mode, "machine_cores", lambda: 2)
    monkeypatch.setattr(segment_policy, "PRODUCED_SEGMENT_BYTES", 256 << 10)
    monkeypatch.setattr(StreamWorkload, "state_bytes", lambda self: 0)  # segments of 256 KiB, whatever the suite
    path = tmp_path / "stream.bin"
    path.write_bytes(np.random.default_rng(5).bytes(8 << 20))
    alive: list[weakref.ref] = []
    held: list[int] = []
    produce = StreamWorkload.produce

    def counting_produce(self, start, count):
        held.append(sum(ref() is not None for ref in alive))
        data = produce(self, start, count)
        alive.append(weakref.ref(data.base if data.base is not None else data))
        return data

    monkeypatch.setattr(StreamWorkload, "produce", counting_produce)
    gc.collect()
    gc.disable()
    try:
        with ByteStream(str(path)) as source:  # no spec: read here in order, as stdin is
            result = run_stream(source, load_suite("quick"), threads=2)
    finally:
        gc.enable()
    assert result.bytes_tested == 8 << 20 and result.execution["run_mode"] == "segment-threads"
    assert len(held) >= 30
    # two threads: two segments being tested and one waiting, while the next is read
    assert max(held) <= 3


ALLOCATION_PROBE = """
import ctypes
import numpy as np
from randqa.engine.dispatch import _keep_large_allocations

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

mallinfo2 = ctypes.CDLL(None).mallinfo2
mallinfo2.restype = MallInfo2

def mapped_on_its_own():
    # whether a chunk-sized temporary gets an mmap of its own (hblkhd: bytes so mapped)
    before = mallinfo2().hblkhd
    block = np.ones(4 << 20, dtype=np.uint8)
    return mallinfo2().hblkhd - before >= block.nbytes

first = mapped_on_its_own()
_keep_large_allocations()
print(first, mapped_on_its_own())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or os.confstr("CS_GNU_LIBC_VERSION") is None,
                    reason="glibc's mallopt and mallinfo2")
@pytest.mark.parametrize("threshold, mmap_threshold, tuned", [
    ("65536", None, True),  # Dask's workers' setting
    (None, None, True),  # this process, whose segment threads get arenas glibc trims at once
    ("131072", None, False),  # the user's choice
    (None, "1048576", False),
])
def test_segments_keep_chunk_temporaries_in_the_heap(threshold, mmap_threshold, tuned):
    """Dask's workers run with MALLOC_TRIM_THRESHOLD_=65536, and threads'
    arenas are trimmed at once, which makes glibc map and unmap every large
    temporary afresh; the segment task keeps them in the heap, unless the
    user set the thresholds."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("MALLOC_")}
    for name, value in (("MALLOC_TRIM_THRESHOLD_", threshold), ("MALLOC_MMAP_THRESHOLD_", mmap_threshold)):
        if value is not None:
            env[name] = value
    out = subprocess.run([sys.executable, "-c", ALLOCATION_PROBE], env=env, capture_output=True, text=True,
                         check=True, timeout=60).stdout
    assert out.split() == ["True", str(not tuned)], out
