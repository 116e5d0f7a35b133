"""Segments side by side in threads of this process
(randqa/engine/segment_threads.py, picked by randqa/engine/run_mode.py for
a long run) give the JSON of a one-process run, apart from timings and the
``execution`` block: for every shipped suite, on a generator that jumps
(pcg64), a file read with pread and the same file read in order by a
producer (what stdin and RC4 get); with progressive lengths judged inside a
segment.  No Dask cluster is started for them, a segment's error reaches the
run, and a stop signal ends the run with the merged prefix reported, without
waiting for the segments still being tested.

The segments are cut small here (the run mode's thresholds lowered) so that
short runs have several."""

from __future__ import annotations

import os
import signal
import threading
import time

import numpy as np
import pytest
from segment_runs import comparable, write_pcg64

from randqa.battery.suites import load_suite
from randqa.engine import run_mode
from randqa.engine.feeding import CHUNK_BYTES, ArrayReader, SourceReader
from randqa.engine.parallel import Workers
from randqa.engine.run import Progressive, run_stream
from randqa.engine.segment_policy import suite_alignment
from randqa.engine.segment_threads import SegmentAbandoned, SegmentThreads
from randqa.sources import open_source

SEED = 1
#: (suite, bytes tested): a few segments each, the last one short
CASES = [
    pytest.param("quick", (5 << 20) + 123, id="quick"),
    pytest.param("rc4", (1 << 20) + 77, id="rc4"),
    pytest.param("nist-sp800-22", 4 * 125_000 + 1000, id="nist-sp800-22"),
    pytest.param("standard", 2 * (15 << 20) + (5 << 20), id="standard"),
]


@pytest.fixture(autouse=True)
def small_segments(monkeypatch):
    """Runs of a few MiB cut into segments of about an eighth, on two threads whatever the machine."""
    monkeypatch.setattr(run_mode, "SEGMENTS_MIN_BYTES", 0)
    monkeypatch.setattr(run_mode, "SEGMENTS_MIN_S", 0.0)
    monkeypatch.setattr(run_mode, "MIN_SEGMENT_BYTES", 1)
    monkeypatch.setattr(run_mode, "machine_cores", lambda: 2)


@pytest.fixture
def workers():
    """The run's Dask workers, which segment threads never start."""
    with Workers(2, notice=lambda line: None) as unstarted:
        yield unstarted
        assert not unstarted.started


@pytest.fixture(scope="module")
def stream_file(tmp_path_factory):
    size = max(case.values[1] for case in CASES)
    return write_pcg64(tmp_path_factory.mktemp("segment-threads") / "pcg64.bin", size, SEED)


