"""How a suite lets several entries finalise from one statistic
(randqa/battery/_shared.py), from outside the tests.

A test that can finalise from a statistic says so as data: its class's
``reads`` names the statistic and the parameter values under which its
counts are that statistic's (``Reads(ByteCounts, bits=8)``).  It counts as
any test does (``_update``, ``_merge``) and in ``finalize`` reads
``_statistic()`` when ``shared`` is set; the ``SharesStatistic`` base
does the rest: while the test shares, ``update`` and ``merge`` go to the
statistic instead of the test's counts, and only what the test keeps
itself (``_merge_kept``: the final 1-7 bits of a bit stream, say) is merged.

``share_statistics`` (called by ``Suite.build``) wires the entries of one
suite: statistics with equal ``key`` are the same counts, and one statistic
may hold another's (``covers``: P holds ByteCounts), so every entry that
can finalise from the broadest statistic any of them reads shares that
one.  A folded entry reads its inner test's statistic of the folded stream
(``FoldedStatistic``), so entries with the same folding share the folding
as well as the counts.  Where two or more entries share a statistic, the
first of them in suite order is its **owner**: its ``update`` feeds the
statistic and its ``merge`` merges it.  Every other member only counts its
bytes (and keeps what it alone reads) and finalises from the owner's
statistic.  An entry that shares with no other, or a test built alone,
counts on its own.

So the order of results, ``--jobs`` (each accumulator's update is still one
task; a member's does not read the statistic) and merging stay as they
were, provided a suite's accumulators travel together: merge two suites'
lists element by element, and pickle (checkpoint, send to a worker) the
list as one object, which keeps the members pointing at one statistic.  A
member whose statistic has not seen the bytes the member has (a list pulled
apart and merged piecewise) refuses to finalise rather than report counts of
other bytes.
"""

from __future__ import annotations

from typing import Any, ClassVar, Hashable

import numpy as np

from randqa.battery._shared import ByteCounts, SharedStatistic
from randqa.battery.base import OBJECT_BYTES, Accumulator, MemoryNeed, Range


class SharedStatisticMismatch(RuntimeError):
    """A test and the shared statistic it reads have seen different bytes:
    the list was not kept together, or a saved state was changed."""


class Reads:
    """A statistic class a test can finalise from, when every attribute
    named in ``when`` has the value given (no condition: always)."""

    def __init__(self, statistic: type[SharedStatistic], **when: Any) -> None:
        self.statistic = statistic
        self.when = when

    def statistic_for(self, test: Accumulator) -> SharedStatistic | None:
        """A fresh statistic ``test`` can finalise from, or None for its parameters."""
        return self.statistic() if all(getattr(test, k) == v for k, v in self.when.items()) else None


