"""Digraph test: dependence between successive bytes, optionally by position.

Sources: I. J. Good, "The serial test for sampling numbers and other tests
for randomness", Proc. Cambridge Philos. Soc. 49 (1953) 276-284 (overlapping
pairs: the second difference of the Pearson sums is chi-square with
(d-1)^2 degrees of freedom); G. Marsaglia, "Monkeying with the goodness-of-
fit test", J. Statistical Software 14 (2005); S. R. Fluhrer and D. A.
McGrew, "Statistical analysis of the alleged RC4 keystream generator", FSE
2000, LNCS 1978 (digraph biases that depend on the position mod 256);
K. J. Koehler and K. Larntz, "An empirical investigation of goodness-of-fit
statistics for sparse multinomials", JASA 75 (1980) 336-344 (the chi-square
approximation of equiprobable Pearson sums with small expected counts).

Every overlapping pair of bytes (x_i, x_{i+1}), i = 0..n-2, is counted in a
256 x 256 table; with ``position_mod`` = P > 1 there is one table per class
i mod P (RC4's digraph biases depend on i mod 256).  For each table with m
pairs, rows R and columns C,

    X^2_pairs = sum (N_ab - m/65536)^2 / (m/65536),
    X^2_rows  = sum (R_a - m/256)^2 / (m/256),   X^2_cols likewise,

and the statistic is sum over tables of X^2_pairs - X^2_rows - X^2_cols:
the Pearson sum of the interaction part of each table, which is what is
left after the byte frequencies are taken out (they are the chi-square
test's business).  Under independence and uniformity it is chi-square with
P * 255^2 degrees of freedom: within a table the decomposition of Pearson's
sum into row, column and interaction parts is orthogonal, and the
interaction parts of overlapping pairs are uncorrelated (a function u of
(x_i, x_{i+1}) with zero row and column means has zero covariance with any
function of (x_{i+1}, x_{i+2})), so the overlap that forces Good's
differencing only touches the marginal parts that are removed.  With
P <= 1 and a circular stream this is exactly Good's ∇²ψ² for d = 256.

The cells are equiprobable, where Pearson's sum keeps the chi-square
variance up to a factor 1 - 1/m for any expected count and the chi-square
approximation holds down to small expected counts (Koehler and Larntz); the
statistic's mean is exactly P * 255^2 for every m (the adjacent-pair terms
cancel).  3,000 PCG64 streams of 64 KiB (one expected pair per cell) gave
a variance within 2% of 2 * 255^2 and uniform p-values.  At the fail
threshold randqa asks for two expected pairs per cell: the exact tails of
equiprobable multinomial sums of squares (randqa/battery/_multinomial.py)
are above the chi-square's 1e-6 point about 1 + A/e times as often, A
falling with the cells as K^-0.6 (13.8 for 16 cells, 2.4 for 256), which
puts 65,536 cells at about 9% with one expected and 4% with two
(benchmarks/calibration.py).

Parameters:
  position_mod  0 (default) for one table, or P >= 2 for one table per
                position class i mod P (256 for RC4; memory 512 KiB * P)
A verdict needs 131,072 pairs per table: 128 KiB + 1 byte, times P; from
one pair per cell on only a tail below fail_at_once (1e-20) gives one.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from randqa.battery import _counts, _pair_table
from randqa.battery._pairs import BytePairTest
from randqa.battery._shared import BytePairs
from randqa.battery._sharing import Reads, SharesStatistic
from randqa.battery.base import OBJECT_BYTES, MemoryNeed, Range
from randqa.results import TestResult, chi_square_result, insufficient

MIN_EXPECTED = 2
#: from this many pairs per cell on, a tail below fail_at_once fails
DECISIVE_MIN_EXPECTED = 1
MAX_POSITION_MOD = 4096


class Digraph(SharesStatistic, BytePairTest):
    name = "digraph"
    parameter_ranges: ClassVar[dict[str, Range]] = {"position_mod": Range(0, MAX_POSITION_MOD)}
    reads = Reads(BytePairs, position_mod=0)

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        classes = max(cls.with_defaults(params)["position_mod"], 1)
        # 512 KiB of counts per table; the kernel's 256 KiB table of 32-bit
        # counts; at finalize one table as floats, its deviations, their
        # squares and numpy's sums of them
        return MemoryNeed(8 * 65536 * classes + OBJECT_BYTES, 8 * 8 * 65536 + 16 * classes)

    def __init__(self, *, position_mod: int = 0) -> None:
        super().__init__()
        if not (isinstance(position_mod, int) and not isinstance(position_mod, bool) and 0 <= position_mod <= MAX_POSITION_MOD):
            raise ValueError(f"position_mod must be 0 (off) or an integer from 2 to {MAX_POSITION_MOD}, not {position_mod!r}")
        if position_mod == 1:
            position_mod = 0
        self.position_mod = position_mod
        self.classes = max(position_mod, 1)
        self.counts = np.zeros(self.classes * 65536, dtype=np.int64)

    @property
    def alignment(self) -> int:
        return self.classes

    _own_counts = ("counts",)

    def _scan(self, data: np.ndarray, start: int, previous: int) -> None:
        if self.classes == 1:
            _pair_table.add_pair_counts(data, previous, self.counts)
        else:
            _counts.digraph_scan(data, previous, start, self.position_mod, self.counts)

    def _add_counts(self, other: BytePairTest) -> None:
        self.counts += other.counts

    def finalize(self) -> list[TestResult]:
        label = self.name if self.position_mod == 0 else f"{self.name}[position_mod={self.position_mod}]"
        counts = self._statistic().counts if self.shared is not None else self.counts
        tables = counts.reshape(self.classes, 256, 256)
        pairs = tables.sum(axis=(1, 2))
        needed = MIN_EXPECTED * 65536
        needs = f"at least {needed * self.classes + 1} bytes ({MIN_EXPECTED} expected pairs per cell)"
        if pairs.min() < DECISIVE_MIN_EXPECTED * 65536:
            return [insufficient(label, needs, pairs=int(pairs.sum()))]
        statistic = 0.0
        for table, m in zip(tables, pairs):
            m = int(m)
            table = table.astype(np.float64)
            x2_pairs = float(np.sum((table - m / 65536) ** 2)) / (m / 65536)
            x2_rows = float(np.sum((table.sum(axis=1) - m / 256) ** 2)) / (m / 256)
            x2_cols = float(np.sum((table.sum(axis=0) - m / 256) ** 2)) / (m / 256)
            statistic += x2_pairs - x2_rows - x2_cols
        dof = self.classes * 255 * 255
        result = chi_square_result(label, statistic, dof, {"pairs": int(pairs.sum()), "dof": dof,
                                                           "expected_per_cell": float(pairs.min()) / 65536})
        if pairs.min() < needed:
            result.withhold_verdict_unless_decisive(needs)
        return [result]
