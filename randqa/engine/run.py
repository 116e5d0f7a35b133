"""The engine: read a source chunk by chunk and feed every accumulator.

Kept small on purpose: sources know how to fill buffers, tests know how to
accumulate, reports know how to print; this module only connects them.
"""

from __future__ import annotations

import signal
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable

import numpy as np

from randqa.battery import Accumulator
from randqa.battery.suites import Suite
from randqa.results import TestResult, Thresholds, classify
from randqa.run_result import RunResult
from randqa.sources import Source, read_full
from randqa.sources.base import ReadInterrupted

#: bytes per chunk: large enough that per-chunk Python and thread hand-off
#: costs vanish (4 MiB ran --jobs 2 about 15% faster than 1 MiB), small
#: enough that two buffers stay a few MiB
CHUNK_BYTES = 4 << 20
#: a --max this large means "until the input ends"
UNTIL_END = 1 << 62
#: seconds between checkpoints unless --checkpoint-every says otherwise
DEFAULT_CHECKPOINT_EVERY_S = 300.0


#: the signals that stop a run with its partial results written: Ctrl-C,
#: and what batch schedulers, `timeout` and a closed terminal send
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

_last_stop_signal: int | None = None


def last_stop_signal() -> int | None:
    """The stop signal most recently caught by an InterruptGuard in this
    process (None if none): the CLI exits with 128 + it."""
    return _last_stop_signal


def clear_stop_signal() -> None:
    """Forget the last stop signal (at the start of a command)."""
    global _last_stop_signal
    _last_stop_signal = None


class InterruptGuard:
    """A stop signal (SIGINT, SIGTERM, SIGHUP) during a read stops at once;
    during the tests' update it waits for the chunk to finish, so no
    accumulator is left half-updated.  Either way ``signum`` records which
    signal arrived, and ``last_stop_signal()`` returns it."""

    def __init__(self) -> None:
        self.updating = False
        self.pending = False
        self.signum: int | None = None
        self._previous: dict[int, Any] = {}

    def _handler(self, signum: int, frame: Any) -> None:
        global _last_stop_signal
        self.signum = _last_stop_signal = signum
        if self.updating:
            self.pending = True
        else:
            raise KeyboardInterrupt

    def __enter__(self) -> "InterruptGuard":
        try:
            for signum in STOP_SIGNALS:
                # an ignored signal stays ignored: `nohup` ignores SIGHUP, a
                # shell ignores SIGINT for background jobs
                if signal.getsignal(signum) != signal.SIG_IGN:
                    self._previous[signum] = signal.signal(signum, self._handler)
        except ValueError:  # not the main thread: leave signals alone
            self._restore()
        return self

    def _restore(self) -> None:
        for signum, previous in self._previous.items():
            # None: a handler installed outside Python, which cannot be put back
            signal.signal(signum, signal.SIG_DFL if previous is None else previous)
        self._previous = {}

    def __exit__(self, *exc: object) -> None:
        self._restore()


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
) -> tuple[int, int, bool]:
    """Stream ``source`` into every accumulator.

    ``limit`` counts the source's units (bytes, or bits for bit text).  With
    ``jobs`` > 1 the accumulators run in that many threads while the next
    chunk is read into a second buffer.  Returns (bytes fed, bits fed,
    interrupted).
    """
    limit_bits = None if limit is None else limit * source.unit_bits
    buffers = [np.empty(chunk_bytes, dtype=np.uint8) for _ in range(2 if jobs > 1 else 1)]
    work = _ChunkWork(accumulators, jobs)
    fed = 0
    read = 0
    tail_bits = 0
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
            remaining = 7 if limit_bits is None else min(7, limit_bits - 8 * fed)
            if remaining > 0 and source.unit_bits == 1 and not guard.pending:
                bits = source.read_bits(remaining)
                if len(bits):
                    guard.updating = True
                    for acc in accumulators:
                        acc.update_tail_bits(bits)
                    guard.updating = False
                    tail_bits = len(bits)
            if guard.pending:
                raise KeyboardInterrupt
        except KeyboardInterrupt:
            interrupted = True
            fed += work.finish()  # a chunk in flight is completed, never half-counted
        finally:
            work.close()
    return fed, 8 * fed + tail_bits, interrupted


def judge_entries(accumulators: list[Accumulator], thresholds: Thresholds) -> list[list[TestResult]]:
    """Every accumulator's results so far, each with its verdict: one list per accumulator."""
    entries = [acc.finalize() for acc in accumulators]
    for results in entries:
        for r in results:
            classify(r, thresholds)
    return entries


def judge(accumulators: list[Accumulator], thresholds: Thresholds) -> list[TestResult]:
    """Every accumulator's results so far, each with its verdict."""
    return [r for results in judge_entries(accumulators, thresholds) for r in results]


def run(
    source: Source,
    suite: Suite,
    *,
    limit: int | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    jobs: int = 1,
    on_progress: Callable[[int], None] | None = None,
) -> RunResult:
    """Feed the source through fresh accumulators of the suite and judge the
    results, in this process (``jobs`` threads; randqa.engine.execute has
    the segment-parallel run this is one case of)."""
    from randqa.engine.execute import run_stream

    return run_stream(source, suite, limit=limit, threads=jobs, chunk_bytes=chunk_bytes, on_progress=on_progress)


def run_progressive(
    source: Source,
    suite: Suite,
    min_bytes: int,
    max_bytes: int,
    keep_going: bool = False,
    *,
    jobs: int = 1,
    on_progress: Callable[[int], None] | None = None,
) -> RunResult:
    """Test prefixes of doubling length, min_bytes, 2 min_bytes, ... max_bytes.

    One set of accumulators reads the stream once; after each length its
    results so far are judged and recorded.  The run stops at the first
    ``fail`` unless ``keep_going``; ``first_failure_bytes`` then states the
    generator's quality as one number ("fails at 2^k bytes").
    """
    from randqa.engine.execute import Progressive, run_stream

    return run_stream(source, suite, progressive=Progressive(min_bytes, max_bytes, keep_going), threads=jobs,
                      on_progress=on_progress)
