"""Rank over GF(2) of large square matrices of consecutive stream bits, sizes doubling.

Sources: C. Doty-Humphrey, PractRand 0.94, doc/Tests_engines.txt, "BRank"
(square matrices of 128 bits up to many thousands, the larger sizes as the
data grows; failures mean output bits that are XORs of earlier output bits);
G. Marsaglia and L. H. Tsay, "Matrices and the structure of random number
sequences", Linear Algebra Appl. 67 (1985) 147-156, after I. N. Kovalenko
(1972), for the law of the rank; M. Albrecht, G. Bard and W. Hart, ACM TOMS
37 (2010), for elimination on 64-column strips with tables of 8-row sums
(randqa/battery/_gf2_rank.c).

For each size n = ``min_size``, 2 ``min_size``, ... ``max_size`` (powers of
two, multiples of 64) the stream is cut into n x n matrices of n^2 / 8
bytes each, row r being the n / 8 consecutive bytes after row r - 1, and
the matrices numbered 0, 1, ... from the stream's start; matrix j is ranked
when j is a multiple of ``every`` (matrix 0 of every size included, so a
size's first matrix is ranked as soon as its n^2 / 8 bytes exist).  A
generator whose output bits are linear over GF(2) in s bits of state (an
LFSR, xorshift, a GFSR, or a linear part of a larger generator) makes every
row a linear image of the state at its start, so every matrix of size n > s
has rank <= s: deficiency n - s in the first matrix.

Law, exactly: for an n x n matrix of fair bits, the deficiency d = n - rank
has P(d) = 2^(-d^2) prod_{i=d+1}^{n} (1 - 2^-i)^2 / prod_{i=1}^{n-d}
(1 - 2^-i) (0.2888, 0.5776, 0.1284, 0.0051, ... for n >= 64).  For each
size with M ranked matrices:
  - the largest deficiency D seen: P(some of M matrices has d >= D) =
    1 - (1 - P(d >= D))^M, one upper tail;
  - the counts of d = 0, 1, 2, >= 3, pooled upward until every class
    expects 5 (38 matrices for 0, 1, >= 2; 18 for 0, >= 1), Pearson's X^2
    with both tails, exact while the counts are small
    (randqa/battery/_multinomial.py), from 18 matrices on.
The result is the smallest of these tail probabilities over all sizes times
how many were looked at (Bonferroni): a bound a good generator falls below
with probability at most its value.  It needs one matrix of ``min_size``
(2 KiB at 128); the class test at size n needs 18 * ``every`` matrices.

Parameters:
  min_size, max_size  the smallest and largest sides, powers of two from 64
                      to 16384 (default 128 and 4096)
  every               rank one matrix of each size in every ``every``
                      (default 1).  A ranked matrix costs about the same
                      per byte at every size, 4-6 ns on a 2-core EPYC VM,
                      so the cost per byte of stream is about the sizes'
                      count times 5 ns / every, plus each size's first
                      matrix once (10 ms at 4096)
Memory: per size, the unfinished ranked matrix and, for a part of the
stream that starts inside one, its first bytes (2 n^2 / 8), and the
counts; 2.7 MiB per part at max_size 4096, 43 MiB at 16384.
"""

from __future__ import annotations

import functools
import math
from typing import Any, ClassVar

import numpy as np

from randqa.battery import _gf2_rank
from randqa.battery._multinomial import Classes, choose_classes, class_result
from randqa.battery.base import OBJECT_BYTES, Accumulator, MemoryNeed, Range
from randqa.results import TestResult, insufficient, smallest_of

MIN_SIDE = 64
MAX_SIDE = 16384
MIN_EXPECTED = 5
#: deficiencies past the observed one that the tail sums (2^-(d^2) below them)
TAIL_TERMS = 40
#: the rank classes, finest first: where each starts among the deficiencies d = 0, 1, 2, ...
CLASS_STARTS = (np.array([0, 1, 2, 3]), np.array([0, 1, 2]), np.array([0, 1]))


@functools.lru_cache(maxsize=None)
def _log_products(n: int) -> np.ndarray:
    """S[k] = sum_{i=1}^{k} ln(1 - 2^-i) for k = 0..n."""
    i = np.arange(1, n + 1, dtype=np.float64)
    return np.concatenate([[0.0], np.cumsum(np.log1p(-np.exp2(-i)))])


