"""Per-sequence testing with NIST SP 800-22's second-level analysis.

A suite entry with ``sequence_bits = n`` cuts the stream into consecutive
sequences of n bits, runs a fresh accumulator of the test on each, and judges
the K p-values each result name collected, as NIST STS's finalAnalysisReport
does (SP 800-22 Rev 1a, section 4.2):

- proportion: the fraction of sequences with p >= alpha (0.01), with the
  standard's interval (1 - alpha) +/- 3 sqrt(alpha (1 - alpha) / K); randqa
  also gives the exact binomial probability of so few passing sequences as
  ``pvalue_low``, so the verdict uses the suite's thresholds like every
  other result;
- uniformity: the p-values binned into 10 equal bins, chi-square with 9
  degrees of freedom, P-value_T = igamc(9/2, chi^2/2) (``pvalue``); computed
  when K >= 55, the standard's minimum for it;
- below 55 sequences, where neither analysis can reach a small probability
  (2 sequences both failing at 0.01 happens 1 time in 10,000), ``pvalue`` is
  the smallest of the K p-values adjusted for K looks (Sidak,
  1 - (1 - p_min)^K), so a generator that fails one sequence badly still
  fails.

With one sequence the test's own results are reported unchanged, so the
standard's single-sequence examples read the same as STS prints them.
Sequences whose result is ``insufficient`` (random excursions with fewer
than 500 cycles, say) are left out of that result's K, as STS does; so are
runs results whose frequency pre-condition failed (STS counts those as
p = 0; the frequency test already judges that bias).  Bits
after the last complete sequence are not tested.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special, stats

from randqa.battery import Accumulator
from randqa.results import TestResult, insufficient

ALPHA = 0.01
MIN_SEQUENCES_FOR_UNIFORMITY = 55


class PerSequence(Accumulator):
    """Runs ``factory()`` afresh on every ``sequence_bits``-bit sequence."""

    def __init__(self, factory: Any, sequence_bits: int, params: dict[str, Any] | None = None) -> None:
        super().__init__()
        if sequence_bits <= 0 or sequence_bits % 8:
            raise ValueError(f"sequence_bits must be a positive multiple of 8, not {sequence_bits!r}")
        self.factory = factory
        self.sequence_bits = sequence_bits
        self.sequence_bytes = sequence_bits // 8
        self._params = dict(params or {}, sequence_bits=sequence_bits)
        self.current = factory()
        self.name = self.current.name
        self.filled = 0  # bytes of the current sequence
        self.sequences = 0
        self.pvalues: dict[str, list[float]] = {}
        self.first_results: list[TestResult] = []

    def parameters(self) -> dict[str, Any]:
        return self._params

    @property
    def alignment(self) -> int:
        return self.sequence_bytes

    def _close_sequence(self) -> None:
        results = self.current.finalize()
        if self.sequences == 0:
            self.first_results = results
        for r in results:
            # results the test itself says do not apply (too little data, the
            # runs test's failed frequency pre-condition) are not counted
            applicable = r.verdict != "insufficient" and r.details.get("precondition_passed", True)
            if applicable and r.pvalue is not None:
                self.pvalues.setdefault(r.name, []).append(r.pvalue)
            else:
                self.pvalues.setdefault(r.name, [])
        self.sequences += 1
        self.current = self.factory()
        self.filled = 0

    def update(self, chunk: np.ndarray) -> None:
        self.bytes_seen += len(chunk)
        while len(chunk):
            take = min(len(chunk), self.sequence_bytes - self.filled)
            self.current.update(chunk[:take])
            self.filled += take
            chunk = chunk[take:]
            if self.filled == self.sequence_bytes:
                self._close_sequence()

    def merge(self, other: Accumulator) -> None:
        self._check_mergeable(other)
        if self.sequences == 0:
            self.first_results = other.first_results
        for name, values in other.pvalues.items():
            self.pvalues.setdefault(name, []).extend(values)
        self.sequences += other.sequences
        self.current, self.filled = other.current, other.filled
        self.bytes_seen += other.bytes_seen

    def finalize(self) -> list[TestResult]:
        if self.sequences == 0:
            return [insufficient(self.name, f"one complete sequence of {self.sequence_bits} bits")]
        if self.sequences == 1:
            return self.first_results
        return [second_level(name, values, self.sequences) for name, values in self.pvalues.items()]


def second_level(name: str, pvalues: list[float], sequences: int) -> TestResult:
    """STS's proportion and uniformity analysis of one result's p-values."""
    k = len(pvalues)
    if k == 0:
        return insufficient(name, "sequences on which the test applies", sequences=sequences)
    passed = sum(p >= ALPHA for p in pvalues)
    proportion = passed / k
    margin = 3 * math.sqrt(ALPHA * (1 - ALPHA) / k)
    details: dict[str, Any] = {
        "sequences": k,
        "passed": passed,
        "proportion": proportion,
        "proportion_interval": [1 - ALPHA - margin, min(1.0, 1 - ALPHA + margin)],
        "proportion_ok": proportion >= 1 - ALPHA - margin,
    }
    # probability that a good generator has at most this many passing sequences
    p_proportion = float(stats.binom.cdf(passed, k, 1 - ALPHA))
    p_min = min(pvalues)
    details["min_p"] = p_min
    if k >= MIN_SEQUENCES_FOR_UNIFORMITY:
        bins = np.histogram(np.clip(pvalues, 0.0, 1.0), bins=10, range=(0.0, 1.0))[0]
        expected = k / 10
        chi2 = float(np.sum((bins - expected) ** 2) / expected)
        p_uniform = float(special.gammaincc(9 / 2, chi2 / 2))
        details["uniformity_chi2"] = chi2
        details["histogram"] = bins.tolist()
        return TestResult(name, proportion, p_uniform, pvalue_low=p_proportion, details=details)
    # Sidak-adjusted smallest p-value, computed stably when p_min is tiny
    p_adjusted = float(-math.expm1(k * math.log1p(-p_min))) if p_min < 1 else 1.0
    details["min_p_adjusted"] = p_adjusted
    return TestResult(name, proportion, p_adjusted, pvalue_low=p_proportion, details=details)
