"""Segments dispatched to the workers and merged back in stream order.

``in_stream_order`` submits segments ahead of the one being merged, at most
``window`` of them (two per worker thread; the runner's ``in_flight()``
when it says), and hands back their results
strictly in stream order: merging is concatenation, so only a contiguous
prefix can be merged.  Dask recomputes the segment of a lost worker (the
task's arguments are kept by the scheduler, ``retries`` covers the rest);
a segment whose data a producer sent (a sequential source) is sent again
from the producer's copy, which it keeps until the segment is merged.

``run_segment`` is the task each worker runs; the workers themselves (an
embedded cluster or a scheduler's) are ``randqa.engine.parallel.Workers``.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np

from randqa._version import __version__
from randqa.engine.parallel import POLL_S, Workers, check_version
from randqa.errors import RandqaError

#: segments in flight per worker thread: one running, one waiting
IN_FLIGHT_PER_WORKER = 2
#: how often a producer's segment is sent again after its worker was lost
RESENDS = 3


def run_segment(client_version: str, job: Any, segment: "Segment", data: np.ndarray | None) -> dict[str, Any]:
    """The task every worker runs: test one segment (see ``SegmentJob.compute``)."""
    check_version(client_version)
    _keep_large_allocations()
    return job.compute(segment.start, segment.count, segment.snapshots, data)


#: what Dask's nanny sets MALLOC_TRIM_THRESHOLD_ to in its workers
_DASK_TRIM_THRESHOLD = "65536"
#: whether this process has set the thresholds already
_allocation_tuned = False


def _keep_large_allocations() -> None:
    """Keep a chunk's temporaries in the heap, where segments are tested (a
    Dask worker, or this process's segment threads).  Dask's nanny sets
    MALLOC_TRIM_THRESHOLD_=65536 for its workers, with which glibc no longer
    raises its mmap threshold as large blocks are freed; and threads get
    arenas of their own, which glibc trims as soon as a large block is
    freed.  Either way every chunk's temporaries are mapped, faulted in and
    unmapped again (12% of a segment's time on a worker; on two segment
    threads the system time of 4 GiB of the standard suite went from 0.9 to
    2.5-4 s).  The thresholds set here are the ceilings glibc's own
    adjustment reaches on 64-bit (32 MiB for mmap, twice that for
    trimming), so the temporaries stay in the heap.  Thresholds the user
    chose (MALLOC_TRIM_THRESHOLD_ other than Dask's, MALLOC_MMAP_THRESHOLD_)
    are left alone.  Needs glibc's mallopt (M_TRIM_THRESHOLD -1,
    M_MMAP_THRESHOLD -3); elsewhere nothing changes."""
    global _allocation_tuned
    if (_allocation_tuned or os.environ.get("MALLOC_TRIM_THRESHOLD_", _DASK_TRIM_THRESHOLD) != _DASK_TRIM_THRESHOLD
            or "MALLOC_MMAP_THRESHOLD_" in os.environ):
        return
    _allocation_tuned = True
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    m_trim_threshold, m_mmap_threshold = -1, -3
    mallopt(m_mmap_threshold, 32 << 20)
    mallopt(m_trim_threshold, 64 << 20)


@dataclass(frozen=True)
class Segment:
    """Units ``[start, start + count)`` of the stream, and the offsets inside
    it at which the worker also returns its state (progressive lengths)."""

    index: int
    start: int
    count: int
    snapshots: tuple[int, ...] = ()
    #: the bytes themselves, when a producer reads the stream (else the worker opens it)
    data: np.ndarray | None = field(default=None, compare=False, repr=False)


class _Pending:
    """A segment in flight.  Its result is fetched once the task is done:
    fetching with a timeout would cancel and restart long transfers (the
    rc4 suite's 128 MiB of digraph counts) at every poll."""

    def __init__(self, segment: Segment, future: Any) -> None:
        self.segment = segment
        self.resends = 0
        self.follow(future)

    def follow(self, future: Any) -> None:
        self.future = future
        done = self.done = threading.Event()
        # the callback holds the event only: one holding this _Pending would
        # make a cycle (future, callback, _Pending) that keeps the segment's
        # data alive until a full garbage collection
        future.add_done_callback(lambda _future: done.set())


def in_stream_order(workers: Workers, job: Any, segments: Iterator[Segment],
                    interrupted: Callable[[], bool], *, drain: bool = False,
                    abandon: Callable[[], bool] = lambda: False) -> Iterator[tuple[Segment, dict[str, Any]]]:
    """Test ``segments`` on the workers; yield (segment, result) in stream order.

    ``segments`` is consumed lazily, at most ``window`` ahead of the segment
    being merged, so a producer reading the stream holds at most that many
    segments.  ``interrupted()`` is polled while waiting; when it turns true,
    KeyboardInterrupt is raised here (in-flight segments are cancelled), or
    with ``drain`` no further segment is taken and those in flight are still
    tested and yielded: bytes a producer read from a stream that cannot be
    read again (stdin) are tested, not dropped, unless ``abandon()`` turns
    true meanwhile (a second stop signal).
    """
    client = workers.client(interrupted)
    window = getattr(workers, "in_flight", lambda: IN_FLIGHT_PER_WORKER * workers.slots())()
    queue: deque[_Pending] = deque()
    exhausted = False

    def submit(segment: Segment) -> Any:
        data = segment.data
        if data is not None:
            for attempt in range(RESENDS + 1):
                try:
                    data = client.scatter(data, hash=False)
                    break
                except OSError:  # the worker chosen was just lost: the scheduler soon knows
                    if attempt == RESENDS:
                        raise
                    time.sleep(1.0)
        plain = Segment(segment.index, segment.start, segment.count, segment.snapshots)
        return client.submit(run_segment, __version__, job, plain, data, pure=False, retries=2)

    try:
        while True:
            while not exhausted and len(queue) < window:
                if interrupted():
                    if not drain:
                        raise KeyboardInterrupt
                    exhausted = True  # no further segment is read
                    break
                segment = next(segments, None)
                if segment is None:
                    exhausted = True
                    break
                queue.append(_Pending(segment, submit(segment)))
            if not queue:
                return
            result = _wait(queue[0], client, submit, abandon if drain else interrupted)
            merged = queue.popleft().segment  # with its bytes: retests riding along read them
            yield merged, result
            merged = result = None  # freed before the next segment is read
    finally:
        for pending in queue:
            pending.future.cancel()


def _wait(pending: _Pending, client: Any, submit: Callable[[Segment], Any], interrupted: Callable[[], bool]) -> dict:
    while True:
        while not pending.done.wait(POLL_S):
            if interrupted():
                raise KeyboardInterrupt
        try:
            return pending.future.result()
        except RandqaError:
            raise
        except Exception as error:
            if pending.segment.data is not None and pending.resends < RESENDS:
                # the worker that held the producer's data was lost: send it again
                pending.resends += 1
                pending.follow(submit(pending.segment))
                continue
            raise error