def deficiency_log_probability(n: int, d: np.ndarray | int) -> np.ndarray:
    """ln P(n - rank = d) for an n x n matrix of fair bits over GF(2).

    The law of matrix_rank.rank_probability, which sums n - d terms for each
    rank; here one cumulative sum per side serves every deficiency (a
    4096 x 4096 matrix of a linear generator may be short of hundreds)."""
    s = _log_products(n)
    d = np.asarray(d, dtype=np.int64)
    return -(d.astype(np.float64) ** 2) * math.log(2) + 2 * (s[n] - s[d]) - s[n - d]


def deficiency_probabilities(n: int, count: int) -> np.ndarray:
    """P(n - rank = d) for d = 0 .. count - 1 (count <= n + 1)."""
    return np.exp(deficiency_log_probability(n, np.arange(count)))


def deficiency_tail(n: int, d: int) -> float:
    """P(n - rank >= d) for an n x n matrix of fair bits (0 once below 1e-308)."""
    if d <= 0:
        return 1.0
    if d <= 3:
        return max(0.0, 1.0 - float(deficiency_probabilities(n, d).sum()))
    terms = np.arange(d, min(n, d + TAIL_TERMS) + 1)
    return float(np.exp(deficiency_log_probability(n, terms)).sum()) if len(terms) else 0.0


