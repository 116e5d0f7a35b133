"""Feeding accumulators: ``feed`` streams a source into them a chunk at a
time (in threads with ``jobs`` > 1), and the readers feed one segment's units
to a worker's accumulators.  Every feed says what it did as a ``Fed``.

Only whole bytes are fed here: the final 1-7 bits of bit text are the
run's end, fed by the workload (``StreamWorkload.finish``)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from randqa.battery import Accumulator
from randqa.engine.segment_threads import SegmentAbandoned, abandoned
from randqa.engine.signals import InterruptGuard
from randqa.sources import Source, read_full
from randqa.sources.base import ReadInterrupted


#: bytes per chunk: large enough that per-chunk Python, thread hand-off and
#: kernel set-up costs vanish (the standard suite took 2% less CPU with
#: 8 MiB than with 4 MiB, 20% less than with 1 MiB), small enough that two
#: buffers stay a few MiB
CHUNK_BYTES = 8 << 20


@dataclass(frozen=True)
class Fed:
    """What a feed did: ``units`` fed (bytes; seeds for a seed sweep), and
    whether Ctrl-C (or a stalled pipe's stop) ended it."""

    units: int
    interrupted: bool = False


class _ChunkWork:
    """Updates every accumulator with one chunk: in this thread, or spread
    over a thread pool as each accumulator's ``update_tasks`` (the kernels
    release the GIL, and each accumulator still sees every chunk in order,
    so results are those of one thread)."""

    def __init__(self, accumulators: list[Accumulator], jobs: int) -> None:
        self.accumulators = accumulators
        self.jobs = jobs
        self.pool = ThreadPoolExecutor(jobs) if jobs > 1 else None
        self.futures: list[Future] = []
        self.size = 0

    def start(self, chunk: np.ndarray) -> None:
        if abandoned():  # a segment thread's run has ended: nobody waits for this segment
            raise SegmentAbandoned
        self.size = len(chunk)
        if self.pool is None:
            for acc in self.accumulators:
                acc.update(chunk)
        else:
            self.futures = [self.pool.submit(task) for acc in self.accumulators
                            for task in acc.update_tasks(chunk, self.jobs)]

    def finish(self) -> int:
        """Wait for the chunk in flight; return its size (0 when none)."""
        for future in self.futures:
            future.result()
        self.futures = []
        size, self.size = self.size, 0
        return size

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True)


def feed(
    source: Source,
    accumulators: list[Accumulator],
    *,
    limit: int | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    jobs: int = 1,
    on_progress: Callable[[int], None] | None = None,
) -> Fed:
    """Stream the whole bytes of ``source`` into every accumulator.

    ``limit`` counts the source's units (bytes, or bits for bit text, of
    which the whole bytes are fed).  With ``jobs`` > 1 the accumulators run
    in that many threads while the next chunk is read into a second buffer.
    """
    limit_bits = None if limit is None else limit * source.unit_bits
    buffers = [np.empty(chunk_bytes, dtype=np.uint8) for _ in range(2 if jobs > 1 else 1)]
    work = _ChunkWork(accumulators, jobs)
    fed = 0
    read = 0
    interrupted = False
    with InterruptGuard() as guard:
        try:
            turn = 0
            while limit_bits is None or 8 * read + 8 <= limit_bits:
                want = chunk_bytes if limit_bits is None else min(chunk_bytes, limit_bits // 8 - read)
                buffer = buffers[turn % len(buffers)]
                turn += 1
                try:
                    got = read_full(source, memoryview(buffer)[:want])
                except ReadInterrupted as stop:  # a stalled pipe: what arrived is tested, then the run stops
                    got, guard.pending = stop.filled, True
                read += got
                guard.updating = True
                done = work.finish()
                fed += done
                if got:
                    work.start(buffer[:got])
                guard.updating = False
                if on_progress and done:
                    on_progress(done)
                if guard.pending:
                    raise KeyboardInterrupt
                if got < want:
                    break
            guard.updating = True
            done = work.finish()
            fed += done
            guard.updating = False
            if on_progress and done:
                on_progress(done)
            if guard.pending:
                raise KeyboardInterrupt
        except KeyboardInterrupt:
            interrupted = True
            fed += work.finish()  # a chunk in flight is completed, never half-counted
        finally:
            work.close()
    return Fed(fed, interrupted)


class Reader(ABC):
    """Feeds the next units of a segment to accumulators."""

    @abstractmethod
    def feed(self, accumulators: list[Any], count: int) -> Fed:
        """Feed up to ``count`` units (fewer when the data ends)."""

    def close(self) -> None:
        pass

    def __enter__(self) -> "Reader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ArrayReader(Reader):
    """The bytes of a segment a producer read, fed a chunk at a time."""

    def __init__(self, data: np.ndarray) -> None:
        self.data = data
        self.offset = 0

    def feed(self, accumulators: list[Any], count: int) -> Fed:
        end = min(len(self.data), self.offset + count)
        work = _ChunkWork(accumulators, 1)
        for first in range(self.offset, end, CHUNK_BYTES):
            work.start(self.data[first:min(end, first + CHUNK_BYTES)])
        fed, self.offset = end - self.offset, end
        return Fed(fed)


class SourceReader(Reader):
    def __init__(self, source: Source) -> None:
        self.source = source

    def feed(self, accumulators: list[Any], count: int) -> Fed:
        return feed(self.source, accumulators, limit=count)

    def close(self) -> None:
        self.source.close()
