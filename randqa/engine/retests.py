"""Retests: a suite entry whose results were unconfirmed or suspicious at a
length is run again on the block that follows, read as a stream of its own,
and its results are settled from both readings (randqa.results.resolve_retest).
A retest whose block was too short for the test's law to hold reads on,
doubling its block up to MAX_RETEST_FACTOR times the length, while there is
fresh data; a result no fresh data could repeat fails only below the
thresholds' ``fail_unrepeated`` (randqa.results.settle_unrepeated).  A block
cut short (the data ended, or the run was stopped, part-way through it) is
judged on what it had: it can confirm a failure, and one it does not repeat
is settled as one with no fresh data.

``Retests`` is the run loop's part that schedules, feeds and settles them;
randqa.engine.loop.RunLoop is built on it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from randqa.engine.feeding import ArrayReader
from randqa.errors import InputError
from randqa.results import (FAILING, MAX_RETEST_FACTOR, TestResult, Verdict, resolve_retest, settle_unrepeated,
                            worst_verdict)


#: why a stopped run's results had no (more) fresh data
STOPPED = "the run was stopped"


def _record_settled(record: dict[str, Any] | None, index: int, result: TestResult) -> None:
    """Write a settled result into its length's progressive record, if it has one, and that length's verdict."""
    if record is not None:
        record["tests"][index] = result.to_json()
        record["verdict"] = worst_verdict([t["verdict"] for t in record["tests"]])


@dataclass
class Retest:
    """One suite entry run again on fresh data, for its results that were
    unconfirmed or suspicious at ``start`` units: the next ``start`` units,
    ``[start, 2 start)``, read as a stream of its own (a fresh accumulator),
    or more when that was too little for the test (``length``).  It rides
    along the run's own reading while that passes through this process
    (``fed`` counts what it had); a block the run read elsewhere (on
    workers) is read again when due."""

    entry: int
    start: int
    accumulators: list[Any]
    #: (the progressive length's record, or None for the final results; the
    #: result's place in it; the result)
    results: list[tuple[dict[str, Any] | None, int, TestResult]]
    #: units fed along the run's own reading; -1 once part of the block was read elsewhere
    fed: int = 0
    #: units of the block: ``start`` at first, doubled while the test has too little
    length: int = 0

    def __post_init__(self) -> None:
        self.length = self.length or self.start

    @property
    def end(self) -> int:
        return self.start + self.length

    def read_on(self) -> bool:
        """Double the block when it gave a test too little data (False: it is as long as a retest reads)."""
        if self.length * 2 > MAX_RETEST_FACTOR * self.start:
            return False
        self.length *= 2
        return True


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
            if fresh is None:  # this workload's results are not retested: none has fresh data
                for record_, place, result in wanted:
                    settle_unrepeated(result, self.workload.thresholds)
                    _record_settled(record_, place, result)
                continue
            self.retests.append(Retest(entry, position, [fresh], wanted))

    def _settle_retests(self, position: int) -> bool:
        """Settle the retests whose block ends at or before ``position``
        (reading the block again if the run read part of it elsewhere), or
        let those short of data read on; True when one of them turned a
        result into a failure."""
        due = [r for r in self.retests if r.end <= position]
        failed = False
        for retest in due:
            self.retests.remove(retest)
            failed = self._settle_or_read_on(retest, self._block_read(retest)) or failed
        return failed

    def _settle_interrupted(self) -> bool:
        """At an interruption: settle each retest that rode along with the
        run's reading on the part of its block it had read, if that gives its
        test a result (fresh data all the same, and where it stops does not
        depend on it); True when one of them turned a result into a failure."""
        if not self.plan.progressive:  # a plain run's retests read past its end: an interrupted one is judged anew
            return False
        failed = False
        for retest in list(self.retests):
            self.retests.remove(retest)
            # one that read nothing along the run (or read elsewhere) has no fresh data
            if self._settle(retest, max(retest.fed, 0), missing=STOPPED):
                self._note_first_failure(retest)
                failed = True
        return failed

    def _block_read(self, retest: Retest) -> int | None:
        """The units of its block a due retest had: along the run's reading,
        or read again now (None: the source cannot be read again)."""
        if retest.fed == retest.length:
            return retest.fed
        retest.accumulators = [self.workload.fresh_entry(retest.entry)]
        got = self.workload.reread(retest.accumulators, retest.start, retest.length)
        retest.fed = -1 if got is None else got
        return got

    def _settle_or_read_on(self, retest: Retest, got: int | None) -> bool:
        """Settle a due retest that read ``got`` units, unless its whole
        block gave a test too little data and it may read on: then it goes
        back to the pending retests with a longer block.  True when one of
        its results now fails."""
        if got == retest.length and self._short_of_data(retest) and retest.read_on():
            self.retests.append(retest)
            return False
        return self._settle(retest, got)

    @staticmethod
    def _short_of_data(retest: Retest) -> bool:
        """Whether a result the retest is for got no verdict from its block (too little data)."""
        again = {r.name: r for r in reversed(retest.accumulators[0].finalize())}
        for _record, _index, result in retest.results:
            found = again.get(result.name)
            if found is None or found.pvalue is None or found.verdict == Verdict.INSUFFICIENT or (
                    found.verdict is None and found.needs is not None):
                return True
        return False

    def _settle(self, retest: Retest, got: int | None, missing: str | None = None) -> bool:
        """Resolve a retest's results from what it read (``got`` units; None:
        the source cannot be read again; ``missing`` says why there were no
        more); True when one of them now fails (a repeat, or a failure no
        fresh data could repeat, below ``fail_unrepeated``)."""
        again: dict[str, TestResult] = {}
        cut_short = got is not None and 0 < got < retest.length
        if got:
            retest.length = got  # a block cut short is judged on what it had: fresh data all the same
            for r in retest.accumulators[0].finalize():
                again.setdefault(r.name, r)
        missing = missing or ("the source cannot be read again" if got is None else "the data ended")
        failed = False
        thresholds = self.workload.thresholds
        for record, index, result in retest.results:
            resolve_retest(result, again.get(result.name), thresholds, start=retest.start,
                           length=retest.length, missing=missing, cut_short=cut_short)  # settles it
            failed = failed or result.verdict in FAILING
            _record_settled(record, index, result)
        if failed:
            self._failed_at(retest)
        return failed

    def _failed_at(self, retest: Retest) -> None:
        """A progressive run whose failure is one of an earlier length's
        results (a retest that read on, or had no fresh data at the end)
        reports that length's results, as a run stopped at its first failure
        does: they are not dropped for the later lengths'."""
        if not self.plan.progressive or self.plan.keep_going:
            return
        record = retest.results[0][0]
        final = getattr(self, "final", None)
        if record is None or (final is not None and any(r is result for r in final for _, _, result in retest.results)):
            return
        self.final = [TestResult.from_json(t) for t in record["tests"]]

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
        block again), and are settled; those short of data read on again,
        while the data lasts."""
        at, ended = position, False
        while self.retests:
            pending, self.retests = self.retests, []
            along = [r for r in pending if r.fed == at - r.start]
            try:
                while not ended:
                    going = [r for r in along if r.end > at]
                    if not going:
                        break
                    end = min(r.end for r in going)
                    fed = self.workload.feed([a for r in going for a in r.accumulators], at, end - at, self.threads,
                                             None)
                    if fed.interrupted:
                        raise KeyboardInterrupt
                    for r in going:
                        r.fed += fed.units
                    ended = fed.units < end - at
                    at += fed.units
            except (InputError, OSError):
                along, ended = [], True  # the source cannot go on from here: each retest reads its block again
            riding = {id(r) for r in along}
            for retest in pending:
                if id(retest) in riding and (retest.fed == retest.length or ended):
                    got: int | None = retest.fed
                else:
                    got = self._block_read(retest)
                if self._settle_or_read_on(retest, got):
                    self._note_first_failure(retest)

    def _note_first_failure(self, retest: Retest) -> None:
        """A progressive run's first failure, when it is this settled
        retest's: its length when the failure stands unrepeated, else the end
        of the block that repeated it (the bytes read to establish it)."""
        if self.plan.progressive and self.progress.first_failure is None:
            unrepeated = any(result.verdict == Verdict.UNCONFIRMED for _, _, result in retest.results)
            self.progress.first_failure = retest.start if unrepeated else retest.end
