"""Overlapping template matching test, NIST SP 800-22 Rev 1a section 2.8.

Source: NIST SP 800-22 Rev 1a (2010), sections 2.8 and 3.8; the corrected
class probabilities in 3.8 are from K. Hamano and T. Kaneko, "Correction of
overlapping template matching test included in NIST randomness test suite",
IEICE Trans. Fundamentals E90-A (2007) 1788-1792.

The n bits are cut into N = n // M blocks of M bits.  In each block the
m-bit template B (default: m ones) is counted at every position, matches
may overlap.  nu_i = number of blocks with i matches (i = 0..K-1), nu_K =
blocks with K or more; chi^2 = sum (nu_i - N pi_i)^2 / (N pi_i) and
p = igamc(K/2, chi^2/2).

Class probabilities pi_i (``probabilities``):
  "exact"  (default) the exact distribution of the number of (overlapping)
           occurrences of B in M random bits, computed by running the
           pattern's matching automaton over M bits.  For m = 9, M = 1032,
           K = 5 it gives Rev 1a's corrected values 0.364091 0.185659
           0.139381 0.100571 0.070432 0.139865 to every printed digit.
  "sts"    the approximation of section 3.8, pi_0 = e^-eta and
           pi_u = e^-eta 2^-u sum_{l=1..u} C(u-1, l-1) eta^l / l!, with
           eta = (M - m + 1) / 2^(m+1): what the worked examples (2.8.4,
           2.8.8), Appendix B (0.110434 for e) and the STS 2.1.2 code use.
           It is only asymptotically right (for e it gives 0.110434 where
           the exact probabilities give 0.159037).

Parameters:
  m              template length (default 9)
  template       the template as a string of 0s and 1s (default m ones)
  block_bits     M (default 1032)
  degrees_of_freedom  K (default 5)
  probabilities  "exact" or "sts" (default "exact")
  max_bits       bits kept and tested (default 2^24)

SP 800-22 2.8.7 asks for n >= 10^6 bits (and N min pi_i > 5); shorter
input is ``insufficient`` (the p-value is still computed).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np
from scipy.special import gammaincc

from randqa.battery._bitseq import (
    DEFAULT_MAX_BITS,
    MAX_WINDOW_BITS,
    SLICE_BITS,
    WholeSequenceTest,
    template_from_string,
    window_values,
)
from randqa.battery.base import Range
from randqa.results import TestResult, insufficient

MIN_BITS = 10**6
MIN_EXPECTED_PER_CLASS = 5


@lru_cache(maxsize=64)
def exact_probabilities(template: str, block_bits: int, classes: int) -> tuple[float, ...]:
    """P(a block of ``block_bits`` random bits holds exactly i overlapping
    matches of ``template``), i = 0..classes-2, and P(>= classes-1) last."""
    m = len(template)
    # failure function of the template (longest proper border of each prefix)
    border = [0] * (m + 1)
    k = 0
    for i in range(1, m):
        while k and template[i] != template[k]:
            k = border[k]
        if template[i] == template[k]:
            k += 1
        border[i + 1] = k

    def advance(state: int, bit: str) -> int:
        if state == m:
            state = border[m]
        while state and template[state] != bit:
            state = border[state]
        return state + 1 if template[state] == bit else 0

    # Markov chain on (matched-prefix length s, min(matches, classes - 1));
    # the top class absorbs further matches
    top = classes - 1
    size = (m + 1) * classes
    step = np.zeros((size, size))
    for s in range(m + 1):
        for bit in "01":
            t = advance(s, bit)
            for c in range(classes):
                c_next = min(c + 1, top) if t == m else c
                step[s * classes + c, t * classes + c_next] += 0.5
    start = np.zeros(size)
    start[0] = 1.0
    dist = start @ np.linalg.matrix_power(step, block_bits)
    return tuple(float(p) for p in dist.reshape(m + 1, classes).sum(axis=0))


def sts_probabilities(m: int, block_bits: int, classes: int) -> tuple[float, ...]:
    """The approximate pi_i of SP 800-22 section 3.8 (and the STS code)."""
    eta = (block_bits - m + 1) / 2**m / 2
    pi = [math.exp(-eta)]
    for u in range(1, classes - 1):
        pi.append(math.exp(-eta) / 2**u * sum(math.comb(u - 1, l - 1) * eta**l / math.factorial(l) for l in range(1, u + 1)))
    pi.append(1.0 - sum(pi))
    return tuple(pi)


class OverlappingTemplate(WholeSequenceTest):
    name = "overlapping_template"
    parameter_ranges: ClassVar[dict[str, Range]] = {
        **WholeSequenceTest.parameter_ranges,
        "m": Range(1, MAX_WINDOW_BITS),
        "template": Range(1, MAX_WINDOW_BITS, text=True),
        "block_bits": Range(1, 1 << 26),
        # the exact probabilities raise a ((m+1)(K+1))^2 matrix to the power M
        "degrees_of_freedom": Range(1, 20),
        "probabilities": Range(1, 8, text=True),
    }

    @classmethod
    def _evaluation_bytes(cls, n: int, params: dict[str, Any]) -> int:
        # a slice of whole blocks read as m-bit windows (4 bytes per bit, and
        # their 32-bit words), compared with the template (1 byte per bit),
        # and the Markov chain's matrix with its powers
        size = (params["m"] + 1) * (params["degrees_of_freedom"] + 1)
        return 12 * min(n, max(params["block_bits"], SLICE_BITS)) + 32 * size * size

    def __init__(
        self,
        *,
        m: int = 9,
        template: str | None = None,
        block_bits: int = 1032,
        degrees_of_freedom: int = 5,
        probabilities: str = "exact",
        max_bits: int = DEFAULT_MAX_BITS,
    ) -> None:
        super().__init__(max_bits=max_bits)
        if not isinstance(m, int) or not 1 <= m <= MAX_WINDOW_BITS:
            raise ValueError(f"m must be an integer from 1 to {MAX_WINDOW_BITS}, not {m!r}")
        if template is not None:
            template_from_string(template)
            if len(template) != m:
                raise ValueError(f"template {template!r} does not have m = {m} bits")
        if not isinstance(block_bits, int) or block_bits < m:
            raise ValueError(f"block_bits must be an integer of at least m = {m}, not {block_bits!r}")
        if not isinstance(degrees_of_freedom, int) or degrees_of_freedom < 1:
            raise ValueError(f"degrees_of_freedom must be a positive integer, not {degrees_of_freedom!r}")
        if probabilities not in ("exact", "sts"):
            raise ValueError(f"probabilities must be 'exact' or 'sts', not {probabilities!r}")
        self.m = m
        self.template = template
        self.block_bits = block_bits
        self.degrees_of_freedom = degrees_of_freedom
        self.probabilities = probabilities
        self._template = template if template is not None else "1" * m

    def class_probabilities(self) -> tuple[float, ...]:
        """pi_0 .. pi_K for this instance's template, M, K and method."""
        classes = self.degrees_of_freedom + 1
        if self.probabilities == "sts":
            return sts_probabilities(self.m, self.block_bits, classes)
        return exact_probabilities(self._template, self.block_bits, classes)

    def _evaluate(self, packed: np.ndarray, n: int) -> list[TestResult]:
        M, m, K = self.block_bits, self.m, self.degrees_of_freedom
        N = n // M
        needs = f"at least {MIN_BITS} bits (NIST SP 800-22 2.8.7)"
        if N == 0:
            return [insufficient(self.name, needs, bits=n)]
        code = np.uint32(int(self._template, 2))
        nu = np.zeros(K + 1, dtype=np.int64)
        per_slice = max(1, SLICE_BITS // M)
        for first in range(0, N, per_slice):
            last = min(N, first + per_slice)
            values = window_values(packed, first * M, last * M, m).reshape(last - first, M)
            matches = np.count_nonzero(values[:, : M - m + 1] == code, axis=1)
            nu += np.bincount(np.minimum(matches, K), minlength=K + 1)
        pi = np.array(self.class_probabilities())
        expected = N * pi
        chi2 = float(((nu - expected) ** 2 / expected).sum())
        result = TestResult(
            name=self.name,
            statistic=chi2,
            pvalue=float(gammaincc(K / 2, chi2 / 2)),
            details={"bits": n, "blocks": N, "template": self._template, "nu": nu.tolist(), "pi": pi.tolist()},
        )
        if n < MIN_BITS or expected.min() <= MIN_EXPECTED_PER_CLASS:
            result.withhold_verdict(f"{needs} and N min(pi_i) > {MIN_EXPECTED_PER_CLASS}")
        return [result]
