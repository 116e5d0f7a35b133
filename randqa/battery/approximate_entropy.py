"""Approximate entropy test, NIST SP 800-22 Rev 1a section 2.12.

Source: NIST SP 800-22 Rev 1a (2010), sections 2.12 and 3.12; S. Pincus
and B. H. Singer, "Randomness and degrees of irregularity", Proc. Natl.
Acad. Sci. USA 93 (1996) 2083-2088.

The n bits are read as a cycle and C_p counts each pattern p over the n
overlapping windows of length m and of length m + 1.  With
phi^(m) = sum_p (C_p / n) ln(C_p / n), ApEn(m) = phi^(m) - phi^(m+1),
chi^2 = 2 n (ln 2 - ApEn(m)) and p = igamc(2^(m-1), chi^2 / 2).  The m-bit
counts are sums of the (m+1)-bit counts of the cyclic sequence.

Parameters:
  m         block length (default 10, as the STS code uses)
  max_bits  bits kept and tested (default 2^24)

SP 800-22 2.12.7 asks for m < floor(log2 n) - 5 (n >= 2^16 for m = 10);
shorter input is ``insufficient`` (the p-value is still computed).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from scipy.special import gammaincc

from randqa.battery._bitseq import DEFAULT_MAX_BITS, WholeSequenceTest, cyclic_pattern_count_bytes, cyclic_pattern_counts
from randqa.battery.base import Range
from randqa.battery.serial import MAX_M, CyclicPatternTest, fold
from randqa.results import TestResult, insufficient


def phi(counts: np.ndarray, n: int) -> float:
    """sum over seen patterns of (C / n) ln(C / n)."""
    seen = counts[counts > 0] / n
    return float(np.sum(seen * np.log(seen)))


class ApproximateEntropy(CyclicPatternTest):
    name = "approximate_entropy"
    parameter_ranges: ClassVar[dict[str, Range]] = {**WholeSequenceTest.parameter_ranges, "m": Range(1, MAX_M - 1)}
    margin = 5
    section = "2.12.7"

    @classmethod
    def _evaluation_bytes(cls, n: int, params: dict[str, Any]) -> int:
        # the wrapped-around copy, the counts of (m+1)-bit patterns, their
        # fold and the logarithms of both
        m = params["m"]
        return cyclic_pattern_count_bytes(n, m + 1) + 32 * (2 << m)

    def __init__(self, *, m: int = 10, max_bits: int = DEFAULT_MAX_BITS) -> None:
        super().__init__(m=m, max_bits=max_bits)

    def _evaluate(self, packed: np.ndarray, n: int) -> list[TestResult]:
        m = self.m
        min_bits, needs = self._requirement()
        if n <= m:
            return [insufficient(self.name, needs, bits=n)]
        longer = cyclic_pattern_counts(packed, n, m + 1)
        phi_m, phi_m1 = phi(fold(longer), n), phi(longer, n)
        apen = phi_m - phi_m1
        chi2 = 2 * n * (math.log(2) - apen)
        result = TestResult(
            self.name,
            chi2,
            float(gammaincc(2 ** (m - 1), chi2 / 2)),
            details={"bits": n, "m": m, "ApEn": apen, "phi_m": phi_m, "phi_m+1": phi_m1},
        )
        if n < min_bits:
            result.withhold_verdict(needs)
        return [result]
