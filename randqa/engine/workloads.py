"""What a run tests, seen from this process: a ``Workload`` feeds pieces
here, produces segments for workers, judges and retests."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Callable

import numpy as np

from randqa.battery.suites import Suite
from randqa.engine.feeding import CHUNK_BYTES, Fed, SourceReader, feed
from randqa.engine.jobs import SegmentJob, StreamJob
from randqa.engine.judging import judge, judge_entries
from randqa.engine.run_mode import suite_seconds_per_byte
from randqa.engine.segment_policy import suite_alignment
from randqa.errors import InputError
from randqa.results import TestResult, Thresholds
from randqa.sources import Source, open_source, read_full
from randqa.sources.base import ReadInterrupted


class ProducedInterrupted(KeyboardInterrupt):
    """A stop signal while ``Workload.produce`` read a segment: ``data`` is
    what had arrived, to be tested like the rest."""

    def __init__(self, data: np.ndarray) -> None:
        super().__init__(len(data))
        self.data = data


class Workload(ABC):
    """What a run tests, seen from this process."""

    #: how segments are produced: the source's split_method, or "seeds"
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
             on_progress: Callable[[int], None] | None) -> Fed:
        """Feed units ``[start, start + count)`` here."""

    def produce(self, start: int, count: int) -> np.ndarray:
        """Read units ``[start, start + count)`` for a worker (sequential
        sources); a stop signal raises ``ProducedInterrupted`` with what had arrived."""
        raise NotImplementedError

    def finish(self, accumulators: list[Any], position: int) -> int:
        """At the end of the run: feed what follows the last whole unit (bit
        text's final 1-7 bits, fed nowhere else); how many bits that was."""
        return 0

    def size(self) -> int | None:
        """Units the data holds, when known before reading it (a file)."""
        return None

    def seconds_per_byte(self) -> float | None:
        """CPU-seconds per unit of its tests in one process and thread, what
        the run mode weighs; None when not measured (a seed sweep's seeds)."""
        return None

    def state_bytes(self) -> int:
        """Bytes its tests' state holds (what travels with every segment), as they state it."""
        return 0

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

    def head(self, position: int) -> dict[str, Any] | None:
        """What identifies the data of a stream that cannot be opened again
        (stdin): the SHA-256 of its first ``min(HEAD_BYTES, position)``
        bytes, saved with a checkpoint; None for anything else."""
        return None

    def expect_head(self, head: dict[str, Any] | None) -> None:
        """A resumed run's stream must begin as ``head`` (a checkpoint's
        record of ``head``) says: checked when it is read up to where the run goes on."""

    def close(self) -> None:
        pass


#: bytes of a stream that cannot be opened again that a checkpoint identifies
#: it by, as a file is by its first MiB (randqa.engine.request.IDENTITY_BYTES)
HEAD_BYTES = 1 << 20


class _HeadKeeper:
    """Keeps the first ``HEAD_BYTES`` of a stream, fed as an accumulator is
    (in order, a chunk at a time) or given what a producer or a skip read."""

    def __init__(self) -> None:
        self.kept = bytearray()
        self.position = 0

    def at(self, position: int) -> "_HeadKeeper":
        self.position = position
        return self

    def update(self, chunk: np.ndarray) -> None:
        if self.position == len(self.kept) < HEAD_BYTES:
            self.kept += memoryview(chunk)[:HEAD_BYTES - self.position]
        self.position += len(chunk)

    def update_tasks(self, chunk: np.ndarray, parts: int) -> list[Callable[[], None]]:
        return [lambda: self.update(chunk)]

    def record(self, position: int) -> dict[str, Any] | None:
        """The head's record at ``position``: its length and SHA-256 (None: not all of it was kept)."""
        import hashlib

        length = min(HEAD_BYTES, position)
        if len(self.kept) < length:
            return None
        return {"bytes": length, "sha256": hashlib.sha256(self.kept[:length]).hexdigest()}


class StreamWorkload(Workload):
    """A byte stream (stdin, a file, a generator, a folded one) through a suite.

    ``source`` is read here for in-process pieces and as the producer of a
    sequential stream; ``spec`` (the name the user gave) lets workers open
    it themselves.  Without a spec the stream is treated as sequential.
    """

    def __init__(self, source: Source, suite: Suite, *, spec: str | None = None,
                 fold: tuple[int, int] | None = None, limit_bits: int | None = None,
                 chunk_bytes: int = CHUNK_BYTES) -> None:
        self.source = source
        self.name = source.name
        self.suite = suite
        self.fold = fold
        self.spec = spec
        self.unit_bits = source.unit_bits
        #: bit text: the run's limit in bits, for the final 1-7 bits
        self.limit_bits = limit_bits
        self.chunk_bytes = chunk_bytes
        self.split = source.split_method if spec is not None else "sequential"
        streams = source.layout.to_json() if source.layout is not None else None
        self.job = StreamJob(suite, spec if self.split != "sequential" else None, source.seed, fold, streams)
        self.alignment = suite_alignment(suite, fold)
        self._consumed: int | None = 0  # stream position of ``source``; None when unknown
        #: a stream that cannot be opened again (stdin, a pipe): its first bytes, what a checkpoint knows it by
        self._head = _HeadKeeper() if self.split == "sequential" and not source.endless and self.unit_bits == 8 \
            else None
        #: a resumed run's saved head record, checked once the stream is read up to where the run goes on
        self._expected_head: dict[str, Any] | None = None

    def _at(self, start: int) -> None:
        """Put the local source at unit ``start``."""
        if self._consumed == start:
            return
        if self.remote_open and self.spec is not None:
            from randqa.sources.segments import open_at

            # no length: this opening reads on to the run's end (a file's pread would stop at ``length``)
            job = self.job
            opened = open_at(self.spec, job.seed, start, length=None, streams=job.streams, fold=job.fold)
            self.source.close()
            self.source = opened
        elif self._consumed is not None and self._consumed < start:
            # a sequential stream: read up to the position and drop it (stdin: the same data again)
            scratch = np.empty(min(CHUNK_BYTES, start - self._consumed), dtype=np.uint8)
            while self._consumed < start:
                want = min(len(scratch), start - self._consumed)
                got = read_full(self.source, memoryview(scratch)[:want])
                self._keep_head(self._consumed, scratch[:got])
                self._consumed += got
                if got < want:
                    raise InputError(f"{self.source.name}: the data ended after {self._consumed} bytes, "
                                     f"before the {start} already tested")
            self._check_head(start)
        else:
            raise InputError(f"{self.source.name}: cannot go back to byte {start} of a stream read in order")
        self._consumed = start

    def feed(self, accumulators: list[Any], start: int, count: int, threads: int,
             on_progress: Callable[[int], None] | None) -> Fed:
        self._at(start)
        keeper = [self._head.at(start)] if self._head is not None and start < HEAD_BYTES else []
        fed = feed(self.source, accumulators + keeper, limit=count * 8 // self.unit_bits, jobs=threads,
                   chunk_bytes=self.chunk_bytes, on_progress=on_progress)
        self._consumed = None if fed.interrupted else start + fed.units
        return fed

    def produce(self, start: int, count: int) -> np.ndarray:
        self._at(start)
        self._consumed = None  # until the read completes: Ctrl-C may stop it midway
        buffer = np.empty(count, dtype=np.uint8)
        try:
            got = read_full(self.source, memoryview(buffer))
        except ReadInterrupted as stop:
            self._keep_head(start, buffer[:stop.filled])
            self._consumed = start + stop.filled
            raise ProducedInterrupted(buffer[:stop.filled]) from None
        self._keep_head(start, buffer[:got])
        self._consumed = start + got
        return buffer[:got]

    def _keep_head(self, start: int, data: np.ndarray) -> None:
        if self._head is not None and start < HEAD_BYTES:
            self._head.at(start).update(data)

    def head(self, position: int) -> dict[str, Any] | None:
        return self._head.record(position) if self._head is not None else None

    def expect_head(self, head: dict[str, Any] | None) -> None:
        self._expected_head = head

    def _check_head(self, position: int) -> None:
        """Refuse a resumed stream whose first bytes are not those the checkpoint tested."""
        expected, self._expected_head = self._expected_head, None
        if expected is None or self._head is None:
            return
        if self._head.record(expected["bytes"]) != expected:
            raise InputError(f"{self.source.name}: not the stream the checkpoint tested (its first "
                             f"{expected['bytes']:,} bytes differ); resume it with the same data")

    def finish(self, accumulators: list[Any], position: int) -> int:
        if self.unit_bits != 1:
            return 0
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
        return self.source.size if self.split == "pread" else None

    def seconds_per_byte(self) -> float | None:
        return suite_seconds_per_byte(self.suite) if self.unit == "bytes" else None

    def state_bytes(self) -> int:
        return sum(spec.memory_need(self.chunk_bytes).held for spec in self.suite.tests)

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
                return reader.feed(accumulators, count).units
        if not self.source.endless:
            return None  # stdin: what was read is gone
        # a generator that only runs forward: open it again and read up to the block
        with SourceReader(open_source(self.spec, seed=self.source.seed, fold=self.fold)) as reader:
            skipped = reader.feed([], start).units
            return reader.feed(accumulators, count).units if skipped == start else 0

    def close(self) -> None:
        self.source.close()
