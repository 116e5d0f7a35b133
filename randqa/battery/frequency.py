"""Frequency (monobit) test, NIST SP 800-22 Rev 1a section 2.1.

Source: A. Rukhin et al., "A Statistical Test Suite for Random and
Pseudorandom Number Generators for Cryptographic Applications", NIST SP
800-22 Rev 1a (2010), section 2.1.

With n bits, S_n = (#ones - #zeros), s_obs = |S_n| / sqrt(n) and
p = erfc(s_obs / sqrt(2)).  Bits are read most significant first in each
byte, as the standard and its reference code read a byte stream.

Parameters: none.  The standard recommends n >= 100 bits; below that the
p-value is still computed (the standard's 10-bit example gives 0.527089)
but the verdict is ``insufficient``.
"""

from __future__ import annotations

import math

import numpy as np

from randqa.battery import _counts
from randqa.battery._shared import BitTotalsTest
from randqa.results import TestResult, insufficient

MIN_BITS = 100


class Frequency(BitTotalsTest):
    name = "frequency"

    def _update(self, chunk: np.ndarray) -> None:
        if self._shared_update(chunk):
            return
        ones, _ = _counts.bit_counts(chunk)
        self.ones += ones
        self.bits += 8 * len(chunk)

    def update_tail_bits(self, bits: np.ndarray) -> None:
        self.ones += int(np.count_nonzero(bits))
        self.bits += len(bits)

    def _merge(self, other: "Frequency") -> None:
        self._shared_merge(other)
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
        result = TestResult(
            name=self.name,
            statistic=s_obs,
            pvalue=math.erfc(s_obs / math.sqrt(2)),
            details={"bits": n, "ones": ones, "S_n": s_n},
        )
        if n < MIN_BITS:
            result.withhold_verdict(f"at least {MIN_BITS} bits (NIST SP 800-22 2.1.7)")
        return [result]