@pytest.mark.parametrize("suite_name, size", CASES)
def test_segment_threads_give_the_one_process_results(workers, stream_file, suite_name, size):
    suite = load_suite(suite_name)
    with open_source("pcg64", seed=SEED) as source:
        expected = comparable(run_stream(source, suite, limit=size))
    runs = {"jump": ("pcg64", "pcg64"), "pread": (str(stream_file), str(stream_file)),
            "sequential": (str(stream_file), None)}
    for split, (opened, spec) in runs.items():
        with open_source(opened, seed=SEED if opened == "pcg64" else None) as source:
            result = run_stream(source, suite, limit=size, spec=spec, workers=workers)
        execution = result.execution
        assert (execution["mode"], execution["run_mode"], execution["split"]) == ("threads", "segment-threads", split)
        segment = execution["segment_bytes"]
        if split != "sequential":  # a stream read in order keeps its 32 MiB segments: here, one or two
            assert segment % suite_alignment(suite) == 0 and execution["segments_on_workers"] >= 3
        assert execution["segments_on_workers"] == -(-size // segment)
        assert comparable(result) == expected, split


def test_progressive_lengths_inside_segments(workers):
    """Short lengths are judged here, in the first segment; longer ones
    inside a thread's segment come from its snapshot merged onto the prefix."""
    suite = load_suite("quick")
    progressive = Progressive(1 << 10, 24 << 20)
    with open_source("pcg64", seed=SEED) as source:
        expected = comparable(run_stream(source, suite, progressive=progressive))
    with open_source("pcg64", seed=SEED) as source:
        result = run_stream(source, suite, progressive=progressive, spec="pcg64", workers=workers)
    execution = result.execution
    assert execution["run_mode"] == "segment-threads"
    assert execution["in_process_bytes"] == execution["segment_bytes"] < 24 << 20
    assert comparable(result) == expected


def test_the_apis_threads_test_segments_side_by_side_without_workers():
    """randqa.test(threads=2) has no Dask workers: a long run is cut into
    segments for its threads all the same."""
    suite = load_suite("quick")
    size = (5 << 20) + 123
    with open_source("pcg64", seed=SEED) as source:
        expected = comparable(run_stream(source, suite, limit=size))
    with open_source("pcg64", seed=SEED) as source:
        result = run_stream(source, suite, limit=size, spec="pcg64", threads=2)
    assert (result.execution["mode"], result.execution["run_mode"]) == ("threads", "segment-threads")
    assert comparable(result) == expected


def test_a_stop_signal_reports_the_merged_prefix_without_waiting(workers):
    """SIGINT once the first segment is merged: the run ends interrupted at
    that segment's end, and does not wait for the segments the threads are
    still testing (the standard suite, 60 MiB in 8 segments)."""
    suite = load_suite("standard")
    segment = suite_alignment(suite)
    merged = []

    def progressed(count: int) -> None:
        merged.append(count)
        if len(merged) == 1:
            os.kill(os.getpid(), signal.SIGINT)

    with open_source("pcg64", seed=SEED) as source:
        begin = time.monotonic()
        result = run_stream(source, suite, limit=16 * segment, spec="pcg64", workers=workers,
                            on_progress=progressed)
        took = time.monotonic() - begin
    assert result.interrupted
    execution = result.execution
    assert execution["segments_on_workers"] == 1 and result.bytes_tested == execution["segment_bytes"]
    assert took < 10


def test_a_segments_error_reaches_the_run():
    threads = SegmentThreads(2)
    try:
        ok = threads.submit(sum, [1, 2, 3])
        bad = threads.submit(int, "not a number")
        assert ok.result(10) == 6
        with pytest.raises(ValueError):
            bad.result(10)
    finally:
        threads.close()


def test_a_cancelled_segment_never_runs_and_the_threads_are_daemons():
    threads = SegmentThreads(1)
    release, ran = threading.Event(), []
    try:
        busy = threads.submit(release.wait, 10)
        waiting = threads.submit(ran.append, "ran")
        assert waiting.cancel()
        release.set()
        assert busy.result(10) is True
        assert threads.submit(ran.append, "after").result(10) is None
        assert ran == ["after"]
        assert all(t.daemon for t in threading.enumerate() if t.name.startswith("randqa-segment-"))
        assert threads.describe() == {"mode": "threads", "workers": 1, "startup_s": 0.0}
    finally:
        threads.close()


class _SlowCount:
    """An accumulator that counts its chunks, slowly, and says when it has one."""

    def __init__(self) -> None:
        self.chunks, self.first = 0, threading.Event()

    def update(self, chunk) -> None:
        self.chunks += 1
        self.first.set()
        time.sleep(0.02)


@pytest.mark.parametrize("reader", ["source", "array"])
def test_closing_the_threads_stops_the_segments_being_tested(reader):
    """A run that ends with segments still being tested (stopped, failed at
    a progressive length, an error) closes its threads: each such segment
    stops at its next chunk, rather than testing on, unseen, in a process
    that goes on (the API, compare's next source).  Here a segment with no
    end (pcg64 without a limit) or of 1 GiB (a producer's bytes) stops
    within a few chunks of the close."""
    threads, counter, ran_in = SegmentThreads(1), _SlowCount(), []
    data = np.zeros(1 << 30, dtype=np.uint8)

    def segment():
        ran_in.append(threading.current_thread())
        if reader == "array":
            return ArrayReader(data).feed([counter], len(data))
        with open_source("pcg64", seed=SEED) as source:
            return SourceReader(source).feed([counter], 1 << 62)

    future = threads.submit(segment)
    assert counter.first.wait(10)
    threads.close()
    with pytest.raises(SegmentAbandoned):
        future.result(10)
    assert counter.chunks < 10
    ran_in[0].join(10)
    assert not ran_in[0].is_alive()


def test_feeding_outside_segment_threads_is_never_abandoned():
    counter = _SlowCount()
    assert ArrayReader(np.zeros(3 * CHUNK_BYTES, dtype=np.uint8)).feed([counter], 3 * CHUNK_BYTES).units \
        == 3 * CHUNK_BYTES
    assert counter.chunks == 3


def test_segment_threads_need_a_thread():
    with pytest.raises(ValueError):
        SegmentThreads(0)
