"""Relations modulo 3 between words a few lags apart: the add-rotate
recurrences (RANROT, additive lagged Fibonacci) that words' remainders
mod 3 turn linear.

Sources: A. Fog, "Chaotic random number generators with random cycle
lengths" (2001) and his RANROT generators, x(n) = rotl(x(n - j), r1) +
rotl(x(n - k), r2) mod 2^w; C. Doty-Humphrey, PractRand 0.94 (its zoo's
ranrot32big, ranrot3tap32 and ranrot3tap32big, whose standard battery needs
16 GB, 256 GB and 4 TB, and its mod3n test, which reads tuples of
consecutive remainders only); D. E. Knuth, TAOCP vol. 2, 3rd ed. (1997),
section 3.2.2 (additive lagged Fibonacci generators).  The relation is
written here from the arithmetic, the test from the multinomial law.

Why it works: for even w, 3 divides 2^w - 1, so rotating a w-bit word by r
bits multiplies its value modulo 2^w - 1, hence modulo 3, by 2^r = (-1)^r,
and a sum modulo 2^w differs from the integer sum by a carry c times 2^w,
which is 1 mod 3.  A recurrence of additions and rotations of earlier words
is therefore linear mod 3 up to its carries: for RANROT,
x(n) - (-1)^r1 x(n - j) - (-1)^r2 x(n - k) = -c(n) mod 3 with c(n) in {0,
1}, so that remainder is never 1; with three taps the carries take 0, 1
and 2 with probabilities near 1/6, 2/3 and 1/6.  The remainders of the
words in a window of span + 1 words (a word's remainder is the sum of its
bytes mod 3, whatever the byte order) are counted jointly for every pair of
offsets 1 <= a < b <= ``pair_span`` (3-word relations, 27 cells), every
triple 1 <= a < b < c <= ``triple_span`` (4-word relations, 81 cells), and
the triples up to ``neighbour_span`` in which two of the four words are
neighbours (a = 1, b = a + 1 or c = b + 1: a recurrence with a tap on the
word just made, ranrot3tap32big's (57, 58, 70)), so the lags, the
rotations' signs and the order in which the generator hands out its words
need not be known.  A generator that outputs each block of
its buffer in reverse, as PractRand's do, puts the relation at fixed
offsets too: in 44 of every 57 of ranrot32big's windows the first word and
the words 57 and 70 after it never give z = 1 (with the defaults it fails
at 128 MiB, repeated on the next 128 MiB).

The statistic: for each pair or triple and each sign pattern s (s_0 = 1,
each other s_i = +1 or -1), z = sum s_i r_i mod 3, three classes whose
law is exact: a uniform w-bit word has remainder 0 with probability
(2^w + 2) / (3 2^w) and 1 or 2 with (2^w - 1) / (3 2^w) each, and z's law
is that law convolved over the terms (the same for every sign pattern, as
the two non-zero remainders are equally likely).  One window is counted in
every ``period`` words (period > span): windows share no word, so the z of
different windows are independent and each class count is multinomial.
Each pair or triple and pattern gives Pearson's X^2 on the 3 classes; the
smallest chi-square tail (2 degrees of freedom) is screened, and the tails
of the candidates within a factor ``SCREEN_FACTOR`` of it are the exact
multinomial ones (randqa/battery/_multinomial.py, an upper bound) when the
result can matter (the smallest times the number of candidates below
0.01).  The one result is that smallest tail times the number of
candidates (Bonferroni: candidates share windows), a conservative bound.

Parameters:
  word_bits    8, 16, 32 or 64 (default 32): the words read
  pair_span    the largest offset b of the 3-word relations, 0 (none) or
               2 to 128 (default 80: 3,160 pairs)
  triple_span  the largest offset c of the 4-word relations, 0 (none) or
               3 to 128 (default 32: 4,960 triples)
  neighbour_span  the largest offset c of the 4-word relations with two
               neighbouring words, 0 (none) or 3 to 128 (default 80:
               7,704 more triples)
  period       one window every ``period`` words, more than the span
               (default 131,072: 512 KiB of 32-bit words)
Minimum data: ``MIN_WINDOWS`` (64) windows, 63 periods plus one window
(about 32 MiB with the defaults).  Memory: 27 counts per pair and 81 per
triple (8.9 MiB with the defaults); time: one count per pair and triple per
window, 15,824 per 512 KiB with the defaults.
"""

