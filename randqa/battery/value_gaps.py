"""Gaps between repeats of each 16-bit value, in the manner of PractRand's Gap-16.

Sources: C. Doty-Humphrey, PractRand 0.94, doc/Tests_engines.txt, "Gap16 -
a variation on the classic Gap test" (for every 16-bit word, the distance
back to the latest word of the same value, binned, judged against the
geometric law: its part A on bins of at least 40 expected, its part B on
bins of about the square root of the number of words each); D. E. Knuth,
TAOCP vol. 2, 3.3.2 B (the gap test); J.-S. Coron and D. Naccache, "An
accurate evaluation of Maurer's universal test", SAC 1998 (the distances of
all values at once are dependent; here their covariance is worked out).

The stream is read as little-endian 16-bit words x_0, x_1, ...  For the
word at index n, D_n = n - max{m < n : x_m = x_n} (D_n > n if the value has
not occurred).  The first ``max_gap`` = G words are a warm-up; from index G
on every word adds 1 to the count of min(D_n, G).  For uniform independent
words each D_n is geometric, exactly: P(D = d) = p q^(d-1), d < G, and
P(D >= G) = q^(G-1), p = 1/65536, q = 1 - p.  The counts are merged into
classes of neighbouring distances with at least ``min_expected`` expected
each (result ``fine``, PractRand's A) and with at least sqrt(words)
expected each (result ``coarse``, PractRand's B), and Pearson's X^2 is
computed over each.

Law.  The D_n are not independent: the words' distances add up to about 65,536
times the number of words (each value's gaps add up to the stretch between
its first and last occurrence).  Working out Cov(1[D_n = i], 1[D_m = j])
exactly (it is 0 unless the window of one word holds the other; in the limit
of many values, with x = d p) and summing over m - n gives the covariance of
the counts of one word as dx dy-density

    e^(-x) delta(x - y) - e^(-x-y) - (1 - x)(1 - y) e^(-x-y):

the multinomial one, less one more rank-one term along w(x) = (1 - x) e^(-x),
which is orthogonal to the class probabilities (its integral is 0).  So X^2
over K classes has the law of chi2(K - 2) + lambda chi2(1), independent,
with lambda = 1 - sum_k W_k^2 / P_k, W_k the integral of w over class k
(b e^(-b) - a e^(-a) for x from a to b): near 0 for fine classes, where the
sum of distances is nearly fixed.  Words within G of either end of the
stream miss part of that term, so lambda + 2 G / words is used (at most 1:
the multinomial law), which errs toward larger p-values.  The tail of that
sum is an integral over the chi2(1) part (Gauss-Hermite, 96 points) of
chi-square tails.  With 40 expected per class X^2 is near that law
(equiprobable Pearson sums are within 1.1 times at 1e-6 from 15 expected
on: randqa/battery/bcfn.py).  Measured on PCG64: over 300 streams of 2 MiB
(G = 2^14) the p-values' Kolmogorov-Smirnov p was 0.78 (fine) and 0.14
(coarse), over 100 of 8 MiB (G = 2^18) 0.35 and 0.26, and X^2 - (K - 2)
averaged 6 +- 6 and 1.4 +- 1.1 (2 MiB).

Parameters:
  max_gap       G, distances from G on share one class, and the first G
                words are a warm-up (default 2^14: the last class holds
                78% of the words; fewer classes see a deviation at short
                distances sooner: mwc4691 gives p = 2e-231 at 1 GiB with
                2^14, 5e-64 with 2^16, 4e-16 with 2^18)
  min_expected  the fine classes' least expected count (default 40)
A verdict needs 4 G words after the warm-up: 160 KiB at the default.
Memory: 8 bytes per distance below G, and 1 MiB for each value's latest
and first index.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from randqa.battery import _value_gaps
from randqa.battery._blocks import WholeBlockTest
from randqa.battery.base import OBJECT_BYTES, MemoryNeed, Range
from randqa.results import TestResult, chi_square_cdf, chi_square_sf, insufficient

VALUES = 65536
#: words after the warm-up, in units of max_gap, before a verdict
MIN_WORDS_PER_GAP = 4
#: Gauss-Hermite points for the chi2(1) part of the law
QUADRATURE_POINTS = 96


def distance_probabilities(max_gap: int) -> np.ndarray:
    """P(D = d) for d = 0..max_gap - 1 (0 at d = 0), then P(D >= max_gap): exact geometric."""
    log_q = math.log1p(-1 / VALUES)
    d = np.arange(max_gap + 1, dtype=np.float64)
    # q^(d-1) - q^d, written so that neither rounds off the small difference
    probs = np.exp((d - 1) * log_q) * -math.expm1(log_q)
    probs[0] = 0.0
    probs[max_gap] = math.exp((max_gap - 1) * log_q)
    return probs


def merged_classes(expected: np.ndarray, least: float) -> np.ndarray:
    """Start indices of classes of neighbouring cells, each with at least
    ``least`` expected (the first from cell 0; what is left at the end joins
    the last class)."""
    cumulative = np.concatenate([[0.0], np.cumsum(expected)])
    # cells that have enough on their own, from the first on, are classes as they are
    alone = int(np.argmax(expected < least)) if (expected < least).any() else len(expected)
    starts = list(range(max(alone, 1)))
    while True:
        end = int(np.searchsorted(cumulative, cumulative[starts[-1]] + least, side="left"))
        if end >= len(expected) or cumulative[-1] - cumulative[end] < least:
            break
        starts.append(end)
    return np.array(starts, dtype=np.int64)


def mixture_tails(statistic: float, dof: int, weight: float) -> tuple[float, float]:
    """(P(X >= statistic), P(X <= statistic)) for X = chi2(dof) + weight chi2(1), independent."""
    if weight <= 0:
        return chi_square_sf(statistic, dof), chi_square_cdf(statistic, dof)
    from scipy.special import roots_hermitenorm

    z, w = roots_hermitenorm(QUADRATURE_POINTS)
    w = w / w.sum()
    shifted = statistic - weight * z * z
    upper = sum(wi * (chi_square_sf(s, dof) if s > 0 else 1.0) for s, wi in zip(shifted, w))
    lower = sum(wi * (chi_square_cdf(s, dof) if s > 0 else 0.0) for s, wi in zip(shifted, w))
    return min(1.0, upper), min(1.0, lower)


class ValueGaps(WholeBlockTest):
    name = "value_gaps"
    parameter_ranges: ClassVar[dict[str, Range]] = {"max_gap": Range(1024, 1 << 22), "min_expected": Range(5, 10_000)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        gap = cls.with_defaults(params)["max_gap"]
        # the counts, each value's latest and first index; at finalize the
        # probabilities, expected counts, cumulative sums and class labels
        return MemoryNeed(8 * (gap + 1) + 2 * 8 * VALUES + 64 + OBJECT_BYTES, 6 * 8 * (gap + 2))

    def __init__(self, *, max_gap: int = 1 << 14, min_expected: int = 40) -> None:
        if not (isinstance(max_gap, int) and not isinstance(max_gap, bool) and 1024 <= max_gap <= 1 << 22):
            raise ValueError(f"max_gap must be an integer from 1024 to 2^22, not {max_gap!r}")
        if not (isinstance(min_expected, int) and not isinstance(min_expected, bool) and 5 <= min_expected <= 10_000):
            raise ValueError(f"min_expected must be an integer from 5 to 10000, not {min_expected!r}")
        super().__init__(2)
        self.max_gap = max_gap
        self.min_expected = min_expected
        # the next word's index, the index this part starts at, the first counted index
        self.cursor = np.array([0, 0, max_gap], dtype=np.int64)
        self.last_seen = np.full(VALUES, -1, dtype=np.int64)
        self.first_seen = np.full(VALUES, -1, dtype=np.int64)
        self.counts = np.zeros(max_gap + 1, dtype=np.int64)

    def _begin_at(self, position: int) -> None:
        self.cursor[0] = self.cursor[1] = position // 2

    def _scan(self, run: np.ndarray) -> None:
        _value_gaps.value_gap_scan(run, self.cursor, self.last_seen, self.first_seen, self.counts)

    def _add_counts(self, other: "ValueGaps") -> None:
        self.counts += other.counts
        # the right part's first word of each value: its distance back into this part
        waiting = np.flatnonzero(other.first_seen >= 0)
        index = other.first_seen[waiting]
        before = self.last_seen[waiting]
        here = before >= 0
        if self.cursor[1] == 0:  # this part starts the stream: a value it lacks never occurred
            distance = np.where(here, index - before, self.max_gap)
            counted = index >= self.cursor[2]
            np.add.at(self.counts, np.minimum(distance[counted], self.max_gap), 1)
        else:
            resolved = here
            distance = index[resolved] - before[resolved]
            counted = index[resolved] >= self.cursor[2]
            np.add.at(self.counts, np.minimum(distance[counted], self.max_gap), 1)
            # values this part lacks: their first word stays waiting for the part before
            still = waiting[~here]
            self.first_seen[still] = other.first_seen[still]
        self.last_seen = np.where(other.last_seen >= 0, other.last_seen, self.last_seen)
        self.cursor[0] = other.cursor[0]

    def finalize(self) -> list[TestResult]:
        words = int(self.counts.sum())
        needed = MIN_WORDS_PER_GAP * self.max_gap
        needs = f"at least {2 * (needed + self.max_gap)} bytes ({needed} words after a warm-up of {self.max_gap})"
        if words < needed:
            return [insufficient(f"{self.name}[{part}]", needs, words=words) for part in ("fine", "coarse")]
        probs = distance_probabilities(self.max_gap)[1:]
        counts = self.counts[1:]
        x = np.arange(self.max_gap + 1, dtype=np.float64) / VALUES  # class edges in units of 65536 words
        results = []
        for part, least in (("fine", float(self.min_expected)), ("coarse", math.sqrt(words))):
            starts = merged_classes(words * probs, least)
            class_probs = np.add.reduceat(probs, starts)
            class_counts = np.add.reduceat(counts, starts)
            expected = words * class_probs
            statistic = float(np.sum((class_counts - expected) ** 2 / expected))
            low_edge = x[starts]
            high_edge = np.append(x[starts[1:]], 0.0)  # the last class reaches infinity, where x e^(-x) is 0
            w = high_edge * np.exp(-high_edge) - low_edge * np.exp(-low_edge)
            weight = min(1.0, max(0.0, 1 - float(np.sum(w * w / class_probs))) + 2 * self.max_gap / words)
            classes = len(starts)
            upper, lower = mixture_tails(statistic, classes - 2, weight)
            results.append(TestResult(
                name=f"{self.name}[{part}]", statistic=statistic, pvalue=upper, pvalue_low=lower,
                pvalue_kind="dependent" if part == "coarse" else None,
                details={"words": words, "classes": classes, "dof": classes - 2, "rank_one_weight": weight,
                         "least_expected": float(expected.min())}))
        return results
