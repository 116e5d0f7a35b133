"""Non-overlapping template matching test, NIST SP 800-22 Rev 1a section 2.7.

Source: NIST SP 800-22 Rev 1a (2010), section 2.7 (and 3.7 for the
moments).

The n bits are cut into N blocks of M = n // N bits (the rest is unused).
For an m-bit template B, W_j counts the occurrences of B in block j read
with a window that jumps past each match (non-overlapping).  Under the
hypothesis mu = (M - m + 1) / 2^m and sigma^2 = M (2^-m - (2m - 1) 2^-2m);
chi^2 = sum_j (W_j - mu)^2 / sigma^2 and p = igamc(N/2, chi^2/2).
One result per template, named ``non_overlapping_template[B]``.

Templates must be aperiodic (no proper shift of B overlaps B itself), as
the standard's template library is.  Two occurrences of an aperiodic
template can never overlap, so the jump-past-a-match count equals the plain
count of occurrences that lie inside the block; randqa counts all 2^m
patterns of every block in one pass and reads off each template.

Parameters:
  m          template length (default 9, as recommended)
  templates  list of templates as strings of 0s and 1s (default: all
             aperiodic templates of length m, generated here: 148 for m = 9)
  blocks     N (default 8, as in the STS code; the standard asks N <= 100)
  max_bits   bits kept and tested (default 2^24)

SP 800-22 gives no minimum length for this test (2.7.7 only asks N <= 100
and M > 0.01 n).  The chi-square needs each W_j close to normal, so randqa
reports ``insufficient`` unless mu >= 100 expected matches per block
(n >= 409,664 bits for m = 9, N = 8); the p-value is still computed.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, ClassVar

import numpy as np
from scipy.special import gammaincc

from randqa.battery._bitseq import (
    DEFAULT_MAX_BITS,
    MAX_WINDOW_BITS,
    WholeSequenceTest,
    pattern_count_bytes,
    pattern_counts,
    template_from_string,
)
from randqa.battery.base import RESULT_BYTES, MemoryNeed, Range
from randqa.results import TestResult, insufficient

MIN_EXPECTED_MATCHES = 100


def is_aperiodic(template: str) -> bool:
    """True when no proper shift of ``template`` overlaps it (no border)."""
    m = len(template)
    return all(template[shift:] != template[: m - shift] for shift in range(1, m))


def aperiodic_count(m: int) -> int:
    """How many aperiodic (unbordered) m-bit templates there are, without
    listing them: u(1) = 2, u(2k) = 2 u(2k-1) - u(k), u(2k+1) = 2 u(2k)
    (OEIS A003000; 148 for m = 9, as SP 800-22 lists)."""
    counts = [0, 2]
    for length in range(2, m + 1):
        counts.append(2 * counts[-1] - (counts[length // 2] if length % 2 == 0 else 0))
    return counts[m]


#: a template as a Python string, held twice (the list and the cache of all of them)
_TEMPLATE_BYTES = 2 * 96


@lru_cache(maxsize=None)
def aperiodic_templates(m: int) -> tuple[str, ...]:
    """All aperiodic m-bit templates, in increasing binary order."""
    # v has a border of length k when its top k bits equal its low k bits;
    # tested for every value at once, so m = 21 takes a second, not minutes
    values = np.arange(1 << m, dtype=np.int64)
    unbordered = np.ones(1 << m, dtype=bool)
    for k in range(1, m):
        unbordered &= (values >> (m - k)) != (values & ((1 << k) - 1))
    return tuple(format(int(v), f"0{m}b") for v in np.flatnonzero(unbordered))


class NonOverlappingTemplate(WholeSequenceTest):
    name = "non_overlapping_template"
    # SP 800-22's reference code lists templates up to m = 21; the default
    # set (every aperiodic template) is listed in Python, so longer ones
    # would cost minutes before the run
    parameter_ranges: ClassVar[dict[str, Range]] = {
        **WholeSequenceTest.parameter_ranges,
        "m": Range(2, 21),
        "templates": Range(2, 21, items=1 << 16, text=True),
        "blocks": Range(1, 100),
    }

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        need = super().memory_need(chunk_bytes, stream_bits, **params)
        templates = cls._result_count(cls.with_defaults(params))
        return MemoryNeed(need.held + templates * _TEMPLATE_BYTES, need.working, need.results)

    @classmethod
    def _evaluation_bytes(cls, n: int, params: dict[str, Any]) -> int:
        # per block the pattern counts (a list of them and their stack),
        # the matches of every template in every block, and the results
        # with their per-block counts W
        m, blocks, templates = params["m"], params["blocks"], cls._result_count(params)
        return (16 * blocks * (1 << m) + pattern_count_bytes(n // blocks + 8, m)
                + templates * (8 * blocks + 48 + RESULT_BYTES + 40 * blocks))

    @classmethod
    def _result_count(cls, params: dict[str, Any]) -> int:
        given = params["templates"]
        return aperiodic_count(params["m"]) if given is None else len(given)

    def __init__(
        self,
        *,
        m: int = 9,
        templates: list[str] | None = None,
        blocks: int = 8,
        max_bits: int = DEFAULT_MAX_BITS,
    ) -> None:
        super().__init__(max_bits=max_bits)
        if not isinstance(m, int) or not 2 <= m <= MAX_WINDOW_BITS - 1:
            raise ValueError(f"m must be an integer from 2 to {MAX_WINDOW_BITS - 1}, not {m!r}")
        if not isinstance(blocks, int) or not 1 <= blocks <= 100:
            raise ValueError(f"blocks must be an integer from 1 to 100 (SP 800-22 2.7.7), not {blocks!r}")
        chosen = aperiodic_templates(m) if templates is None else list(templates)
        if not chosen:
            raise ValueError("templates must not be empty")
        if len(set(chosen)) != len(chosen):
            raise ValueError("templates must not repeat")
        for t in chosen:
            template_from_string(t)
            if len(t) != m:
                raise ValueError(f"template {t!r} does not have m = {m} bits")
            if not is_aperiodic(t):
                raise ValueError(f"template {t!r} is periodic: a proper shift overlaps it (SP 800-22 uses aperiodic templates)")
        self.m = m
        self.templates = None if templates is None else list(templates)
        self.blocks = blocks
        self._chosen = list(chosen)

    def _evaluate(self, packed: np.ndarray, n: int) -> list[TestResult]:
        m, N = self.m, self.blocks
        M = n // N
        mu = (M - m + 1) / 2**m
        variance = M * (2.0**-m - (2 * m - 1) * 2.0 ** (-2 * m))
        min_bits = N * (MIN_EXPECTED_MATCHES * 2**m + m - 1)
        needs = (
            f"at least {min_bits} bits ({MIN_EXPECTED_MATCHES} expected matches per block; "
            "SP 800-22 2.7.7 sets no minimum)"
        )
        if M < m:
            return [insufficient(f"{self.name}[{t}]", needs, bits=n) for t in self._chosen]
        counts = np.stack([pattern_counts(packed, j * M, j * M + M - m + 1, m) for j in range(N)])
        codes = np.array([int(t, 2) for t in self._chosen])
        matches = counts[:, codes]  # W_j per block (rows) and template (columns)
        chi2 = ((matches - mu) ** 2).sum(axis=0) / variance
        pvalues = gammaincc(N / 2, chi2 / 2)
        results = []
        for i, t in enumerate(self._chosen):
            result = TestResult(
                name=f"{self.name}[{t}]",
                statistic=float(chi2[i]),
                pvalue=float(pvalues[i]),
                details={"bits": n, "blocks": N, "block_bits": M, "mu": mu, "sigma2": variance, "W": matches[:, i].tolist()},
            )
            if n < min_bits:
                result.withhold_verdict(needs)
            results.append(result)
        return results