from __future__ import annotations

import functools
import math
from itertools import combinations, product
from typing import Any, ClassVar

import numpy as np

from randqa.battery import _mod3
from randqa.battery._blocks import WholeBlockTest
from randqa.battery._multinomial import SCREEN_PVALUE, multinomial_tail
from randqa.battery._stream_ends import StreamEnds
from randqa.battery.base import OBJECT_BYTES, MemoryNeed, Range, is_whole
from randqa.battery.mod3 import remainder_probabilities
from randqa.results import TestResult, chi_square_sf, insufficient

MAX_SPAN = 128
MIN_WINDOWS = 64
#: the exact tail is computed for the candidates whose chi-square tail is
#: within this factor of the smallest (at most ``MAX_EXACT`` of them): it is
#: within a factor of 5 of chi-square's from 64 windows on, down to 1e-15
SCREEN_FACTOR = 16.0
MAX_EXACT = 8
#: from this many windows on the chi-square tail is used: within 3% of the
#: exact one down to 1e-15 (tests/battery/test_lagged_mod3.py)
CHI_SQUARE_MIN_WINDOWS = 1 << 16
#: windows whose remainders wait to be counted: the table of counts then
#: passes through the cache once per this many windows
PENDING_WINDOWS = 512


def relation_law(word_bits: int, terms: int) -> np.ndarray:
    """The law of z = sum of ``terms`` remainders (each times +1 or -1) mod 3."""
    q = remainder_probabilities(word_bits)
    law = q
    for _ in range(terms - 1):
        law = np.array([sum(law[i] * q[(k - i) % 3] for i in range(3)) for k in range(3)])
    return law


def _pattern_classes(terms: int) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """Every sign pattern (1, s_1, ...), s_i in {1, 2} (2 = -1 mod 3), and for
    each the class z of every cell (cell = base-3 number of the remainders,
    the first most significant)."""
    patterns = [(1, *signs) for signs in product((1, 2), repeat=terms - 1)]
    digits = np.array(list(product(range(3), repeat=terms)), dtype=np.int64)  # cell order
    classes = np.array([(digits @ np.array(p)) % 3 for p in patterns], dtype=np.int64)
    return patterns, classes


