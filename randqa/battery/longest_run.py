"""Test for the longest run of ones in a block, NIST SP 800-22 Rev 1a section 2.4.

Source: NIST SP 800-22 Rev 1a (2010), section 2.4 (table of M, K, N in
2.4.2, class probabilities in 2.4.4 and 3.4).

The n bits are cut into N = floor(n / M) blocks of M bits; the longest run of
ones in each block is counted into K + 1 classes, and
chi^2 = sum_i (nu_i - N pi_i)^2 / (N pi_i), p = igamc(K / 2, chi^2 / 2).
M follows n as in the standard's table:

  n >= 128        M = 8       K = 3   classes <= 1, 2, 3, >= 4
  n >= 6,272      M = 128     K = 5   classes <= 4, 5, ..., 8, >= 9
  n >= 750,000    M = 10^4    K = 6   classes <= 10, 11, ..., 15, >= 16

(the table's N = 16, 49, 75 are the minimum block counts; as the reference
code does, every whole block is used).  Since M depends on the total n, the
accumulator keeps the class histograms of all three block sizes and picks one
at ``finalize``: bounded state, and the result does not depend on chunking.

Class probabilities (parameter ``probabilities``):
  "exact" (default)  computed for the chosen M from the recursion for the
      number of M-bit strings with no run of k + 1 ones.  For M = 8 these are
      the fractions 55/256, 94/256, 59/256, 48/256 the standard's example
      uses (its 128-bit example gives 0.180609); for M = 128 they agree with
      the standard's 4-digit table to its last digit.  For M = 10^4 the
      standard's table is an approximation off by up to 0.0016 (0.0882 for
      0.0866): on a good generator it gives a median p-value of 0.003 at
      3 * 10^5 blocks (375 MB) and 10^-9 at 10^6 blocks (1.25 GB).
  "sts"  the table of the reference implementation sts-2.1.2 (and of the
      standard), which produced the standard's Appendix B values: e.g. 0.718945
      for the first 10^6 bits of e.

Bits are read most significant first in each byte.  Input shorter than 128
bits is ``insufficient``.
"""

from __future__ import annotations

import functools
import math
from typing import Any, ClassVar

import numpy as np

from randqa.battery import _nist
from randqa.battery._blocks import BitBlockTest, pending_bits_bytes
from randqa.battery.base import OBJECT_BYTES, MemoryNeed, Range
from randqa.results import TestResult, chi_square_result, insufficient, pearson_statistic

#: (minimum n, M, lowest class, highest class): runs <= lowest and >= highest are pooled
PARAMETER_TABLE = (
    (128, 8, 1, 4),
    (6_272, 128, 4, 9),
    (750_000, 10_000, 10, 16),
)

#: the class probabilities sts-2.1.2 uses (SP 800-22 2.4.4 prints the first row to 4 digits)
STS_PROBABILITIES = {
    8: (0.21484375, 0.3671875, 0.23046875, 0.1875),
    128: (0.1174, 0.2430, 0.2493, 0.1752, 0.1027, 0.1124),
    10_000: (0.0882, 0.2092, 0.2483, 0.1933, 0.1208, 0.0675, 0.0727),
}

_HISTOGRAM_SIZE = 17  # runs 0..15 and ">= 16", enough for every class boundary


@functools.lru_cache(maxsize=None)
def prob_longest_at_most(block_bits: int, longest: int) -> float:
    """P(the longest run of ones in ``block_bits`` fair bits is <= ``longest``).

    q[m] = P(no run of longest + 1 ones in m bits) satisfies
    q[m] = sum_{j=1..longest+1} q[m - j] / 2^j for m > longest (the string
    starts with j - 1 ones and a zero), and q[m] = 1 for m <= longest.
    """
    q = np.ones(block_bits + 1)
    weights = 0.5 ** np.arange(1, longest + 2)
    for m in range(longest + 1, block_bits + 1):
        q[m] = weights @ q[m - longest - 1 : m][::-1]
    return float(q[block_bits])


@functools.lru_cache(maxsize=None)
def exact_class_probabilities(block_bits: int, lowest: int, highest: int) -> tuple[float, ...]:
    """Probabilities of the classes <= lowest, lowest + 1, ..., >= highest."""
    cdf = [prob_longest_at_most(block_bits, k) for k in range(lowest, highest)]
    return tuple(np.diff([0.0, *cdf, 1.0]).tolist())


class LongestRun(BitBlockTest):
    name = "longest_run"
    parameter_ranges: ClassVar[dict[str, Range]] = {"probabilities": Range(1, 8, text=True)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        unit_bits = math.lcm(8, *(m for _, m, _, _ in PARAMETER_TABLE))
        held, working = pending_bits_bytes(unit_bits, chunk_bytes)
        return MemoryNeed(held + OBJECT_BYTES, working)

    def __init__(self, *, probabilities: str = "exact") -> None:
        if probabilities not in ("exact", "sts"):
            raise ValueError(f"probabilities must be 'exact' or 'sts', not {probabilities!r}")
        self.probabilities = probabilities
        # one histogram of longest runs per candidate block size
        self.histograms = {m: np.zeros(_HISTOGRAM_SIZE, dtype=np.int64) for _, m, _, _ in PARAMETER_TABLE}
        # units of lcm(8, 128, 10^4) bits hold whole blocks of every size
        super().__init__(math.lcm(*self.histograms))

    def _count_into(self, data, nbits: int, histograms: dict[int, np.ndarray]) -> None:
        for block_bits, counts in histograms.items():
            _nist.longest_run_counts(data, nbits, block_bits, counts)

    def _count(self, data: np.ndarray, nbits: int) -> None:
        self._count_into(data, nbits, self.histograms)

    def _add_counts(self, other: BitBlockTest) -> None:
        for block_bits, counts in self.histograms.items():
            counts += other.histograms[block_bits]

    def finalize(self) -> list[TestResult]:
        n = self.bits_seen
        chosen = [row for row in PARAMETER_TABLE if n >= row[0]]
        if not chosen:
            return [insufficient(self.name, f"at least {PARAMETER_TABLE[0][0]} bits (NIST SP 800-22 2.4.2)", bits=n)]
        _, block_bits, lowest, highest = chosen[-1]
        # whole blocks in the unfinished unit count too; work on a copy
        counts = self.histograms[block_bits].copy()
        data, nbits = self._units.remainder()
        self._count_into(data, nbits, {block_bits: counts})
        blocks = int(counts.sum())
        classes = np.concatenate([[counts[: lowest + 1].sum()], counts[lowest + 1 : highest], [counts[highest:].sum()]])
        if self.probabilities == "exact":
            pi = np.array(exact_class_probabilities(block_bits, lowest, highest))
        else:
            pi = np.array(STS_PROBABILITIES[block_bits])
        expected = blocks * pi
        dof = len(classes) - 1
        return [chi_square_result(self.name, pearson_statistic(classes, expected), dof, {
            "bits": n,
            "M": block_bits,
            "N": blocks,
            "classes": [f"<={lowest}", *map(str, range(lowest + 1, highest)), f">={highest}"],
            "counts": classes.tolist(),
            "probabilities": pi.tolist(),
            "dof": dof,
        }, lower_tail=False)]
