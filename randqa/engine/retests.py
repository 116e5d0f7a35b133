"""Retests: a suite entry whose results were unconfirmed or suspicious at a
length is run again on the block that follows, read as a stream of its own,
and its results are settled from both readings (randqa.results.resolve_retest).

``Retests`` is the run loop's part that schedules, feeds and settles them;
randqa.engine.loop.RunLoop is built on it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from randqa.engine.feeding import ArrayReader
from randqa.errors import InputError
from randqa.results import TestResult, Verdict, resolve_retest, worst_verdict


@dataclass
class Retest:
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


class Retests:
    """The retests of a run loop (``RunLoop``), which provides the workload,
    the plan, the record of how far it got and the threads."""

    retests: list[Retest]
    workload: Any
    plan: Any
    progress: Any
    threads: int


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
            self.retests.append(Retest(entry, position, [fresh], wanted))

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

    def _settle(self, retest: Retest, got: int | None) -> bool:
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
            piece = ArrayReader(segment.data[low - segment.start:high - segment.start])
            retest.fed += piece.feed(retest.accumulators, high - low).units

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
                fed = self.workload.feed([a for r in going for a in r.accumulators], at, end - at, self.threads, None)
                if fed.interrupted:
                    raise KeyboardInterrupt
                for r in going:
                    r.fed += fed.units
                ended = fed.units < end - at
                at += fed.units
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
