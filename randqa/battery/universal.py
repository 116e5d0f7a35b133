"""Maurer's "universal statistical" test, NIST SP 800-22 Rev 1a section 2.9.

Sources: NIST SP 800-22 Rev 1a (2010), section 2.9 (table of L, Q by n in
2.9.7, expected values and variances in 2.9.4); U. Maurer, "A universal
statistical test for random bit generators", J. Cryptology 5 (1992); the
correction factor c of J.-S. Coron and D. Naccache (1998) as the standard
states it.

The n bits are cut into blocks of L bits.  The first Q blocks initialise a
table of the last position of every L-bit value; for each of the K =
floor(n / L) - Q remaining blocks (numbered i = Q + 1 ..) the test adds
log2(i - last position of its value).  f_n = sum / K,
c = 0.7 - 0.8 / L + (4 + 32 / L) K^(-3 / L) / 15,
sigma = c sqrt(variance(L) / K), p = erfc(|f_n - expectedValue(L)| / (sqrt 2 sigma)).
Bits are read most significant first in each byte.

L follows n as in the standard's table (n >= 1010 * 2^L * L: L = 6 from
387,840 bits, 7 from 904,960, ... 16 from 1,059,061,760) and Q = 10 * 2^L;
both may be set instead (parameters ``L`` and ``Q``).  The standard asks
for Q >= 10 * 2^L and K >= 1000 * 2^L; with fewer blocks the p-value is
still computed but the verdict is ``insufficient``.

The block size depends on n, so the accumulator keeps the first ``max_bits``
bits (default 2**24: L <= 10) and tests those; further input is counted, not
tested, and ``details`` says so.

Parameters:
  L         bits per block (default: from n, as the standard's table)
  Q         initialisation blocks (default 10 * 2^L; needs L)
  max_bits  bits kept and tested (default 2**24)

The standard's 20-bit example (01011010011101010111, L = 2, Q = 4) gives
f_n = 1.1949875; its printed p-value 0.767189 takes sigma = sqrt(variance(2))
without c and K, which this test does not (its sigma is the 2.9.4 formula).
The whole test reproduces the Appendix B value 0.282568 for the first 10^6
bits of e.  (The 2.9.8 example is on the reference code's SHA-1 generator
output, which randqa does not have.)
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from randqa.battery import _nist
from randqa.battery._bitseq import DEFAULT_MAX_BITS, MAX_KEPT_BITS, WholeSequenceTest
from randqa.battery.base import Range
from randqa.results import TestResult, insufficient

#: expectedValue(L) and variance(L) of SP 800-22 2.9.4, for L = 1 .. 16
EXPECTED_VALUE = {
    1: 0.7326495, 2: 1.5374383, 3: 2.4016068, 4: 3.3112247, 5: 4.2534266, 6: 5.2177052,
    7: 6.1962507, 8: 7.1836656, 9: 8.1764248, 10: 9.1723243, 11: 10.170032, 12: 11.168765,
    13: 12.168070, 14: 13.167693, 15: 14.167488, 16: 15.167379,
}  # fmt: skip
VARIANCE = {
    1: 0.690, 2: 1.338, 3: 1.901, 4: 2.358, 5: 2.705, 6: 2.954, 7: 3.125, 8: 3.238,
    9: 3.311, 10: 3.356, 11: 3.384, 12: 3.401, 13: 3.410, 14: 3.416, 15: 3.419, 16: 3.421,
}  # fmt: skip

SMALLEST_TABLE_L = 6


def min_bits(L: int) -> int:
    """Bits for Q = 10 * 2^L initial and K = 1000 * 2^L test blocks of L bits (SP 800-22 2.9.7)."""
    return 1010 * 2**L * L


def standard_L(n: int) -> int | None:
    """The standard's L for n bits, or None below 387,840 bits."""
    fitting = [L for L in range(SMALLEST_TABLE_L, 17) if min_bits(L) <= n]
    return fitting[-1] if fitting else None


class Universal(WholeSequenceTest):
    name = "universal"
    parameter_ranges: ClassVar[dict[str, Range]] = {
        **WholeSequenceTest.parameter_ranges, "L": Range(1, 16), "Q": Range(1, MAX_KEPT_BITS)}

    @classmethod
    def _evaluation_bytes(cls, n: int, params: dict[str, Any]) -> int:
        return 8 << 16  # the kernel's table of the last position of every L-bit block

    def __init__(self, *, L: int | None = None, Q: int | None = None, max_bits: int = DEFAULT_MAX_BITS) -> None:
        super().__init__(max_bits=max_bits)
        if L is not None and L not in EXPECTED_VALUE:
            raise ValueError(f"L must be between 1 and 16 (the standard's table), not {L!r}")
        if Q is not None and not (isinstance(Q, int) and Q >= 1):
            raise ValueError(f"Q must be a positive integer, not {Q!r}")
        if Q is not None and L is None:
            raise ValueError("Q needs L: the standard's table sets both from n")
        self.L = L
        self.Q = Q

    def _evaluate(self, packed: np.ndarray, n: int) -> list[TestResult]:
        L = self.L if self.L is not None else standard_L(n)
        if L is None:
            return [insufficient(self.name, f"at least {min_bits(SMALLEST_TABLE_L)} bits (NIST SP 800-22 2.9.7)", bits=n)]
        Q = self.Q if self.Q is not None else 10 * 2**L
        K, log_sum = _nist.universal_sum(packed, n, L, Q)
        needs = f"Q >= {10 * 2**L} initial and K >= {1000 * 2**L} test blocks of L = {L} bits (NIST SP 800-22 2.9.7)"
        if K < 1:
            return [insufficient(self.name, needs, bits=n, L=L, Q=Q)]
        f_n = log_sum / K
        c = 0.7 - 0.8 / L + (4 + 32 / L) * K ** (-3 / L) / 15
        sigma = c * math.sqrt(VARIANCE[L] / K)
        p = math.erfc(abs(f_n - EXPECTED_VALUE[L]) / (math.sqrt(2) * sigma))
        details = {"bits": n, "L": L, "Q": Q, "K": K, "f_n": f_n, "expected": EXPECTED_VALUE[L], "c": c, "sigma": sigma}
        result = TestResult(name=self.name, statistic=f_n, pvalue=p, details=details)
        if Q < 10 * 2**L or K < 1000 * 2**L:
            result.withhold_verdict(needs)
        return [result]
