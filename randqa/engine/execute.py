"""The one run loop: plain runs, progressive runs and seed sweeps, in this
process or on Dask workers, with checkpoints.

A run of N units (bytes; seeds for a seed sweep) is cut into contiguous
segments of S units, S a multiple of every accumulator's ``alignment``
(``segment_size``).  Segment k covers ``[k S, (k+1) S)`` of exactly the
stream a one-process run reads: a worker opens the source there
(``randqa.sources.segments.open_at``: pread for files, a jump for
generators that can, a fresh read of the OS for urandom and its kind), or
gets the bytes from this process, which reads a sequential source (stdin,
RC4, ...) in order and hands segments out.  Workers return their
accumulators' state (plain data, ``Accumulator.state``) and this process
merges them strictly in stream order, a contiguous prefix at a time, so the
results are those of one process whatever the workers and the segment size.

What runs where:

- in this process: everything with ``--jobs 1``; a run no longer than one
  segment (a cluster's start-up would cost more than it saves); the first
  segment of a progressive run, whose short lengths are judged before any
  cluster starts (a bad generator fails at 1 KiB and never waits for one);
  a piece up to the next segment boundary after resuming mid-segment.
  ``--jobs N`` then runs the suite's tests in N threads on each chunk;
- on workers: every other segment.  A progressive length inside a segment
  is reached by asking its worker for a snapshot of the state there, merged
  onto a copy of the prefix and judged.

The run's JSON says how it was executed (``execution``: mode, workers,
segment size, how the source was split).  With a checkpoint the merged
prefix is saved at most every ``checkpoint_every`` seconds and at exit
(randqa/engine/checkpoint.py); a run resumes from any such state.
"""

from __future__ import annotations

import math
import os
import stat
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator

import numpy as np

from randqa.battery import Accumulator
from randqa.battery._state import StateError, export_state, import_state
from randqa.battery.suites import Suite
from randqa.engine.run import CHUNK_BYTES, DEFAULT_CHECKPOINT_EVERY_S, InterruptGuard, feed, judge, judge_entries
from randqa.errors import InputError, UsageError
from randqa.results import RunResult, TestResult, Thresholds, Verdict, resolve_retest, worst_verdict
from randqa.sizes import format_size
from randqa.sources import Source, read_full

#: the default segment when workers open the source themselves (a jump, a
#: pread, the OS's generator): long enough that what a segment costs besides
#: its test (a Dask task, its state sent and merged: about 30 ms of CPU for
#: the standard suite, benchmarks/bench_scaling.py) is about 1% of its test
OPENED_SEGMENT_BYTES = 1 << 30
#: the default segment of a stream this process reads and hands out, which
#: holds two segments per worker in flight, and of a seed sweep
DEFAULT_SEGMENT_BYTES = 256 << 20


# --------------------------------------------------------------------------
# Segment sizes


