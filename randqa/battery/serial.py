"""Serial test, NIST SP 800-22 Rev 1a section 2.11.

Source: NIST SP 800-22 Rev 1a (2010), sections 2.11 and 3.11; I. J. Good,
"The serial test for sampling numbers and other tests for randomness",
Proc. Cambridge Philos. Soc. 49 (1953) 276-284.

The n bits are read as a cycle (the first m - 1 bits are appended) and
nu_p counts each m-bit pattern p over the n overlapping windows.  With
psi^2_m = (2^m / n) sum_p nu_p^2 - n (psi^2_0 = psi^2_-1 = 0),
del psi^2_m = psi^2_m - psi^2_(m-1) and
del^2 psi^2_m = psi^2_m - 2 psi^2_(m-1) + psi^2_(m-2):
  serial[1]: p = igamc(2^(m-2), del psi^2_m / 2)
  serial[2]: p = igamc(2^(m-3), del^2 psi^2_m / 2)
The (m-1)- and (m-2)-bit counts of the cyclic sequence are sums of the
m-bit counts (drop the last bit of each pattern), so one pass suffices.

Parameters:
  m         pattern length (default 16, as the STS code uses)
  max_bits  bits kept and tested (default 2^24)

SP 800-22 2.11.7 asks for m < floor(log2 n) - 2 (n >= 2^19 for m = 16);
shorter input is ``insufficient`` (the p-values are still computed).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from scipy.special import gammaincc

from randqa.battery._bitseq import DEFAULT_MAX_BITS, WholeSequenceTest, cyclic_pattern_count_bytes, cyclic_pattern_counts
from randqa.battery.base import Range
from randqa.results import TestResult, insufficient

MAX_M = 24  # 2^24 counters (128 MiB) is as far as a count table should go


def psi_squared(counts: np.ndarray, n: int) -> float:
    """psi^2 = (2^m / n) sum nu^2 - n, from exact integer sums."""
    if len(counts) == 1:
        return 0.0
    squares = int(np.dot(counts, counts))
    return (len(counts) * squares - n * n) / n


def fold(counts: np.ndarray) -> np.ndarray:
    """Counts of (m-1)-bit patterns from counts of m-bit patterns of a cyclic sequence."""
    return counts.reshape(-1, 2).sum(axis=1)


class CyclicPatternTest(WholeSequenceTest):
    """Base of the tests of the m-bit patterns of the sequence read as a
    cycle (serial, approximate entropy), which SP 800-22 trusts only for
    m < floor(log2 n) - ``margin``; ``parameter_ranges["m"]`` bounds m."""

    #: SP 800-22 asks for m < floor(log2 n) - margin
    margin: ClassVar[int]
    #: the section of SP 800-22 that asks it
    section: ClassVar[str]

    def __init__(self, *, m: int, max_bits: int = DEFAULT_MAX_BITS) -> None:
        super().__init__(max_bits=max_bits)
        low, high = self.parameter_ranges["m"].low, self.parameter_ranges["m"].high
        if not isinstance(m, int) or not low <= m <= high:
            raise ValueError(f"m must be an integer from {low} to {high}, not {m!r}")
        self.m = m

    def _requirement(self) -> tuple[int, str]:
        """The fewest bits for this m, and what the results say they need."""
        min_bits = 1 << (self.m + self.margin + 1)
        return min_bits, f"at least {min_bits} bits (m < floor(log2 n) - {self.margin}, NIST SP 800-22 {self.section})"


class Serial(CyclicPatternTest):
    name = "serial"
    parameter_ranges: ClassVar[dict[str, Range]] = {**WholeSequenceTest.parameter_ranges, "m": Range(2, MAX_M)}
    margin = 2
    section = "2.11.7"

    @classmethod
    def _evaluation_bytes(cls, n: int, params: dict[str, Any]) -> int:
        # the wrapped-around copy of the bits, the pattern counts, and the
        # counts folded once and twice
        m = params["m"]
        return cyclic_pattern_count_bytes(n, m) + 16 * (1 << m)

    @classmethod
    def _result_count(cls, params: dict[str, Any]) -> int:
        return 2

    def __init__(self, *, m: int = 16, max_bits: int = DEFAULT_MAX_BITS) -> None:
        super().__init__(m=m, max_bits=max_bits)

    def _evaluate(self, packed: np.ndarray, n: int) -> list[TestResult]:
        m = self.m
        min_bits, needs = self._requirement()
        if n < m:
            return [insufficient(f"{self.name}[{i}]", needs, bits=n) for i in (1, 2)]
        counts = cyclic_pattern_counts(packed, n, m)
        psi_m = psi_squared(counts, n)
        psi_m1 = psi_squared(fold(counts), n)
        psi_m2 = psi_squared(fold(fold(counts)), n) if m > 2 else 0.0
        delta1 = psi_m - psi_m1
        delta2 = psi_m - 2 * psi_m1 + psi_m2
        details = {"bits": n, "m": m, "psi2_m": psi_m, "psi2_m-1": psi_m1, "psi2_m-2": psi_m2}
        results = [
            TestResult(f"{self.name}[1]", delta1, float(gammaincc(2 ** (m - 2), delta1 / 2)), details=dict(details)),
            TestResult(f"{self.name}[2]", delta2, float(gammaincc(2 ** (m - 3), delta2 / 2)), details=dict(details)),
        ]
        if n < min_bits:
            for r in results:
                r.withhold_verdict(needs)
        return results
