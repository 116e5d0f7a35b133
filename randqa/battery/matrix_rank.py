"""Binary matrix rank test, NIST SP 800-22 Rev 1a section 2.5, and large square ranks.

Sources: NIST SP 800-22 Rev 1a (2010), section 2.5 (and 3.5 for the rank
probabilities); G. Marsaglia and L. H. Tsay, "Matrices and the structure of
random number sequences", Linear Algebra Appl. 67 (1985) 147-156, after
I. N. Kovalenko (1972), for the exact distribution of the rank of a random
matrix over GF(2).

Successive rows x cols bits fill a matrix row by row (bits most significant
first in each byte); its rank over GF(2) is found by elimination on
bit-packed 64-bit rows in C.  For a matrix of fair bits with m = min(rows,
cols), P(rank = r) = 2^(r (rows + cols - r) - rows cols) *
prod_{i<r} (1 - 2^(i - rows)) (1 - 2^(i - cols)) / (1 - 2^(i - r)), computed
exactly for the shape in use (for 32 x 32: 0.2888, 0.5776, 0.1336).

Two forms:
  rows, cols (default 32 x 32): the standard's test.  N matrices are counted
      into rank m, m - 1 and lower; chi^2 with 2 degrees of freedom,
      p = exp(-chi^2 / 2).  The standard (2.5.7) asks for at least 38
      matrices (38,912 bits at 32 x 32).  Its 3 x 3 example prints 0.741948
      from the 32 x 32 probabilities; with the 3 x 3 probabilities the same
      counts give another p-value, which randqa reports.
  size (64, 256, 512, 1024, 2048, ...): square size x size matrices over
      successive bits, counted into rank m, m - 1, m - 2 and lower, chi^2
      with 3 degrees of freedom.  With few matrices the lowest classes are
      pooled upward until every expected count is at least 5 (Cochran).  A
      generator that is linear over GF(2) with an s-bit state (an LFSR,
      xorshift, Tausworthe, ...) makes every row a linear image of the state
      at its start, so every matrix has rank <= s: with s < size it fails
      outright, and ``details["min_rank"]`` shows the bound.  Needs 38
      matrices too (38 * size^2 bits: 4.75 MiB at 1024).  Sides go up to
      8192 (8 MiB a matrix; elimination time grows as size^3 / 64).

Streaming: a rank histogram and the bits of one incomplete matrix (memory
size^2 / 8 bytes).  ``alignment`` = lcm(rows * cols, 8) / 8 bytes.
"""

from __future__ import annotations

import functools
import math
from typing import Any, ClassVar

import numpy as np

from randqa.battery import _linear
from randqa.battery._blocks import BitBlockTest, pending_bits_bytes
from randqa.battery.base import OBJECT_BYTES, MemoryNeed, Range
from randqa.results import TestResult, chi_square_result, insufficient, pearson_statistic

DEFAULT_SHAPE = 32
MIN_MATRICES = 38
MIN_EXPECTED = 5
MAX_SIDE = 8192


@functools.lru_cache(maxsize=None)
def rank_probability(rows: int, cols: int, rank: int) -> float:
    """P(a rows x cols matrix of fair bits has rank ``rank`` over GF(2))."""
    if not 0 <= rank <= min(rows, cols):
        return 0.0
    log_p = (rank * (rows + cols - rank) - rows * cols) * math.log(2)
    for i in range(rank):
        log_p += math.log1p(-(2.0 ** (i - rows))) + math.log1p(-(2.0 ** (i - cols))) - math.log1p(-(2.0 ** (i - rank)))
    return math.exp(log_p)


def class_probabilities(rows: int, cols: int, classes: int) -> list[float]:
    """Probabilities of rank m, m - 1, ..., m - classes + 2 and the rest (m = min(rows, cols))."""
    top = min(rows, cols)
    upper = [rank_probability(rows, cols, top - k) for k in range(classes - 1)]
    return [*upper, max(0.0, 1.0 - sum(upper))]