def suite_alignment(suite: Suite, fold: tuple[int, int] | None = None) -> int:
    """The smallest segment every accumulator of the suite can be split at:
    the lcm of their ``alignment``s (and, for a folded source, the folded
    bytes that end on a whole word)."""
    alignment = math.lcm(*(acc.alignment for acc in suite.build()))
    if fold is not None:
        low_bits = fold[1]
        alignment = math.lcm(alignment, low_bits // math.gcd(low_bits, 8))
    return alignment


def segment_size(alignment: int, requested: int | None, *, unit: str = "bytes",
                 default: int = DEFAULT_SEGMENT_BYTES) -> int:
    """``--segment`` checked against the alignment, or the multiple of it nearest ``default``."""
    if requested is not None:
        if requested <= 0 or requested % alignment:
            nearest = max(1, round(requested / alignment)) * alignment
            raise UsageError(f"--segment {format_size(requested)} is not a multiple of {format_size(alignment)}, "
                             f"the {unit} at which every test of the suite can be split (try {format_size(nearest)})")
        return requested
    return max(1, round(default / alignment)) * alignment


def default_segment(workload: "Workload", limit: int | None = None, slots: int | None = None) -> int:
    """The segment a run gets without --segment.  Where workers open the
    source themselves, 1 GiB; but a run of ``limit`` units on ``slots``
    workers is cut finer (randqa.engine.run_mode.balanced_segment), so that
    what this process tests while the cluster starts and the last round of
    segments leave no worker idle long.  Where this process hands the data
    out, 256 MiB."""
    from randqa.engine.run_mode import balanced_segment

    if not workload.remote_open:
        return DEFAULT_SEGMENT_BYTES
    if limit is None or slots is None:
        return OPENED_SEGMENT_BYTES
    return min(OPENED_SEGMENT_BYTES, balanced_segment(limit, slots))


# --------------------------------------------------------------------------
# What workers run


class SegmentJob(ABC):
    """The part of a workload that workers run: build fresh accumulators for
    the segment starting at ``start`` and feed them its units.  Instances are
    sent to workers, so they hold only plain, picklable data."""

    @abstractmethod
    def build(self, start: int) -> list[Any]:
        """Fresh accumulators for a piece that starts at unit ``start``."""

    @abstractmethod
    def reader(self, start: int, count: int, data: np.ndarray | None) -> "Reader":
        """What feeds units ``[start, start + count)`` to accumulators."""

    def compute(self, start: int, count: int, snapshots: tuple[int, ...], data: np.ndarray | None) -> dict[str, Any]:
        """Test units ``[start, start + count)``; also return the state at each
        offset of ``snapshots``.  ``count`` in the result is what was there
        (less than asked when the data ends)."""
        accumulators = self.build(start)
        states: dict[int, list[dict[str, Any]]] = {}
        position = start
        with self.reader(start, count, data) as reader:
            for point in [*snapshots, start + count]:
                want = point - position
                fed = reader.feed(accumulators, want)
                position += fed
                if fed < want:
                    break
                if point != start + count:
                    states[point] = [export_state(acc) for acc in accumulators]
        return {"count": position - start, "states": [export_state(acc) for acc in accumulators], "snapshots": states}


class Reader(ABC):
    """Feeds the next units of a segment to accumulators."""

    @abstractmethod
    def feed(self, accumulators: list[Any], count: int) -> int:
        """Feed up to ``count`` units; return how many there were."""

    def close(self) -> None:
        pass

    def __enter__(self) -> "Reader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _ArrayReader(Reader):
    """The bytes of a segment a producer read, fed a chunk at a time."""

    def __init__(self, data: np.ndarray) -> None:
        self.data = data
        self.offset = 0

    def feed(self, accumulators: list[Any], count: int) -> int:
        end = min(len(self.data), self.offset + count)
        for first in range(self.offset, end, CHUNK_BYTES):
            chunk = self.data[first:min(end, first + CHUNK_BYTES)]
            for acc in accumulators:
                acc.update(chunk)
        fed, self.offset = end - self.offset, end
        return fed


class _SourceReader(Reader):
    def __init__(self, source: Source) -> None:
        self.source = source

    def feed(self, accumulators: list[Any], count: int) -> int:
        fed, _bits, _interrupted = feed(self.source, accumulators, limit=count)
        return fed

    def close(self) -> None:
        self.source.close()


@dataclass(frozen=True)
class StreamJob(SegmentJob):
    """A byte stream's segments: opened by the worker (``spec`` and the
    recorded ``seed``; files by pread, generators by a jump), or sent as
    bytes by the producer."""

    suite: Suite
    spec: str | None = None
    seed: int | None = None
    fold: tuple[int, int] | None = None
    #: the interleaved streams of --streams (a StreamLayout's JSON)
    streams: dict[str, Any] | None = None

    def build(self, start: int) -> list[Any]:
        accumulators = self.suite.build()
        for acc in accumulators:
            acc.begin_at(start)
        return accumulators

    def reader(self, start: int, count: int, data: np.ndarray | None) -> Reader:
        if data is not None:
            return _ArrayReader(data)
        from randqa.sources.segments import open_at

        if self.spec is None:
            raise ValueError("a sequential stream's segments come with their data")
        if self.fold is None:
            return _SourceReader(open_at(self.spec, self.seed, start, length=count, streams=self.streams))
        from randqa.sources.folded import FoldedSource

        word_bits, low_bits = self.fold
        raw = open_at(self.spec, self.seed, 8 * start // low_bits * (word_bits // 8))
        return _SourceReader(FoldedSource(raw, word_bits, low_bits))


# --------------------------------------------------------------------------
# Workloads: the local half


class Workload(ABC):
    """What a run tests, seen from this process."""

    #: how segments are produced: randqa.sources.segments.split_method, or "seeds"
    split: str
    #: what workers run
    job: SegmentJob
    #: segment boundaries must be multiples of this many units
    alignment: int = 1
    #: what one unit is
    unit: str = "bytes"
    #: bytes per unit, for the progress bar
    unit_bytes: int = 1
    #: the source's name, for messages
    name: str = "source"

    @property
    def remote_open(self) -> bool:
        """Whether workers open the data themselves (else this process produces it)."""
        return self.split in ("jump", "pread", "independent")

    def build(self) -> list[Any]:
        return self.job.build(0)

    @abstractmethod
    def feed(self, accumulators: list[Any], start: int, count: int, threads: int,
             on_progress: Callable[[int], None] | None) -> tuple[int, bool]:
        """Feed units ``[start, start + count)`` here; return (units fed, interrupted)."""

    def produce(self, start: int, count: int) -> np.ndarray:
        """Read units ``[start, start + count)`` for a worker (sequential sources)."""
        raise NotImplementedError

    def finish(self, accumulators: list[Any], position: int) -> int:
        """At the end of the data: feed what follows the last whole unit (bit text's final bits)."""
        return 0

    def size(self) -> int | None:
        """Units the data holds, when known before reading it (a file)."""
        return None

    @abstractmethod
    def judge(self, accumulators: list[Any]) -> list[TestResult]:
        """The results of the accumulators, with verdicts."""

    def judge_entries(self, accumulators: list[Any]) -> list[list[TestResult]]:
        """``judge``'s results, one list per entry that can be retested
        (``fresh_entry``); by default one list, never retested."""
        return [self.judge(accumulators)]

    #: the verdicts' thresholds (a retest settles a result with them)
    thresholds: Thresholds = Thresholds()

    def fresh_entry(self, entry: int) -> Any | None:
        """A fresh accumulator of entry ``entry`` that reads what it is fed
        as a stream of its own: a retest on fresh data.  None: this workload's
        results are not retested."""
        return None

    def reread(self, accumulators: list[Any], start: int, count: int) -> int | None:
        """Feed units ``[start, start + count)`` to ``accumulators`` from a
        fresh opening of the source; how many there were, or None when the
        source cannot be read again (stdin)."""
        return None

    def close(self) -> None:
        pass


class StreamWorkload(Workload):
    """A byte stream (stdin, a file, a generator, a folded one) through a suite.

    ``source`` is read here for in-process pieces and as the producer of a
    sequential stream; ``spec`` (the name the user gave) lets workers open
    it themselves.  Without a spec the stream is treated as sequential.
    """

    def __init__(self, source: Source, suite: Suite, *, spec: str | None = None,
                 fold: tuple[int, int] | None = None, limit_bits: int | None = None,
                 chunk_bytes: int = CHUNK_BYTES) -> None:
        from randqa.sources.segments import split_method

        self.source = source
        self.name = source.name
        self.suite = suite
        self.fold = fold
        self.spec = spec
        self.unit_bits = source.unit_bits
        #: bit text: the run's limit in bits, for the final 1-7 bits
        self.limit_bits = limit_bits
        self.chunk_bytes = chunk_bytes
        from randqa.sources.multistream import MultiStreamSource

        self.split = split_method(source) if spec is not None else "sequential"
        streams = source.layout.to_json() if isinstance(source, MultiStreamSource) else None
        self.job = StreamJob(suite, spec if self.split != "sequential" else None, source.seed, fold, streams)
        self.alignment = suite_alignment(suite, fold)
        self._consumed: int | None = 0  # stream position of ``source``; None when unknown
        self._tail_bits = 0

    def _at(self, start: int) -> None:
        """Put the local source at unit ``start``."""
        if self._consumed == start:
            return
        if self.remote_open and self.spec is not None:
            self.source.close()
            reader = self.job.reader(start, 0, None)
            assert isinstance(reader, _SourceReader)
            self.source = reader.source
        elif self._consumed is not None and self._consumed < start:
            # a sequential stream: read up to the position and drop it (stdin: the same data again)
            scratch = np.empty(min(CHUNK_BYTES, start - self._consumed), dtype=np.uint8)
            while self._consumed < start:
                want = min(len(scratch), start - self._consumed)
                got = read_full(self.source, memoryview(scratch)[:want])
                self._consumed += got
                if got < want:
                    raise InputError(f"{self.source.name}: the data ended after {self._consumed} bytes, "
                                     f"before the {start} already tested")
        else:
            raise InputError(f"{self.source.name}: cannot go back to byte {start} of a stream read in order")
        self._consumed = start

    def feed(self, accumulators: list[Any], start: int, count: int, threads: int,
             on_progress: Callable[[int], None] | None) -> tuple[int, bool]:
        self._at(start)
        fed, bits, interrupted = feed(self.source, accumulators, limit=count * 8 // self.unit_bits, jobs=threads,
                                      chunk_bytes=self.chunk_bytes, on_progress=on_progress)
        # bit text that ends inside this piece: feed has given its final bits already
        self._tail_bits = bits - 8 * fed
        self._consumed = None if interrupted else start + fed
        return fed, interrupted

    def produce(self, start: int, count: int) -> np.ndarray:
        self._at(start)
        self._consumed = None  # until the read completes: Ctrl-C may stop it midway
        buffer = np.empty(count, dtype=np.uint8)
        got = read_full(self.source, memoryview(buffer))
        self._consumed = start + got
        return buffer[:got]

    def finish(self, accumulators: list[Any], position: int) -> int:
        if self.unit_bits != 1 or self._tail_bits:
            return self._tail_bits
        remaining = 7 if self.limit_bits is None else min(7, self.limit_bits - 8 * position)
        if remaining <= 0:
            return 0
        self._at(position)
        bits = self.source.read_bits(remaining)
        if len(bits):
            for acc in accumulators:
                acc.update_tail_bits(bits)
        return len(bits)

    def size(self) -> int | None:
        if self.split != "pread":
            return None
        inner = getattr(self.source, "inner", self.source)
        reader = getattr(inner, "_reader", None)
        if reader is None or reader.fd < 0 or not stat.S_ISREG(os.fstat(reader.fd).st_mode):
            return None
        size = os.fstat(reader.fd).st_size
        if self.fold is not None:
            word_bits, low_bits = self.fold
            size = size // (word_bits // 8) * low_bits // 8
        return size

    def judge(self, accumulators: list[Any]) -> list[TestResult]:
        return judge(accumulators, self.suite.thresholds)

    def judge_entries(self, accumulators: list[Any]) -> list[list[TestResult]]:
        return judge_entries(accumulators, self.suite.thresholds)

    @property
    def thresholds(self) -> Thresholds:  # type: ignore[override]
        return self.suite.thresholds

    def fresh_entry(self, entry: int) -> Any:
        return self.suite.tests[entry].build()

    def reread(self, accumulators: list[Any], start: int, count: int) -> int | None:
        if self.spec is None or self.unit_bits == 1:
            return None
        if self.remote_open:
            with self.job.reader(start, count, None) as reader:
                return reader.feed(accumulators, count)
        if not self.source.endless:
            return None  # stdin: what was read is gone
        # a generator that only runs forward: open it again and read up to the block
        from randqa.sources import open_source
        from randqa.sources.folded import FoldedSource

        source: Source = open_source(self.spec, seed=self.source.seed)
        if self.fold is not None:
            source = FoldedSource(source, *self.fold)
        with _SourceReader(source) as reader:
            skipped = reader.feed([], start)
            return reader.feed(accumulators, count) if skipped == start else 0

    def close(self) -> None:
        self.source.close()


# --------------------------------------------------------------------------
# The loop


@dataclass
class Plan:
    """What to test: ``limit`` units (None: until the data ends), judged at
    the end, or at each of ``lengths`` when progressive."""

    limit: int | None = None
    progressive: bool = False
    lengths: tuple[int, ...] = ()
    keep_going: bool = False


def doubling_lengths(min_units: int, max_units: int) -> tuple[int, ...]:
    """min, 2 min, 4 min, ..., max: the lengths a progressive run judges."""
    if min_units > max_units:
        raise UsageError(f"--min ({min_units}) is larger than --max ({max_units})")
    lengths = [min_units]
    while lengths[-1] < max_units:
        lengths.append(min(2 * lengths[-1], max_units))
    return tuple(lengths)


@dataclass
class Progress:
    """How far a run got: what a checkpoint saves besides the accumulators."""

    position: int = 0
    tail_bits: int = 0
    #: the progressive lengths judged so far (their JSON records)
    lengths: list[dict[str, Any]] = field(default_factory=list)
    first_failure: int | None = None
    #: seconds spent in earlier sessions of the run
    elapsed_s: float = 0.0
    #: the run reached its end (limit, end of data, or a failure that stops it)
    complete: bool = False
    #: the data ended before the limit
    ended: bool = False
    sessions: int = 0
    #: segments tested on workers, bytes tested in this process, over all sessions
    segments: int = 0
    in_process: int = 0

    def to_json(self) -> dict[str, Any]:
        return dict(vars(self))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Progress":
        return cls(**data)


@dataclass
class Outcome:
    """What a run found, before it becomes a RunResult."""

    results: list[TestResult]
    progress: Progress
    interrupted: bool
    elapsed_s: float
    execution: dict[str, Any]
    #: the progressive lengths to report (those judged, plus where an interruption stopped)
    lengths: list[dict[str, Any]]


class Saver(ABC):
    """Where the loop saves its progress (randqa.engine.checkpoint.Checkpoint)."""

    every_s: float = DEFAULT_CHECKPOINT_EVERY_S

    @abstractmethod
    def save(self, progress: Progress, accumulators: list[Any]) -> None:
        """Save the merged state of the longest finished prefix."""


def copy_accumulators(job: SegmentJob, accumulators: list[Any]) -> list[Any]:
    """Independent copies, through their state (locks and factories rebuilt)."""
    copies = job.build(0)
    for copy, acc in zip(copies, accumulators):
        _load(copy, export_state(acc))
    return copies


def _load(acc: Any, state: dict[str, Any]) -> None:
    if isinstance(acc, Accumulator):
        acc.load_state(state)
    else:
        import_state(acc, state)


def loaded(job: SegmentJob, start: int, states: list[dict[str, Any]]) -> list[Any]:
    """Fresh accumulators of ``job`` for a piece at ``start``, holding ``states``; StateError if they do not fit."""
    accumulators = job.build(start)
    if len(states) != len(accumulators):
        raise StateError("a segment's result holds another number of tests")
    for acc, state in zip(accumulators, states):
        _load(acc, state)
    return accumulators


def _merge(left: list[Any], right: list[Any]) -> None:
    for a, b in zip(left, right):
        a.merge(b)


class _StopRun(Exception):
    """A progressive run failed and does not keep going."""


@dataclass
class _Retest:
    """One suite entry run again on fresh data, for its results that were
    unconfirmed or suspicious at ``start`` units: the next ``start`` units,
    ``[start, 2 start)``, read as a stream of its own (a fresh accumulator).
    It rides along the run's own reading while that passes through this
    process (``fed`` counts what it had); a block the run read elsewhere
    (on workers) is read again when due."""

    entry: int
    start: int
    accumulators: list[Any]
    #: (the progressive length's record, or None for the final results; the
    #: result's place in it; the result)
    results: list[tuple[dict[str, Any] | None, int, TestResult]]
    #: units fed along the run's own reading; -1 once part of the block was read elsewhere
    fed: int = 0

    @property
    def length(self) -> int:
        return self.start

    @property
    def end(self) -> int:
        return 2 * self.start


class RunLoop:
    """One run of a workload: pieces in this process or segments on workers,
    merged in stream order, judged at the end or at each progressive length."""

    def __init__(self, workload: Workload, plan: Plan, *, segment: int | None, workers: Any = None, threads: int = 1,
                 saver: Saver | None = None, resume: tuple[Progress, list[dict[str, Any]]] | None = None,
                 on_progress: Callable[[int], None] | None = None) -> None:
        self.workload = workload
        self.plan = plan
        self.workers = workers
        self.threads = threads
        self.saver = saver
        self.on_progress = on_progress
        self.merged = workload.build()
        self.progress = Progress()
        self.resumed_at: int | None = None
        if resume is not None:
            self.progress, states = resume
            self.resumed_at = self.progress.position
            if len(states) != len(self.merged):
                raise StateError(f"the saved state holds {len(states)} tests, the run {len(self.merged)}")
            for acc, state in zip(self.merged, states):
                _load(acc, state)
        size = workload.size()
        self.limit = plan.limit if size is None else size if plan.limit is None else min(plan.limit, size)
        from randqa.engine.run_mode import mode_of_run

        given = segment is not None
        if segment is None:  # the workload's default, which depends on the run's length and workers
            slots = workers.planned_slots if workers is not None and workers.wanted else None
            segment = segment_size(workload.alignment, None, default=default_segment(workload, self.limit, slots))
        self.segment = segment
        self.mode = mode_of_run(workload, self.limit, workers, threads, segment=segment, segment_given=given,
                                progressive=plan.progressive)
        self.threads = self.mode.threads
        #: whether the cluster's start was begun (the run's JSON then says why)
        self.cluster_begun = False
        #: a file shorter than asked: it ends at its size
        self.data_short = size is not None and plan.limit is not None and size < plan.limit
        self.final: list[TestResult] | None = None
        self._stopped_with: list[Any] | None = None
        #: entries being run again on the block after the length that made them suspicious
        self.retests: list[_Retest] = []
        self._start = time.perf_counter()
        self._last_save = time.monotonic()

    # -- judging ------------------------------------------------------------

    def elapsed(self) -> float:
        return self.progress.elapsed_s + time.perf_counter() - self._start

    def _record(self, position: int, accumulators: list[Any]) -> list[TestResult]:
        """Settle the retests that end at a progressive length and judge it,
        and stop the run at its first failure (unless it keeps going).  A
        retest that makes the first failure stops the run before this length
        is judged: the run's results are then the failing length's, whose
        own results have had their repeat (this length's would have none)."""
        repeated = self._settle_retests(position)
        if repeated and not self.plan.keep_going:
            self._stop_if_failed(position, True)
        entries = self.workload.judge_entries(accumulators)
        results = [r for group in entries for r in group]
        verdict = worst_verdict([r.verdict for r in results])
        record = {"bytes": position, "verdict": verdict, "elapsed_s": round(self.elapsed(), 6),
                  "tests": [r.to_json() for r in results]}
        self.progress.lengths.append(record)
        self.final = results
        failed = verdict == Verdict.FAIL or repeated
        self._schedule_retests(position, entries, record)
        self._stop_if_failed(position, failed)
        return results

    def _stop_if_failed(self, position: int, failed: bool) -> None:
        if failed and self.progress.first_failure is None:
            self.progress.first_failure = position
            if not self.plan.keep_going:
                raise _StopRun

    # -- retests --------------------------------------------------------------

    def _schedule_retests(self, position: int, entries: list[list[TestResult]], record: dict[str, Any] | None) -> None:
        """For each entry with results to retest (unconfirmed, suspicious), a
        fresh accumulator for the block ``[position, 2 position)``."""
        if not self.workload.thresholds.retests:
            return
        index = 0
        for entry, results in enumerate(entries):
            wanted = [(record, index + k, r) for k, r in enumerate(results) if r.needs_retest()]
            index += len(results)
            if not wanted or position <= 0:
                continue
            fresh = self.workload.fresh_entry(entry)
            if fresh is None:
                continue
            self.retests.append(_Retest(entry, position, [fresh], wanted))

    def _settle_retests(self, position: int) -> bool:
        """Settle the retests whose block ends at or before ``position``
        (reading the block again if the run read part of it elsewhere);
        True when one of them turned a result into a failure."""
        due = [r for r in self.retests if r.end <= position]
        failed = False
        for retest in due:
            self.retests.remove(retest)
            got: int | None = retest.fed
            if retest.fed != retest.length:
                retest.accumulators = [self.workload.fresh_entry(retest.entry)]
                got = self.workload.reread(retest.accumulators, retest.start, retest.length)
            failed = self._settle(retest, got) or failed
        return failed

    def _settle(self, retest: _Retest, got: int | None) -> bool:
        """Resolve a retest's results from what it read (``got`` units; None:
        the source cannot be read again); True when one of them now fails."""
        again: dict[str, TestResult] = {}
        if got == retest.length:
            for r in retest.accumulators[0].finalize():
                again.setdefault(r.name, r)
        missing = "the source cannot be read again" if got is None else "the data ended"
        failed = False
        for record, index, result in retest.results:
            resolve_retest(result, again.get(result.name), self.workload.thresholds, start=retest.start,
                           length=retest.length, missing=missing)
            failed = failed or result.verdict == Verdict.FAIL
            if record is not None:
                record["tests"][index] = result.to_json()
                record["verdict"] = worst_verdict([t["verdict"] for t in record["tests"]])
        return failed

    def _ride_along(self, segment: Any, start: int, end: int) -> None:
        """The retests whose block overlaps units ``[start, end)`` of a
        segment tested on a worker take that part from the data this process
        read for it (a producer's segment); where the worker opened the source
        itself there is no such data, and the block is read again when due."""
        for retest in self.retests:
            low, high = max(start, retest.start), min(end, retest.end)
            if retest.fed < 0 or low >= high:
                continue
            if segment.data is None or retest.start + retest.fed != low:
                retest.fed = -1
                continue
            piece = segment.data[low - segment.start:high - segment.start]
            for first in range(0, len(piece), CHUNK_BYTES):
                for acc in retest.accumulators:
                    acc.update(piece[first:first + CHUNK_BYTES])
            retest.fed += high - low

    def _read_on(self, position: int) -> None:
        """At the end of the run: the retests whose block goes past it read
        on from the source where the run stopped reading (or read their
        block again), and are settled."""
        pending, self.retests = self.retests, []
        along = [r for r in pending if r.fed == position - r.start]
        at, ended = position, False
        try:
            while not ended:
                going = [r for r in along if r.end > at]
                if not going:
                    break
                end = min(r.end for r in going)
                fed, interrupted = self.workload.feed([a for r in going for a in r.accumulators], at, end - at,
                                                      self.threads, None)
                if interrupted:
                    raise KeyboardInterrupt
                for r in going:
                    r.fed += fed
                ended = fed < end - at
                at += fed
        except (InputError, OSError):
            along = []  # the source cannot go on from here: each retest reads its block again, or says why not
        riding = {id(r) for r in along}
        for retest in pending:
            got: int | None = retest.fed
            if id(retest) not in riding or (retest.fed < retest.length and not ended):
                retest.accumulators = [self.workload.fresh_entry(retest.entry)]
                got = self.workload.reread(retest.accumulators, retest.start, retest.length)
            if self._settle(retest, got) and self.plan.progressive and self.progress.first_failure is None:
                self.progress.first_failure = retest.end

    def _points_after(self, position: int) -> list[int]:
        return [n for n in self.plan.lengths if n > position] if self.plan.progressive else []

    # -- saving -------------------------------------------------------------

    def _maybe_save(self, force: bool = False, accumulators: list[Any] | None = None) -> None:
        if self.saver is None:
            return
        if not force and time.monotonic() - self._last_save < self.saver.every_s:
            return
        saved = replace(self.progress, elapsed_s=round(self.elapsed(), 3), lengths=list(self.progress.lengths))
        self.saver.save(saved, accumulators if accumulators is not None else self.merged)
        self._last_save = time.monotonic()

    # -- pieces -------------------------------------------------------------

    def _next_boundary(self, position: int) -> int:
        end = (position // self.segment + 1) * self.segment
        points = self._points_after(position)
        if points:
            end = min(end, points[0])
        ends = [r.end for r in self.retests if r.end > position]
        if ends:
            end = min(end, min(ends))
        if self.limit is not None:
            end = min(end, self.limit)
        return end

    def _use_workers(self, position: int) -> bool:
        workers = self.workers
        if workers is None or not self.mode.cluster:
            return False
        if position < self.mode.start_at:
            return False  # short lengths, or the first segment of a stream of unknown length, first
        workers.start_in_background()
        self.cluster_begun = True
        if position % self.segment:
            return False  # first reach a segment boundary here
        return workers.ready  # until then, pieces are tested here

    def _in_process_piece(self, guard: InterruptGuard, position: int) -> int:
        count = self._next_boundary(position) - position
        # retests whose block this piece is part of ride along
        riders = [r for r in self.retests if r.start <= position < r.end and r.fed == position - r.start]
        guard.updating = False
        try:
            fed, interrupted = self.workload.feed(self.merged + [a for r in riders for a in r.accumulators],
                                                  position, count, self.threads, self.on_progress)
        finally:
            guard.updating = True
        for r in riders:
            r.fed += fed
        position += fed
        self.progress.position = position
        self.progress.in_process += fed
        if interrupted:
            raise KeyboardInterrupt
        if fed < count:
            self.progress.ended = True
            return position
        if self.plan.progressive and position in self.plan.lengths:
            self._record(position, self.merged)
        else:
            self._stop_if_failed(position, self._settle_retests(position))
        self._maybe_save()
        return position

    def _segments(self, guard: InterruptGuard, position: int) -> Iterator[Any]:
        from randqa.engine.parallel import Segment

        index = position // self.segment
        start = position
        while self.limit is None or start < self.limit:
            count = self.segment if self.limit is None else min(self.segment, self.limit - start)
            data = None
            if not self.workload.remote_open:
                guard.updating = False  # a slow pipe: Ctrl-C stops the read
                try:
                    data = self.workload.produce(start, count)
                finally:
                    guard.updating = True
                if len(data) == 0:
                    return
            short = data is not None and len(data) < count
            if short:
                count = len(data)
            snapshots = tuple(n for n in self._points_after(start) if n < start + count)
            yield Segment(index, start, count, snapshots, data)
            if short:
                return  # the data ended inside this segment
            index += 1
            start += count

    def _on_workers(self, guard: InterruptGuard, position: int) -> int:
        from randqa.engine.parallel import in_stream_order

        job = self.workload.job
        for segment, result in in_stream_order(self.workers, job, self._segments(guard, position),
                                               lambda: guard.pending):
            count = int(result["count"])
            along = segment.start  # the segment's units the retests have had
            for point in segment.snapshots:
                if point > segment.start + count:
                    break
                judged = copy_accumulators(job, self.merged)
                _merge(judged, loaded(job, segment.start, result["snapshots"][point]))
                self._ride_along(segment, along, point)
                along = point
                try:
                    self._record(point, judged)
                except _StopRun:
                    self.progress.position = point
                    self._stopped_with = judged
                    raise
            _merge(self.merged, loaded(job, segment.start, result["states"]))
            position = segment.start + count
            self.progress.position = position
            self.progress.segments += 1
            self._ride_along(segment, along, position)
            if self.on_progress:
                self.on_progress(count * self.workload.unit_bytes)
            if count < segment.count:
                self.progress.ended = True
                return position
            if self.plan.progressive and position in self.plan.lengths:
                self._record(position, self.merged)
            else:
                self._stop_if_failed(position, self._settle_retests(position))
            self._maybe_save()
            if guard.pending:
                raise KeyboardInterrupt
        if self.limit is None or position < self.limit:
            self.progress.ended = True  # the producer found the end of the data
        return position

    # -- the run --------------------------------------------------------------

    def run(self) -> Outcome:
        progress = self.progress
        interrupted = False
        with InterruptGuard() as guard:
            guard.updating = True  # outside reads, Ctrl-C waits until the merged state is consistent
            progress.sessions += 1
            try:
                if not progress.complete:
                    position = progress.position
                    while not progress.ended and (self.limit is None or position < self.limit):
                        if self._use_workers(position):
                            position = self._on_workers(guard, position)
                        else:
                            position = self._in_process_piece(guard, position)
                        if guard.pending:
                            raise KeyboardInterrupt
                    if self.data_short:
                        progress.ended = True
                    progress.tail_bits = self.workload.finish(self.merged, position)
                    self._finish_judging(position)
                    progress.complete = True
            except KeyboardInterrupt:
                interrupted = True
            except _StopRun:
                progress.complete = True
            interrupted = interrupted or guard.pending
            if self.workers is not None and not interrupted:
                self.workers.discard_start()  # the run ended before the cluster was needed: never wait for it
            if progress.position == 0 and progress.tail_bits == 0 and not interrupted:
                raise InputError(f"{self.workload.name}: no data (empty input)")
            lengths = list(progress.lengths)
            if interrupted:
                results = self._judge_interrupted(lengths)
            elif self._stopped_with is not None:
                results = self.final or []
            else:  # a finished run resumed has no final results yet: judged again
                results = self.final if self.final is not None else self.workload.judge(self.merged)
            if self.saver is not None:
                final_state = self._stopped_with if self._stopped_with is not None else self.merged
                self._maybe_save(force=True, accumulators=final_state)
        return Outcome(results=results, progress=progress, interrupted=interrupted, elapsed_s=self.elapsed(),
                       execution=self.execution(), lengths=lengths)

    def _finish_judging(self, position: int) -> None:
        if not self.plan.progressive:
            entries = self.workload.judge_entries(self.merged)
            self.final = [r for group in entries for r in group]
            self._schedule_retests(position, entries, None)
        else:
            lengths = self.progress.lengths
            if position and (not lengths or lengths[-1]["bytes"] != position):
                self._record(position, self.merged)  # the data ended between two lengths
        self._read_on(position)

    def _judge_interrupted(self, lengths: list[dict[str, Any]]) -> list[TestResult]:
        results = self.workload.judge(self.merged)
        position = self.progress.position
        if self.plan.progressive and position and (not lengths or lengths[-1]["bytes"] != position):
            verdict = worst_verdict([r.verdict for r in results])
            lengths.append({"bytes": position, "verdict": verdict, "elapsed_s": round(self.elapsed(), 6),
                            "tests": [r.to_json() for r in results]})
        return results

    def execution(self) -> dict[str, Any]:
        """How the run was executed, for its JSON: in this process (nothing
        was split), or on workers, with the segment size and how the source
        was split."""
        data: dict[str, Any]
        if self.progress.segments:
            data = self.workers.describe() if self.workers is not None else {"mode": "in-process"}
            data.update({
                "split": self.workload.split,
                f"segment_{self.workload.unit}": self.segment,
                "segments_on_workers": self.progress.segments,
                f"in_process_{self.workload.unit}": self.progress.in_process,
            })
        else:
            data = {"mode": "in-process"}
        if self.cluster_begun:  # a run that stayed in this process reads as before
            data.update(self.mode.to_json())
        if self.resumed_at is not None:
            data.update({"sessions": self.progress.sessions, f"resumed_at_{self.workload.unit}": self.resumed_at})
        return data


# --------------------------------------------------------------------------
# A stream through a suite, as a RunResult


@dataclass
class Progressive:
    """--progressive: judge at min, 2 min, ... max; stop at the first failure unless keep_going."""

    min_bytes: int
    max_bytes: int
    keep_going: bool = False


def run_stream(source: Source, suite: Suite, *, limit: int | None = None, progressive: Progressive | None = None,
               spec: str | None = None, fold: tuple[int, int] | None = None, segment: int | None = None,
               workers: Any = None, threads: int = 1, saver: Saver | None = None,
               resume: tuple[Progress, list[dict[str, Any]]] | None = None,
               on_progress: Callable[[int], None] | None = None, chunk_bytes: int = CHUNK_BYTES) -> RunResult:
    """Test ``source`` with ``suite``: ``limit`` units (bits for bit text;
    None: to the end of the data), or progressively.  With ``spec`` (what the
    user named: a file, a generator) workers may open the source themselves;
    ``workers`` (randqa.engine.parallel.Workers) takes the segments when it
    is wanted and the run is long enough."""
    from randqa.engine.run import UNTIL_END

    bit_text = source.unit_bits == 1
    if progressive is not None:
        lengths = doubling_lengths(progressive.min_bytes, progressive.max_bytes)
        last = None if progressive.max_bytes >= UNTIL_END else progressive.max_bytes
        plan = Plan(limit=last, progressive=True, lengths=lengths if last is not None else
                    tuple(n for n in lengths if n < UNTIL_END), keep_going=progressive.keep_going)
    else:
        plan = Plan(limit=None if limit is None else limit // 8 if bit_text else limit)
    workload = StreamWorkload(source, suite, spec=spec, fold=fold, limit_bits=limit if bit_text else None,
                              chunk_bytes=chunk_bytes)
    if segment is not None:
        segment = segment_size(workload.alignment, segment)
    loop = RunLoop(workload, plan, segment=segment, workers=workers, threads=threads, saver=saver, resume=resume,
                   on_progress=on_progress)
    outcome = loop.run()
    progress = outcome.progress
    bits = 8 * progress.position + progress.tail_bits
    if progressive is not None:
        requested = plan.limit
        ended_early = progress.ended and requested is not None and not outcome.interrupted
    else:
        requested = limit
        units = bits if bit_text else progress.position
        ended_early = limit is not None and units < limit and not outcome.interrupted
    result = RunResult(
        source=source.describe(),
        suite=suite.name,
        results=outcome.results,
        bytes_tested=progress.position,
        bits_tested=bits,
        elapsed_s=outcome.elapsed_s,
        requested=requested,
        unit="bits" if bit_text else "bytes",
        input_ended_early=ended_early,
        interrupted=outcome.interrupted,
        thresholds=suite.thresholds,
    )
    if progressive is not None:
        result.extra.update({"progressive": {"min_bytes": progressive.min_bytes, "max_bytes": progressive.max_bytes,
                                             "keep_going": progressive.keep_going},
                             "lengths": outcome.lengths, "first_failure_bytes": progress.first_failure})
    result.extra["execution"] = outcome.execution
    return result