class LaggedMod3(WholeBlockTest):
    name = "lagged_mod3"
    parameter_ranges: ClassVar[dict[str, Range]] = {
        "word_bits": Range(8, 64), "pair_span": Range(0, MAX_SPAN), "triple_span": Range(0, MAX_SPAN),
        "neighbour_span": Range(0, MAX_SPAN), "period": Range(2, 1 << 30)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        p = cls.with_defaults(params)
        pairs, triples = math.comb(p["pair_span"], 2), triple_count(p["triple_span"], p["neighbour_span"])
        counts = 8 * (27 * pairs + 81 * triples + 2)
        offsets = 8 * (2 * pairs + 3 * triples + 2)
        span = max(p["pair_span"], p["triple_span"], p["neighbour_span"])
        span_bytes = span * p["word_bits"] // 8
        pending = (PENDING_WINDOWS + chunk_bytes // p["word_bits"] * 8 // p["period"] + 1) * (span + 1)
        # held: the counts, the offsets, the first span words and the last
        # in a buffer of twice that (StreamEnds), the windows waiting;
        # working: a chunk's windows, the kernel's copy of the waiting ones
        # by offset, and at finalize each pattern's classes
        return MemoryNeed(counts + offsets + 3 * span_bytes + pending + OBJECT_BYTES,
                          2 * counts + 4 * span_bytes + 3 * pending + 4096)

    def __init__(self, *, word_bits: int = 32, pair_span: int = 80, triple_span: int = 32, neighbour_span: int = 80,
                 period: int = 131072) -> None:
        if word_bits not in (8, 16, 32, 64):
            raise ValueError(f"word_bits must be 8, 16, 32 or 64, not {word_bits!r}")
        for name, value, least in (("pair_span", pair_span, 2), ("triple_span", triple_span, 3),
                                   ("neighbour_span", neighbour_span, 3)):
            if not (is_whole(value) and (value == 0 or least <= value <= MAX_SPAN)):
                raise ValueError(f"{name} must be 0 or a whole number from {least} to {MAX_SPAN}, not {value!r}")
        span = max(pair_span, triple_span, neighbour_span)
        if span == 0:
            raise ValueError("pair_span, triple_span and neighbour_span cannot all be 0")
        if not (is_whole(period) and span < period <= 1 << 30):
            raise ValueError(f"period must be a whole number above the span ({span}) and at most 2^30, not {period!r}")
        super().__init__(word_bits // 8)
        self.word_bits = word_bits
        self.pair_span = pair_span
        self.triple_span = triple_span
        self.neighbour_span = neighbour_span
        self.period = period
        self.word_bytes = word_bits // 8
        self.span = span
        self.pairs = pair_offsets(pair_span)
        self.triples = triple_offsets(triple_span, neighbour_span)
        # an empty set is one item 0 (the kernel's arrays are never empty)
        self._pair_array = np.array(self.pairs or [0], dtype=np.int64).ravel()
        self._triple_array = np.array(self.triples or [0], dtype=np.int64).ravel()
        self.pair_counts = np.zeros(27 * len(self.pairs) or 1, dtype=np.int64)
        self.triple_counts = np.zeros(81 * len(self.triples) or 1, dtype=np.int64)
        self.windows = 0
        self.pending = b""  # remainders of windows not counted yet (span + 1 each)
        self.first_word = 0  # stream index of the first word this part sees (begin_at)
        self.words = 0
        self.ends = StreamEnds(span * self.word_bytes)  # the first and the last <= span words

    def _state_saved_elsewhere(self) -> tuple[str, ...]:
        # the offsets follow from the parameters: the suite rebuilds them
        return ("pairs", "triples", "_pair_array", "_triple_array")

    @property
    def phase(self) -> int:
        # a right part not placed with begin_at numbers its words from 0: its
        # windows are the stream's when the left part ends on a whole period
        return self.period * self.word_bytes

    def _begin_at(self, position: int) -> None:
        # windows start at the stream's word indices that are multiples of the period
        self.first_word = position // self.word_bytes

    def _count(self, history: np.ndarray, data: np.ndarray, first: int, start_limit: int) -> None:
        found = _mod3.mod3_window_remainders(history, data, first, self.word_bytes, self.span, self.period, start_limit)
        self.windows += len(found) // (self.span + 1)
        self.pending += found
        if len(self.pending) >= PENDING_WINDOWS * (self.span + 1):
            self._count_pending()

    def _count_pending(self) -> None:
        if self.pending:
            _mod3.mod3_lag_count(self.pending, self.span, self._pair_array, self.pair_counts, self._triple_array,
                                 self.triple_counts)
            self.pending = b""

    def _scan(self, run: np.ndarray) -> None:
        self._count(self.ends.history, run, self.first_word + self.words, 1 << 62)
        self.ends.append(run)
        self.words += len(run) // self.word_bytes

    def _add_counts(self, other: "LaggedMod3") -> None:
        # windows that start in this part and end in the other's first words
        end = self.first_word + self.words
        self._count(self.ends.history, other.ends.head, end, end)
        self.pair_counts += other.pair_counts
        self.triple_counts += other.triple_counts
        self.pending += other.pending
        self.windows += other.windows
        self.ends.join(other.ends)
        self.words += other.words

    def _label(self) -> str:
        neighbours = f",neighbours{self.neighbour_span}" if self.neighbour_span > self.triple_span else ""
        return f"{self.name}[pairs{self.pair_span},triples{self.triple_span}{neighbours}/{self.word_bits}]"

    def finalize(self) -> list[TestResult]:
        self._count_pending()  # the same counts, moved into the table
        label = self._label()
        n = self.windows
        if n < MIN_WINDOWS:
            needed = ((MIN_WINDOWS - 1) * self.period + self.span + 1) * self.word_bytes
            return [insufficient(label, f"at least {needed} bytes ({MIN_WINDOWS} windows of {self.span + 1} words, "
                                        f"one every {self.period})", windows=n)]
        candidates: list[tuple[float, float, np.ndarray, np.ndarray, tuple[int, ...], tuple[int, ...]]] = []
        judged = 0
        for terms, offsets, counts in ((3, self.pairs, self.pair_counts), (4, self.triples, self.triple_counts)):
            if not offsets:
                continue
            table = counts.reshape(len(offsets), 3**terms)
            law = relation_law(self.word_bits, terms)
            expected = n * law
            patterns, classes = _pattern_classes(terms)
            for pattern, cell_class in zip(patterns, classes):
                hist = np.stack([table[:, cell_class == k].sum(axis=1) for k in range(3)], axis=1)
                statistic = (((hist - expected) ** 2) / expected).sum(axis=1)
                judged += len(offsets)
                # the few largest statistics of this pattern stand for it
                top = np.argsort(statistic)[-MAX_EXACT:]
                for i in top.tolist():
                    x = float(statistic[i])
                    candidates.append((chi_square_sf(x, 2), x, hist[i], law, offsets[i], pattern))
        candidates.sort(key=lambda c: c[0])
        smallest = candidates[0][0]
        exact = smallest * judged < SCREEN_PVALUE
        best = None
        for chi2_p, x, hist, law, offsets, pattern in candidates[:MAX_EXACT]:
            if best is not None and chi2_p > SCREEN_FACTOR * smallest:
                break
            tail = multinomial_tail(law, n, x).pvalue if exact and n < CHI_SQUARE_MIN_WINDOWS else chi2_p
            if best is None or tail < best[0]:
                best = (tail, x, hist, offsets, pattern)
        assert best is not None
        tail, x, hist, offsets, pattern = best
        return [TestResult(
            name=label,
            statistic=x,
            pvalue=min(1.0, tail * judged),
            details={
                "windows": n,
                "candidates": judged,
                "worst_offsets": list(offsets),
                "worst_signs": [1 if s == 1 else -1 for s in pattern],
                "worst_classes": hist.tolist(),
                "worst_pvalue": tail,
                "dof": 2,
            },
            pvalue_kind="bound",
        )]


def pair_offsets(span: int) -> list[tuple[int, int]]:
    """The offsets (a, b), 1 <= a < b <= span, in the order counted."""
    return list(combinations(range(1, span + 1), 2))


def triple_count(span: int, neighbour_span: int) -> int:
    """len(triple_offsets(span, neighbour_span)), without making them: for
    a last offset c >= 3, 3 (c - 2) pairs (a, b) hold a = 1, b = a + 1 or
    b = c - 1, less the 3 that hold two of them (one more when c = 3, where
    (1, 2) holds all three)."""
    extra = sum(3 * (c - 2) - 3 + (c == 3) for c in range(max(span, 2) + 1, neighbour_span + 1))
    return math.comb(span, 3) + extra


def triple_offsets(span: int, neighbour_span: int) -> list[tuple[int, int, int]]:
    """The offsets (a, b, c), 1 <= a < b < c: all up to ``span``, then those
    up to ``neighbour_span`` with two neighbouring words among 0, a, b, c."""
    return list(_triple_offsets(span, neighbour_span))


@functools.lru_cache(maxsize=8)
def _triple_offsets(span: int, neighbour_span: int) -> tuple[tuple[int, int, int], ...]:
    # made once per process: the default's 12,664 offsets take 10 ms, and a
    # run builds its suite more than once (the memory check, the run)
    triples = list(combinations(range(1, span + 1), 3))
    triples += [(a, b, c) for c in range(max(span, 2) + 1, neighbour_span + 1) for a, b in combinations(range(1, c), 2)
                if a == 1 or b == a + 1 or c == b + 1]
    return tuple(triples)

