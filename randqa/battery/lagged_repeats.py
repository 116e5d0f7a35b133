"""Exact repeats of the low 16 bits of words at every lag up to ``max_lag``.

Sources: C. Doty-Humphrey, PractRand 0.94, tests.cpp, Gap16 ("Gap-16":
the distance from each 16-bit value back to its previous occurrence, which
fails R's Marsaglia-Multicarry at 32 MiB); G. Marsaglia, "Random numbers
for C: the END?", sci.stat.math, 1999 (the 16-bit multiply-with-carry
generators R's "Marsaglia-Multicarry" pairs: the one with multiplier 18000
never gives the same 16-bit word 1340 steps apart).  Here every pair of
equal words up to ``max_lag`` apart is counted by its lag, which has an
exact law.

Formula.  The stream is read as little-endian words of ``word_bits`` bits;
x_0, x_1, ... are their low 16 bits (of 32-bit words: PractRand's
[Low16/32], where R's generator shows its second multiply-with-carry
alone, read without a folding pass).  For each lag d = 1 ..
``max_lag``, C_d counts the i with x_i = x_(i-d).  For independent uniform
words C_d is Binomial(n - d, 2^-16) exactly: along each chain x_r,
x_(r+d), x_(r+2d), ... every word equals the one before it with
probability 2^-16 whatever came earlier, and different chains share no
word.  Each lag gives both exact binomial tails; ``pvalue`` is the smallest
upper tail (too many repeats) times the number of lags, ``pvalue_low`` the
smallest lower tail (too few) times the number of lags (Bonferroni: the
counts of different lags share words).  A word equal to 64 or more of its
``max_lag`` predecessors (under the hypothesis a Poisson(max_lag / 65536 <=
1) event of probability below 1e-88) stops the count there and bounds the
upper p-value by n times that probability: a constant stream fails at once
and costs no more than a random one.

Parameters:
  word_bits  16, 32 or 64 (default 32)
  max_lag    the largest lag d in words, 1 to 65536 (default 2048)
Minimum data: max_lag + 1 words, so that every lag has a pair (with the
defaults 2049 32-bit words, 8,196 bytes).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from randqa.battery import _counts
from randqa.battery._blocks import WholeBlockTest
from randqa.battery._stream_ends import StreamEnds
from randqa.battery.base import OBJECT_BYTES, MemoryNeed, Range
from randqa.results import TestResult, binomial_tails, insufficient

#: the chance that two words are equal
REPEAT_PROBABILITY = 2.0 ** -16
#: earlier equal words one word's count may reach (the kernel's MAX_REPEATS_WALKED)
MAX_REPEATS_WALKED = 64
MAX_LAG = 65536


class LaggedRepeats(WholeBlockTest):
    name = "lagged_repeats"
    parameter_ranges: ClassVar[dict[str, Range]] = {"word_bits": Range(16, 64), "max_lag": Range(1, MAX_LAG)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        p = cls.with_defaults(params)
        lags, word_bytes = p["max_lag"], p["word_bits"] // 8
        # the counts, the first max_lag words and the last in a buffer of
        # twice that (StreamEnds); per scan the kernel's table of last
        # positions and its ring of earlier ones (to 2 max_lag), and at
        # finalize the binomial tails of every lag
        return MemoryNeed(8 * (lags + 1) + 3 * word_bytes * lags + word_bytes + OBJECT_BYTES,
                          4 * 65536 + 8 * lags + 64 * lags + 4096)

    def __init__(self, *, word_bits: int = 32, max_lag: int = 2048) -> None:
        if word_bits not in (16, 32, 64) or isinstance(word_bits, bool):
            raise ValueError(f"word_bits must be 16, 32 or 64, not {word_bits!r}")
        if not (isinstance(max_lag, int) and not isinstance(max_lag, bool) and 1 <= max_lag <= MAX_LAG):
            raise ValueError(f"max_lag must be a whole number from 1 to {MAX_LAG}, not {max_lag!r}")
        super().__init__(word_bits // 8)
        self.word_bits = word_bits
        self.word_bytes = word_bits // 8
        self.max_lag = max_lag
        #: counts[d]: pairs of equal words d apart; counts[0]: words whose count stopped
        self.counts = np.zeros(max_lag + 1, dtype=np.int64)
        self.words = 0
        self.ends = StreamEnds(self.word_bytes * max_lag)  # the first and the last <= max_lag words

    def _scan(self, run: np.ndarray) -> None:
        _counts.lagged_repeat_scan(self.ends.history, run, self.word_bytes, self.max_lag, False, self.counts)
        self.ends.append(run)
        self.words += len(run) // self.word_bytes

    def _add_counts(self, other: "LaggedRepeats") -> None:
        # the pairs whose earlier word is in this part: the later one is among the other's first max_lag words
        _counts.lagged_repeat_scan(self.ends.history, other.ends.head, self.word_bytes, self.max_lag, True, self.counts)
        self.counts += other.counts
        self.ends.join(other.ends)
        self.words += other.words

    def finalize(self) -> list[TestResult]:
        label = f"{self.name}[low16/{self.word_bits},max_lag={self.max_lag}]"
        n, lags = self.words, self.max_lag
        if n <= lags:
            return [insufficient(label, f"at least {(lags + 1) * self.word_bytes} bytes ({lags + 1} {self.word_bits}-bit words)")]
        d = np.arange(1, lags + 1)
        pairs = n - d
        observed = self.counts[1:]
        upper, lower = binomial_tails(observed, pairs, REPEAT_PROBABILITY)
        most, fewest = int(np.argmin(upper)), int(np.argmin(lower))
        pvalue = min(1.0, float(upper[most]) * lags)
        stopped = int(self.counts[0])
        if stopped:
            # some word equalled MAX_REPEATS_WALKED of its predecessors: at most n chances of that
            pvalue = min(pvalue, n * float(binomial_tails(MAX_REPEATS_WALKED, lags, REPEAT_PROBABILITY)[0]))
        expected = pairs * REPEAT_PROBABILITY
        worst = most if upper[most] <= lower[fewest] else fewest
        return [
            TestResult(
                name=label,
                statistic=float((observed[worst] - expected[worst]) / np.sqrt(expected[worst])),
                pvalue=pvalue,
                pvalue_low=min(1.0, float(lower[fewest]) * lags),
                details={
                    "words": n,
                    "most_repeats": {"lag": most + 1, "count": int(observed[most]),
                                     "expected": round(float(expected[most]), 3)},
                    "fewest_repeats": {"lag": fewest + 1, "count": int(observed[fewest]),
                                       "expected": round(float(expected[fewest]), 3)},
                    "words_stopped": stopped,
                },
                pvalue_kind="bound",
            )
        ]
