"""Cumulative sums (cusum) test, NIST SP 800-22 Rev 1a section 2.13.

Source: NIST SP 800-22 Rev 1a (2010), sections 2.13 and 3.13; the
distribution of the maximum of a random walk from W. Feller, "An
Introduction to Probability Theory and Its Applications", vol. 1, and
P. Revesz, "Random Walk in Random and Non-Random Environments" (1990).

Bits become steps X = 2 bit - 1 and S_k is the sum of the first k steps
(forward) or of the last k steps (backward); z = max_k |S_k| over
k = 1..n and
  p = 1 - sum_{k=ceil((-n/z+1)/4)}^{floor((n/z-1)/4)} [Phi((4k+1)z/sqrt n) - Phi((4k-1)z/sqrt n)]
        + sum_{k=ceil((-n/z-3)/4)}^{floor((n/z-1)/4)} [Phi((4k+3)z/sqrt n) - Phi((4k+1)z/sqrt n)]
(the summation limits are the integers inside the standard's bounds,
which is what the STS code's integer arithmetic gives).  The backward
maximum is max(S_n - min_j S_j, max_j S_j - S_n) over j = 0..n, so one
pass over the walk gives both.  The k = 0 term is evaluated through the
normal survival function, so small p-values keep their precision.

Results: ``cumulative_sums[forward]`` and ``cumulative_sums[backward]``.

Parameters:
  max_bits  bits kept and tested (default 2^24)

SP 800-22 2.13.7 asks for n >= 100 bits; shorter input is ``insufficient``
(the p-values are still computed).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import ndtr

from randqa.battery._bitseq import WholeSequenceTest, walk, walk_bytes
from randqa.results import TestResult, insufficient

MIN_BITS = 100

#: |x| beyond which Phi(x) is 0 or 1 in double precision
_NORMAL_RANGE = 40.0


def _normal_mass(lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """P(lower < Z < upper) for a standard normal Z, elementwise, computed on
    the tail that keeps precision."""
    return np.where(lower >= 0, ndtr(-lower) - ndtr(-upper), ndtr(upper) - ndtr(lower))


def cusum_pvalue(n: int, z: int) -> float:
    """p-value of a maximal excursion z of an n-step walk (SP 800-22 2.13.4 step 4)."""
    if z <= 0:
        return 1.0
    root = math.sqrt(n)
    # integers k inside the standard's bounds, trimmed to where Phi still moves
    reach = int(_NORMAL_RANGE * root / z / 4) + 2
    k_top = min((n - z) // (4 * z), reach)
    k1 = np.arange(max(-((n - z) // (4 * z)), -reach), k_top + 1)
    k2 = np.arange(max(-((n + 3 * z) // (4 * z)), -reach), k_top + 1)
    first = _normal_mass((4 * k1 - 1) * z / root, (4 * k1 + 1) * z / root)
    second = _normal_mass((4 * k2 + 1) * z / root, (4 * k2 + 3) * z / root)
    # 1 - (k = 0 term) is the two-sided normal tail beyond z / sqrt n
    outside = 2 * ndtr(-z / root) - first[k1 != 0].sum() + second.sum()
    return float(min(1.0, max(0.0, outside)))


class CumulativeSums(WholeSequenceTest):
    name = "cumulative_sums"

    @classmethod
    def _evaluation_bytes(cls, n: int, params: dict[str, Any]) -> int:
        return walk_bytes(n)

    @classmethod
    def _result_count(cls, params: dict[str, Any]) -> int:
        return 2

    def _evaluate(self, packed: np.ndarray, n: int) -> list[TestResult]:
        needs = f"at least {MIN_BITS} bits (NIST SP 800-22 2.13.7)"
        if n == 0:
            return [insufficient(f"{self.name}[{mode}]", needs, bits=0) for mode in ("forward", "backward")]
        highest = lowest = 0  # over S_0 = 0 .. S_n
        for sums in walk(packed, n):
            highest = max(highest, int(sums.max()))
            lowest = min(lowest, int(sums.min()))
        final = int(sums[-1])
        excursions = {"forward": max(highest, -lowest), "backward": max(final - lowest, highest - final)}
        results = []
        for mode, z in excursions.items():
            result = TestResult(f"{self.name}[{mode}]", float(z), cusum_pvalue(n, z), details={"bits": n, "z": z})
            if n < MIN_BITS:
                result.withhold_verdict(needs)
            results.append(result)
        return results
