"""Runs test, NIST SP 800-22 Rev 1a section 2.3.

Source: NIST SP 800-22 Rev 1a (2010), section 2.3.

With n bits, pi = #ones / n and the statistic V_n = 1 + T, T the number of
adjacent unequal bit pairs.  Bits are read most significant first in each
byte.

The p-value, parameter ``pvalues``:

- ``"exact"`` (default): for independent fair bits the n - 1 indicators
  "bit i differs from bit i + 1" are independent fair coins, so T ~
  Bin(n - 1, 1/2) exactly, whatever the share of ones; p = P(|T' - (n-1)/2|
  >= |T - (n-1)/2|) for T' of that law (1 when T is the centre).  No
  pre-condition is needed: a bias is the frequency test's to judge;
- ``"sts"``: the standard's p = erfc(|V_n - 2 n pi (1 - pi)| / (2 sqrt(2n)
  pi (1 - pi))), the normal approximation of the runs' law given pi (the
  nist-sp800-22 suite).  It is only applicable when |pi - 1/2| < tau =
  2 / sqrt(n); when that does not hold the standard sets the p-value to
  0.0, and randqa does the same (``pvalue_kind`` "not_applicable": no
  tail probability), reports the pre-condition in ``details``
  and gives the verdict ``suspicious`` rather than ``fail``: a bias of that
  size (four standard deviations) is the frequency test's to judge, and
  happens to a good generator about 6 times in 100,000.

The standard asks for n >= 100 bits; shorter input is ``insufficient``.
"""

from __future__ import annotations

import math

import numpy as np

from randqa.battery import _counts
from randqa.battery._sharing import BitTotalsTest
from randqa.results import TestResult, Verdict, insufficient, symmetric_binomial_two_sided

MIN_BITS = 100


class Runs(BitTotalsTest):
    name = "runs"

    def __init__(self, *, pvalues: str = "exact") -> None:
        super().__init__(pvalues=pvalues)
        self.transitions = 0
        self.first_bit: int | None = None
        self.last_bit: int | None = None

    def _absorb(self, bits: int, ones: int, transitions: int, first: int, last: int) -> None:
        if bits == 0:
            return
        if self.last_bit is None:
            self.first_bit = first
        else:
            transitions += self.last_bit != first
        self.bits += bits
        self.ones += ones
        self.transitions += transitions
        self.last_bit = last

    def _update(self, chunk: np.ndarray) -> None:
        ones, transitions = _counts.bit_counts(chunk)
        self._absorb(8 * len(chunk), ones, transitions, int(chunk[0]) >> 7, int(chunk[-1]) & 1)

    def update_tail_bits(self, bits: np.ndarray) -> None:
        if len(bits) == 0:
            return
        bits = bits.astype(np.int8)
        transitions = int(np.count_nonzero(np.diff(bits)))
        self._absorb(len(bits), int(bits.sum()), transitions, int(bits[0]), int(bits[-1]))

    def _merge(self, other: "Runs") -> None:
        self._absorb(other.bits, other.ones, other.transitions, other.first_bit, other.last_bit)

    def _totals(self) -> tuple[int, int, int]:
        """Bits, ones and adjacent differing bits of everything seen."""
        if self.shared is None:
            return self.bits, self.ones, self.transitions
        pairs = self._statistic()
        bits = 8 * pairs.bytes_seen
        ones, transitions = pairs.ones_and_transitions()
        if self.bits and bits:  # the bytes' last bit and the first of the final bits
            transitions += (pairs.last_byte & 1) != self.first_bit
        return bits + self.bits, ones + self.ones, transitions + self.transitions

    def finalize(self) -> list[TestResult]:
        n, ones, transitions = self._totals()
        needs = f"at least {MIN_BITS} bits (NIST SP 800-22 2.3.7)"
        if n < MIN_BITS:
            return [insufficient(self.name, needs, bits=n)]
        v_obs = transitions + 1
        if self.pvalues == "exact":
            p = symmetric_binomial_two_sided(transitions, n - 1)
            return [TestResult(self.name, float(v_obs), p, details={"bits": n, "V_n": v_obs}, pvalue_kind="discrete")]
        pi = ones / n
        tau = 2 / math.sqrt(n)
        details = {"bits": n, "pi": pi, "tau": tau, "V_n": v_obs, "precondition_passed": abs(pi - 0.5) < tau}
        if not details["precondition_passed"]:
            details["note"] = "frequency pre-condition |pi - 1/2| < tau failed; test not applicable, p-value 0 as in SP 800-22"
            # the standard's 0 is no tail probability: kept out of the report's uniformity check
            return [TestResult(self.name, float(v_obs), 0.0, verdict=Verdict.SUSPICIOUS, details=details,
                               pvalue_kind="not_applicable")]
        p = math.erfc(abs(v_obs - 2 * n * pi * (1 - pi)) / (2 * math.sqrt(2 * n) * pi * (1 - pi)))
        return [TestResult(self.name, float(v_obs), p, details=details)]