def sizes_between(min_size: int, max_size: int) -> list[int]:
    """The sides min_size, 2 min_size, ... max_size."""
    return [min_size << k for k in range((max_size // min_size).bit_length())]


class _Size:
    """The ranked matrices of one side: their deficiency counts, the
    unfinished one, and the first bytes of one this part started inside."""

    def __init__(self, size: int, every: int) -> None:
        self.size = size
        self.block = size * size // 8
        self.period = self.block * every
        self.counts = np.zeros(size + 1, dtype=np.int64)
        #: the bytes of the ranked matrix in progress, whose start this part saw
        self.pending = bytearray()
        #: the bytes of the ranked matrix this part started inside, and how many it still lacks
        self.head = bytearray()
        self.head_needs = 0
        self.inside = False

    def place(self, position: int) -> None:
        offset = position % self.period
        self.inside = 0 < offset < self.block
        self.head_needs = self.block - offset if self.inside else 0

    def rank(self, matrix: bytes | bytearray | np.ndarray) -> None:
        _gf2_rank.rank_deficiency_counts(matrix, self.size, self.period, self.counts)

    def feed(self, chunk: np.ndarray, position: int) -> None:
        """Add ``chunk``, which starts at stream byte ``position``."""
        at = 0
        if self.head_needs:
            take = min(self.head_needs, len(chunk))
            self.head += chunk[:take].data
            self.head_needs -= take
            at = take
        if self.pending and at < len(chunk):
            take = min(self.block - len(self.pending), len(chunk) - at)
            self.pending += chunk[at:at + take].data
            at += take
            if len(self.pending) == self.block:
                self.rank(self.pending)
                self.pending = bytearray()
        if at == len(chunk):
            return
        # not inside a ranked matrix here: the next one starts at a multiple of the period
        first = -(position + at) // self.period * -self.period - position
        if first >= len(chunk):
            return
        self.rank(chunk[first:])
        whole = (len(chunk) - first - self.block) // self.period + 1 if len(chunk) - first >= self.block else 0
        unfinished = first + whole * self.period
        if unfinished < len(chunk):
            self.pending = bytearray(chunk[unfinished:])

    def absorb(self, other: "_Size") -> None:
        """Take the counts of ``other``, the part after this one (non-empty)."""
        self.counts += other.counts
        if other.inside:
            if self.head_needs:  # this part lies inside the same matrix, after its start
                self.head += other.head
                self.head_needs = other.head_needs
            elif self.pending:
                joined = self.pending + other.head
                if other.head_needs:
                    self.pending = joined
                    return
                self.rank(joined)
            else:
                raise ValueError("binary_rank: the parts of a merge do not meet inside a matrix")
        self.pending = bytearray(other.pending)


class BinaryRank(Accumulator):
    name = "binary_rank"
    parameter_ranges: ClassVar[dict[str, Range]] = {
        "min_size": Range(MIN_SIDE, MAX_SIDE), "max_size": Range(MIN_SIDE, MAX_SIDE), "every": Range(1, 1 << 20)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        p = cls.with_defaults(params)
        # (a max_size below min_size is refused when the test is built)
        sizes = sizes_between(p["min_size"], max(p["min_size"], p["max_size"]))
        # per size: the unfinished matrix and a part's first bytes, the counts;
        # the kernel's copy of one matrix, its row pointers and 8-row tables
        held = sum(2 * n * n // 8 + 8 * (n + 1) + 256 for n in sizes)
        largest = max(sizes)
        working = largest * largest // 8 * 2 + 8 * largest * 3 + 8 * 256 * largest // 8 + min(chunk_bytes, largest * largest // 8)
        return MemoryNeed(held + OBJECT_BYTES, working)

    def __init__(self, *, min_size: int = 128, max_size: int = 4096, every: int = 1) -> None:
        super().__init__()
        for what, value in (("min_size", min_size), ("max_size", max_size)):
            if not (isinstance(value, int) and not isinstance(value, bool) and MIN_SIDE <= value <= MAX_SIDE
                    and value & (value - 1) == 0):
                raise ValueError(f"{what} must be a power of two from {MIN_SIDE} to {MAX_SIDE}, not {value!r}")
        if max_size < min_size:
            raise ValueError(f"max_size ({max_size}) must be at least min_size ({min_size})")
        if not (isinstance(every, int) and not isinstance(every, bool) and every >= 1):
            raise ValueError(f"every must be a positive integer, not {every!r}")
        self.min_size = min_size
        self.max_size = max_size
        self.every = every
        self.sides = [_Size(n, every) for n in sizes_between(min_size, max_size)]

    @property
    def alignment(self) -> int:
        # a part may start inside a matrix: it keeps that matrix's first bytes for the merge
        return 1

    @property
    def phase(self) -> int:
        return max(side.period for side in self.sides)

    def _begin_at(self, position: int) -> None:
        for side in self.sides:
            side.place(position)

    def _update(self, chunk: np.ndarray) -> None:
        position = self.start + self.bytes_seen
        for side in self.sides:
            side.feed(chunk, position)

    def stretches_read(self, position: int, length: int) -> list[tuple[int, int]] | None:
        # the ranked matrices' bytes: each side's block at every multiple of its period
        end = position + length
        windows = []
        for side in self.sides:
            for start in range(position // side.period * side.period, end, side.period):
                if start + side.block > position:
                    windows.append((max(start, position), min(start + side.block, end)))
        windows.sort()
        merged: list[tuple[int, int]] = []
        for a, b in windows:
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        return merged

    def _merge(self, other: "BinaryRank") -> None:
        if not other.bytes_seen:
            return
        for side, later in zip(self.sides, other.sides):
            side.absorb(later)

    def finalize(self) -> list[TestResult]:
        first = self.min_size * self.min_size // 8
        if not any(side.counts.any() for side in self.sides):
            return [insufficient(self.name, f"at least {first} bytes (one {self.min_size} x {self.min_size} matrix)",
                                 bytes=self.bytes_seen)]
        tails: list[tuple[float, str, int, float]] = []  # (p, what, size, statistic)
        per_size = {}
        for side in self.sides:
            matrices = int(side.counts.sum())
            if not matrices:
                continue
            n = side.size
            worst = int(np.flatnonzero(side.counts)[-1])
            lowest_p = smallest_of(deficiency_tail(n, worst), matrices)
            tails.append((lowest_p, "largest deficiency", n, float(worst)))
            info: dict[str, Any] = {
                "matrices": matrices, "largest_deficiency": worst,
                "deficiency_counts": [int(c) for c in side.counts[:3]] + [int(side.counts[3:].sum())],
                "largest_deficiency_p": lowest_p}
            classes = self._classes(n, matrices)
            if classes is not None:
                observed = np.add.reduceat(side.counts, classes.starts).astype(np.float64)
                fit = class_result(f"{self.name}[{n}]", observed, classes)
                for tail, p in (("upper", fit.pvalue), ("lower", fit.pvalue_low)):
                    if p is not None and fit.statistic is not None:
                        tails.append((p, f"deficiency classes, {tail} tail", n, float(fit.statistic)))
                info.update(classes_observed=observed.astype(np.int64).tolist(),
                            classes_expected=(matrices * classes.probs).tolist(),
                            classes_p=[fit.pvalue, fit.pvalue_low])
            per_size[str(n)] = info
        p_min, what, size, statistic = min(tails, key=lambda t: t[0])
        return [TestResult(
            name=self.name, statistic=statistic, pvalue=min(1.0, len(tails) * p_min), pvalue_kind="bound",
            details={"smallest_tail": p_min, "from": f"{what} at {size} x {size}", "tails": len(tails),
                     "every": self.every, "sizes": per_size})]

    @staticmethod
    def _classes(n: int, matrices: int) -> Classes | None:
        fine = deficiency_probabilities(n, 3)
        probs = np.append(fine, max(0.0, 1.0 - fine.sum()))
        candidates = [(np.add.reduceat(probs, starts), starts) for starts in CLASS_STARTS]
        return choose_classes(candidates, matrices, min_expected=MIN_EXPECTED)
