"""Gaps from a zero 16-bit word, in the manner of gjrand's rda16.

Sources: G. Jones, gjrand (gjrand.sourceforge.net), its ``rda16`` test
("repeat distance analysis" of 16-bit words); A. L. Voskov, SmokeRand
(github.com/alvoskov/SmokeRand), its ``gap16_count0`` test and
docs/tests.md, "Gap test with 16-bit words", whose "[0 ... value] gaps
with value inside" are counted here; D. E. Knuth, TAOCP vol. 2, 3.3.2 B
(the gap test).

The stream is read as 16-bit little-endian words.  For every non-zero word
x at index n that follows a zero word, let D = n minus the index of the
latest zero word (a gap [0, ..., x] of D - 1 words between them) and
I = 1 when x occurred among those D - 1 words.  For each D from 2 to
``max_distance`` - 1, T_D counts the words at distance D and S_D those with
I = 1.

Why it bites: an additive lagged Fibonacci generator x_n = x_(n-r) +
x_(n-s) (mod 2^16 in its low words, with a carry in the others) repeats
x_(n-s) at n whenever x_(n-r) = 0, so a word at distance D = r from a zero
has occurred since with probability near 1, against 1 - e^(-r/65535) (0.7
for r = 79,748, the lag 19937 of 64-bit outputs read as four 16-bit words
each); subtract-with-borrow generators do the same when the borrow is 0.
Neither needs its lowest bit to be linear, which Berlekamp-Massey would see.

Law, exactly: given which words are zero, the others are independent and
uniform on the 65,535 non-zero values; the words at distance D lie in
different gaps (one per zero followed by D - 1 non-zero words), and
x_n is independent of the D - 1 words before it, so
S_D ~ Binomial(T_D, q_D), q_D = 1 - (1 - 1/65535)^(D-1), exactly, for
each D (SmokeRand's and gjrand's statistics pool overlapping gaps, whose
counts are not independent).  The bins are not independent of each other,
so the result is the smallest tail probability of any bin, either tail,
times the number of tails looked at (Bonferroni): a p-value that a good
generator falls below with probability at most its value, never more.

Parameters:
  max_distance  the distances D counted are below it (default 2^18:
                lags up to about 65,000 64-bit outputs)
Needs a zero word (one in 65,536) followed by at least two non-zero words.
Memory: 24 bytes per distance (the counts and a part's words before its
first zero, which the part ahead of it counts), 512 KiB for the latest
index of each value.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from randqa.battery import _counts
from randqa.battery._blocks import WholeBlockTest
from randqa.battery.base import OBJECT_BYTES, MemoryNeed, Range
from randqa.results import TestResult, insufficient

#: non-zero 16-bit values
NONZERO = 65535


def occurred_probability(distance: np.ndarray) -> np.ndarray:
    """q_D = 1 - (1 - 1/65535)^(D-1): a uniform non-zero word equals one of D - 1 others."""
    return -np.expm1((distance - 1) * math.log1p(-1 / NONZERO))


class Gap16(WholeBlockTest):
    name = "gap16"
    parameter_ranges: ClassVar[dict[str, Range]] = {"max_distance": Range(64, 1 << 22)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        bins = cls.with_defaults(params)["max_distance"]
        # the counts, the words before the first zero, the latest index of
        # each value; at finalize the probabilities and tails of every distance
        return MemoryNeed(3 * 8 * bins + 8 * 65536 + 64 + OBJECT_BYTES, 8 * 8 * bins)

    def __init__(self, *, max_distance: int = 1 << 18) -> None:
        if not (isinstance(max_distance, int) and max_distance >= 64):
            raise ValueError(f"max_distance must be an integer >= 64, not {max_distance!r}")
        super().__init__(2)
        self.max_distance = max_distance
        self.cursor = np.array([0, -1, 0], dtype=np.int64)  # next word's index, the latest zero's, words in head
        self.last_seen = np.full(65536, -1, dtype=np.int64)
        self.head = np.zeros(max_distance, dtype=np.int64)
        self.total = np.zeros(max_distance, dtype=np.int64)
        self.inside = np.zeros(max_distance, dtype=np.int64)

    def _begin_at(self, position: int) -> None:
        self.cursor[0] = position // 2

    def _scan(self, run: np.ndarray) -> None:
        _counts.zero_gap_scan(run, self.cursor, self.last_seen, self.head, self.total, self.inside)

    def _add_counts(self, other: "Gap16") -> None:
        # the right part's words before its first zero are counted from this part's latest zero
        waiting = other.head[: other.cursor[2]].astype("<u2")
        _counts.zero_gap_scan(waiting, self.cursor, self.last_seen, self.head, self.total, self.inside)
        self.total += other.total
        self.inside += other.inside
        np.maximum(self.last_seen, other.last_seen, out=self.last_seen)
        if other.cursor[1] >= 0:
            self.cursor[1] = other.cursor[1]
        self.cursor[0] = other.cursor[0]

    def finalize(self) -> list[TestResult]:
        distance = np.arange(self.max_distance)
        looked = np.flatnonzero((self.total > 0) & (distance >= 2))
        if len(looked) == 0:
            return [insufficient(self.name, "a zero 16-bit word followed by two non-zero ones (about 128 KiB)")]
        from scipy.special import bdtr, bdtrc

        total, inside = self.total[looked], self.inside[looked]
        q = occurred_probability(looked.astype(np.float64))
        upper = np.where(inside > 0, bdtrc(np.maximum(inside - 1, 0), total, q), 1.0)  # P(S >= s)
        lower = bdtr(inside, total, q)  # P(S <= s)
        smallest = np.minimum(upper, lower)
        at = int(np.argmin(smallest))
        tails = 2 * len(looked)
        expected = total[at] * q[at]
        return [TestResult(
            name=self.name,
            statistic=float((inside[at] - expected) / math.sqrt(max(expected * (1 - q[at]), 1e-300))),
            pvalue=float(min(1.0, tails * smallest[at])), pvalue_kind="bound",
            details={"distance": int(looked[at]), "words": int(total[at]), "occurred": int(inside[at]),
                     "expected": float(expected), "bin_p_value": float(smallest[at]), "tails": tails,
                     "gaps": int(self.total.sum())})]