class SharesStatistic(Accumulator):
    """Base (or first base, before another Accumulator base) of a test that
    declares ``reads``: it counts on its own until a suite gives it a
    statistic (``use_shared_statistic``), then finalises from that."""

    #: the statistic this test can finalise from
    reads: ClassVar[Reads]
    #: the statistic this test finalises from, when it shares one
    shared: SharedStatistic | None = None
    _feeds_shared = False
    _checks_shared = True
    #: the test's own counts, which stay empty while it shares a statistic
    _own_counts: tuple[str, ...] = ()

    def declared_statistic(self) -> SharedStatistic | None:
        """A fresh statistic this test can finalise from, or None."""
        return self.reads.statistic_for(self)

    def use_shared_statistic(self, statistic: SharedStatistic, *, owner: bool, sees_stream: bool = True) -> None:
        """Finalise from ``statistic``; the ``owner`` also feeds and merges it.

        ``sees_stream`` False is for a test that is not fed the stream
        itself (the inner test of a folded entry), whose byte count is not
        compared with the statistic's.
        """
        declared = self.declared_statistic()
        if declared is None or not statistic.covers(declared):
            raise ValueError(f"{self!r} cannot finalise from statistic {statistic.key!r}")
        if self.bytes_seen:
            raise ValueError(f"{self!r} has counted bytes already: only a fresh accumulator can share a statistic")
        self.shared, self._feeds_shared, self._checks_shared = statistic, owner, sees_stream

    def _state_saved_elsewhere(self) -> tuple[str, ...]:
        """A shared statistic is saved and loaded with its owner's state
        (randqa/battery/_state.py), so it travels once per suite; the
        test's own counts, unused while it shares one, are not saved."""
        own = self._own_counts if self.shared is not None else ()
        return own if self._feeds_shared else ("shared", *own)

    def update(self, chunk: np.ndarray) -> None:
        if self.shared is None:
            super().update(chunk)
        elif len(chunk):
            if self._feeds_shared:
                self.shared.update(chunk)
            self.bytes_seen += len(chunk)

    def merge(self, other: Accumulator) -> None:
        if self.shared is None and getattr(other, "shared", None) is None:
            super().merge(other)
            return
        self._check_mergeable(other)
        assert isinstance(other, SharesStatistic)
        if (self.shared is None) != (other.shared is None) or self._feeds_shared != other._feeds_shared:
            raise ValueError(f"cannot merge {other!r} into {self!r}: one shares a statistic the other does not")
        if self._feeds_shared:
            self.shared.merge(other.shared)
        self._merge_kept(other)
        self.bytes_seen += other.bytes_seen

    def _merge_kept(self, other: Any) -> None:
        """While sharing: merge what this test keeps itself (nothing, by default)."""

    def _statistic(self) -> Any:
        """The shared statistic, checked to cover the bytes this test has seen."""
        statistic = self.shared
        assert statistic is not None
        if self._checks_shared and statistic.bytes_seen != self.bytes_seen:
            raise SharedStatisticMismatch(
                f"{self!r} saw {self.bytes_seen} bytes but its shared statistic {statistic.bytes_seen}: "
                "a suite's accumulators must be updated, merged and pickled together, as one list"
            )
        return statistic


def declared_statistic(accumulator: Accumulator) -> SharedStatistic | None:
    """A fresh statistic ``accumulator`` can finalise from; None for a test that reads none."""
    return accumulator.declared_statistic() if isinstance(accumulator, SharesStatistic) else None


class BitTotalsTest(SharesStatistic):
    """Base of the tests that keep running totals of the stream's bits
    (frequency, runs): a few integers, counted by the test itself or
    finalised from the shared ``ByteCounts``, while the final 1-7 bits of a
    bit stream stay the test's own.  Their p-value is the exact binomial
    tail (``pvalues = "exact"``) or NIST SP 800-22's formula (``"sts"``,
    which the nist-sp800-22 suite names)."""

    parameter_ranges: ClassVar[dict[str, Range]] = {"pvalues": Range(3, 5, text=True)}
    reads = Reads(ByteCounts)

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        return MemoryNeed(OBJECT_BYTES, 0)

    def __init__(self, *, pvalues: str = "exact") -> None:
        if pvalues not in ("exact", "sts"):
            raise ValueError(f"pvalues must be 'exact' or 'sts', not {pvalues!r}")
        super().__init__()
        self.pvalues = pvalues
        # when sharing the byte counts: the final 1-7 bits of a bit stream only
        self.bits = 0
        self.ones = 0

    def _merge_kept(self, other: Any) -> None:
        self._merge(other)


def share_statistics(accumulators: list[Accumulator]) -> None:
    """Let the entries of one suite whose declared statistics one statistic
    covers share the broadest of them: the first of those entries feeds it,
    all finalise from it (see the module doc).  An entry that would share
    with no other is left as it is."""
    declared = [(acc, declared_statistic(acc)) for acc in accumulators]
    readers = [(acc, statistic) for acc, statistic in declared if statistic is not None]
    groups: dict[Hashable, tuple[SharedStatistic, list[SharesStatistic]]] = {}
    for acc, statistic in readers:
        covering = [other for _, other in readers if other.covers(statistic)]
        # the one that covers every other covering statistic (itself when they do not nest)
        broadest = next((c for c in covering if all(c.covers(d) for d in covering)), statistic)
        groups.setdefault(broadest.key, (broadest, []))[1].append(acc)  # type: ignore[arg-type]
    for statistic, members in groups.values():
        if len(members) < 2:
            continue
        for position, acc in enumerate(members):
            acc.use_shared_statistic(statistic, owner=position == 0)
