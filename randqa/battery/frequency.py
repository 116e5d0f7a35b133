"""Frequency (monobit) test, NIST SP 800-22 Rev 1a section 2.1.

Source: A. Rukhin et al., "A Statistical Test Suite for Random and
Pseudorandom Number Generators for Cryptographic Applications", NIST SP
800-22 Rev 1a (2010), section 2.1.

With n bits, S_n = (#ones - #zeros) and the statistic s_obs = |S_n| /
sqrt(n).  Bits are read most significant first in each byte, as the
standard and its reference code read a byte stream.

The p-value, parameter ``pvalues``:

- ``"exact"`` (default): P(|S| >= |S_n|) for S = 2 B - n, B ~ Bin(n, 1/2),
  that is 2 P(B >= max(ones, zeros)) (1 when they are equal).  The
  standard's erfc(s_obs / sqrt(2)) is the normal approximation of it: S_n
  moves in steps of 2 and erfc leaves out about half of the step at S_n,
  5% of the tail at n = 8192 bits (1 KiB) near 1e-6;
- ``"sts"``: the standard's p = erfc(s_obs / sqrt(2)) (the nist-sp800-22
  suite, which reproduces STS's values).

The standard recommends n >= 100 bits; below that the p-value is still
computed (the standard's 10-bit example gives 0.527089) but the verdict is
``insufficient``.
"""

from __future__ import annotations

import math

import numpy as np

from randqa.battery import _counts
from randqa.battery._sharing import BitTotalsTest
from randqa.results import TestResult, insufficient, symmetric_binomial_two_sided

MIN_BITS = 100


class Frequency(BitTotalsTest):
    name = "frequency"

    def _update(self, chunk: np.ndarray) -> None:
        ones, _ = _counts.bit_counts(chunk)
        self.ones += ones
        self.bits += 8 * len(chunk)

    def update_tail_bits(self, bits: np.ndarray) -> None:
        self.ones += int(np.count_nonzero(bits))
        self.bits += len(bits)

    def _merge(self, other: "Frequency") -> None:
        self.ones += other.ones
        self.bits += other.bits

    def finalize(self) -> list[TestResult]:
        n, ones = self.bits, self.ones
        if self.shared is not None:
            pairs = self._statistic()
            n += 8 * pairs.bytes_seen
            ones += pairs.ones_and_transitions()[0]
        if n == 0:
            return [insufficient(self.name, f"at least {MIN_BITS} bits")]
        s_n = 2 * ones - n
        s_obs = abs(s_n) / math.sqrt(n)
        if self.pvalues == "sts":
            pvalue, kind = math.erfc(s_obs / math.sqrt(2)), None
        else:
            pvalue, kind = symmetric_binomial_two_sided(ones, n), "discrete"
        result = TestResult(
            name=self.name,
            statistic=s_obs,
            pvalue=pvalue,
            details={"bits": n, "ones": ones, "S_n": s_n},
            pvalue_kind=kind,
        )
        if n < MIN_BITS:
            result.withhold_verdict(f"at least {MIN_BITS} bits (NIST SP 800-22 2.1.7)")
        return [result]
