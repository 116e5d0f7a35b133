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
  when K >= 55, the standard's minimum for it, and when sequences have at
  least 100,000 bits (shorter ones give p-values on so coarse a lattice that
  a good generator's histogram is not flat);
- otherwise (fewer than 55 sequences, or short ones), where the proportion
  alone cannot reach a small probability (2 sequences both failing at 0.01
  happens 1 time in 10,000), ``pvalue`` is
  the smallest of the K p-values adjusted for K looks (Sidak,
  1 - (1 - p_min)^K), so a generator that fails one sequence badly still
  fails.

With one sequence the test's own results are reported unchanged, so the
standard's single-sequence examples read the same as STS prints them.
Sequences whose result is ``insufficient`` (random excursions with fewer
than 500 cycles, say) are left out of that result's K, as STS does; so are
runs results whose frequency pre-condition failed (STS counts those as
p = 0; the frequency test already judges that bias).  Bits after the last
complete sequence are not tested (``untested_bits`` in the details).  Only
counts, a 10-bin histogram and the smallest p-value are kept per result, so
memory does not grow with the number of sequences.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from randqa.battery import Accumulator
from randqa.results import TestResult, Verdict, insufficient, smallest_of

ALPHA = 0.01
MIN_SEQUENCES_FOR_UNIFORMITY = 55
#: below this many bits per sequence p-values are too discrete for the uniformity check
MIN_BITS_FOR_UNIFORMITY = 100_000


@dataclass
class PValueSummary:
    """What the second-level analysis needs of one result's p-values: the
    counts, STS's 10-bin histogram and the smallest, so memory does not grow
    with the number of sequences."""

    count: int = 0
    passed: int = 0
    histogram: np.ndarray = field(default_factory=lambda: np.zeros(10, dtype=np.int64))
    min_p: float = 1.0

    def add(self, p: float) -> None:
        self.count += 1
        self.passed += p >= ALPHA
        self.histogram[min(int(p * 10), 9) if p > 0 else 0] += 1
        self.min_p = min(self.min_p, p)

    def absorb(self, other: "PValueSummary") -> None:
        self.count += other.count
        self.passed += other.passed
        self.histogram += other.histogram
        self.min_p = min(self.min_p, other.min_p)

    @classmethod
    def of(cls, pvalues: list[float]) -> "PValueSummary":
        summary = cls()
        for p in pvalues:
            summary.add(p)
        return summary


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
        self.summaries: dict[str, PValueSummary] = {}
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
            summary = self.summaries.setdefault(r.name, PValueSummary())
            # results the test itself says do not apply (too little data, the
            # runs test's failed frequency pre-condition) are not counted
            applicable = r.verdict != Verdict.INSUFFICIENT and r.details.get("precondition_passed", True)
            if applicable and r.pvalue is not None:
                summary.add(r.pvalue)
        self.sequences += 1
        self.current = self.factory()
        self.filled = 0

    def _update(self, chunk: np.ndarray) -> None:
        while len(chunk):
            take = min(len(chunk), self.sequence_bytes - self.filled)
            self.current.update(chunk[:take])
            self.filled += take
            chunk = chunk[take:]
            if self.filled == self.sequence_bytes:
                self._close_sequence()

    def _merge(self, other: Accumulator) -> None:
        if self.sequences == 0:
            self.first_results = other.first_results
        for name, summary in other.summaries.items():
            self.summaries.setdefault(name, PValueSummary()).absorb(summary)
        self.sequences += other.sequences
        self.current, self.filled = other.current, other.filled

    def finalize(self) -> list[TestResult]:
        if self.sequences == 0:
            return [insufficient(self.name, f"one complete sequence of {self.sequence_bits} bits")]
        if self.sequences == 1:
            return self.first_results
        uniformity = self.sequence_bits >= MIN_BITS_FOR_UNIFORMITY
        results = [second_level(name, summary, self.sequences, uniformity) for name, summary in self.summaries.items()]
        if self.filled:
            for r in results:
                r.details["untested_bits"] = 8 * self.filled
        return results


def second_level(name: str, summary: PValueSummary, sequences: int, uniformity: bool = True) -> TestResult:
    """STS's proportion and uniformity analysis of one result's p-values."""
    # scipy loads here, not at import: `randqa list`, `generate` and `report` never need it
    from scipy import special, stats

    k = summary.count
    if k == 0:
        return insufficient(name, "sequences on which the test applies", sequences=sequences)
    passed = summary.passed
    proportion = passed / k
    margin = 3 * math.sqrt(ALPHA * (1 - ALPHA) / k)
    details: dict[str, Any] = {
        "sequences": k,
        "passed": passed,
        "proportion": proportion,
        "proportion_interval": [1 - ALPHA - margin, min(1.0, 1 - ALPHA + margin)],
        "proportion_ok": proportion >= 1 - ALPHA - margin,
        "min_p": summary.min_p,
        "histogram": summary.histogram.tolist(),
    }
    # probability that a good generator has at most this many passing sequences
    p_proportion = float(stats.binom.cdf(passed, k, 1 - ALPHA))
    if uniformity and k >= MIN_SEQUENCES_FOR_UNIFORMITY:
        expected = k / 10
        chi2 = float(np.sum((summary.histogram - expected) ** 2) / expected)
        details["uniformity_chi2"] = chi2
        return TestResult(name, proportion, float(special.gammaincc(9 / 2, chi2 / 2)), pvalue_low=p_proportion,
                          details=details)
    p_adjusted = smallest_of(summary.min_p, k)
    details["min_p_adjusted"] = p_adjusted
    return TestResult(name, proportion, p_adjusted, pvalue_low=p_proportion, details=details)