class MatrixRank(BitBlockTest):
    name = "matrix_rank"
    parameter_ranges: ClassVar[dict[str, Range]] = {
        "rows": Range(2, MAX_SIDE), "cols": Range(2, MAX_SIDE), "size": Range(2, MAX_SIDE)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        p = cls.with_defaults(params)
        rows = p["size"] or p["rows"] or DEFAULT_SHAPE
        cols = p["size"] or p["cols"] or DEFAULT_SHAPE
        held, working = pending_bits_bytes(rows * cols, chunk_bytes)
        # the kernel's copy of one matrix, a row of 64-bit words per row
        return MemoryNeed(held + 8 * (min(rows, cols) + 1) + OBJECT_BYTES, working + 8 * rows * (cols // 64 + 1))

    def __init__(self, *, rows: int | None = None, cols: int | None = None, size: int | None = None) -> None:
        for what, value in (("rows", rows), ("cols", cols), ("size", size)):
            if value is not None and not (isinstance(value, int) and 2 <= value <= MAX_SIDE):
                raise ValueError(f"{what} must be an integer between 2 and {MAX_SIDE}, not {value!r}")
        if size is not None and (rows is not None or cols is not None):
            raise ValueError("give either size (square matrices) or rows/cols, not both")
        self.rows, self.cols, self.size = rows, cols, size
        if size is not None:
            self.shape = (size, size)
            self.classes = 4  # full, -1, -2, lower; pooled at finalize if counts are small
        else:
            self.shape = (rows or DEFAULT_SHAPE, cols or DEFAULT_SHAPE)
            self.classes = 3  # the standard's full, -1, lower
        self.rank_counts = np.zeros(min(self.shape) + 1, dtype=np.int64)
        super().__init__(self.shape[0] * self.shape[1])

    def _count(self, data: np.ndarray, nbits: int) -> None:
        _linear.matrix_rank_counts(data, nbits, *self.shape, self.rank_counts)

    def _add_counts(self, other: BitBlockTest) -> None:
        self.rank_counts += other.rank_counts

    def finalize(self) -> list[TestResult]:
        rows, cols = self.shape
        top = min(rows, cols)
        label = self.name if self.shape == (DEFAULT_SHAPE, DEFAULT_SHAPE) and self.size is None else f"{self.name}[{rows}x{cols}]"
        rank_counts = self.rank_counts.copy()
        data, nbits = self._units.remainder()
        _linear.matrix_rank_counts(data, nbits, rows, cols, rank_counts)
        matrices = int(rank_counts.sum())
        n = self.bits_seen
        needs = f"at least {MIN_MATRICES * rows * cols} bits ({MIN_MATRICES} matrices of {rows} x {cols}, NIST SP 800-22 2.5.7)"
        if matrices == 0:
            return [insufficient(label, needs, bits=n, matrices=0)]
        probabilities = class_probabilities(rows, cols, self.classes)
        observed = [int(rank_counts[top - k]) for k in range(self.classes - 1)]
        observed.append(matrices - sum(observed))
        names = [*(f"{top - k}" for k in range(self.classes - 1)), f"<={top - self.classes + 1}"]
        if self.size is not None:
            # pool the rarest classes upward until every class expects >= 5 matrices
            while len(observed) > 2 and matrices * probabilities[-1] < MIN_EXPECTED:
                rarest_count, rarest_probability = observed.pop(), probabilities.pop()
                observed[-1] += rarest_count
                probabilities[-1] += rarest_probability
                names.pop()
                names[-1] = f"<={top - len(names) + 1}"
        expected = np.array(probabilities) * matrices
        dof = len(observed) - 1
        result = chi_square_result(label, pearson_statistic(np.array(observed), expected), dof, {
            "bits": n,
            "rows": rows,
            "cols": cols,
            "matrices": matrices,
            "rank_classes": names,
            "counts": observed,
            "probabilities": probabilities,
            "dof": dof,
            "min_rank": int(np.flatnonzero(rank_counts)[0]),
        }, lower_tail=False)
        if matrices < MIN_MATRICES:
            result.withhold_verdict(needs)
        return [result]
