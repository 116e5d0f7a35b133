"""Result objects (scipy.stats style: ``statistic`` and ``pvalue``) and verdicts.

A test's p-value is the probability, under the hypothesis that the bytes are
independent and uniform, of a statistic at least as extreme as the one seen.
Tests whose statistic is also suspicious when it is *too* good (a chi-square
near zero, too few birthday collisions) report the lower tail as well in
``pvalue_low``; the verdict then looks at both tails.

Verdicts, for thresholds ``fail`` < ``suspicious`` (suite data, defaults
1e-6 and 1e-3):

- ``fail``        a tail probability below ``fail``;
- ``suspicious``  a tail probability below ``suspicious``;
- ``pass``        otherwise;
- ``insufficient`` too little data for the test's distribution to hold:
  never a pass or a fail; ``needs`` says how much it wants.

A good generator fails one test with probability at most ``fail`` per tail
checked, so a suite of m tail checks fails at most m * fail of the time
(Bonferroni): 8 checks at 1e-6 is below 1 in 100,000 runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from randqa._version import __version__

class Verdict(StrEnum):
    """A result's verdict.  Declared in the order reports list them, what
    needs attention first; ``severity`` ranks them for the overall verdict
    (a pass outranks insufficient data, so a run with both passes).

    A ``str`` (``Verdict.PASS == "pass"``), so JSON documents hold the plain word.
    """

    FAIL = "fail"
    SUSPICIOUS = "suspicious"
    INSUFFICIENT = "insufficient"
    PASS = "pass"

    @property
    def severity(self) -> int:
        """0 for insufficient, 1 pass, 2 suspicious, 3 fail."""
        return _SEVERITY[self]


_SEVERITY = {Verdict.INSUFFICIENT: 0, Verdict.PASS: 1, Verdict.SUSPICIOUS: 2, Verdict.FAIL: 3}


@dataclass(frozen=True)
class Thresholds:
    """p-value levels below which a result is suspicious or a failure."""

    suspicious: float = 1e-3
    fail: float = 1e-6

    def __post_init__(self) -> None:
        if not (0.0 < self.fail < self.suspicious < 1.0):
            raise ValueError(f"thresholds need 0 < fail < suspicious < 1, got fail={self.fail}, suspicious={self.suspicious}")


@dataclass
class TestResult:
    """The outcome of one statistical test (or one part of a multi-part test)."""

    __test__ = False  # not a pytest test class

    name: str
    statistic: float | None
    pvalue: float | None
    pvalue_low: float | None = None
    verdict: Verdict | None = None
    needs: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def withhold_verdict(self, needs: str) -> None:
        """Keep the statistic and p-value but give no verdict: the test had
        too little data for its distribution to hold (``needs`` says how much)."""
        self.verdict = Verdict.INSUFFICIENT
        self.needs = needs

    def tail_probability(self) -> float | None:
        """The smallest tail probability this result carries, for the verdict."""
        if self.pvalue is None:
            return None
        if self.pvalue_low is None:
            return self.pvalue
        return min(self.pvalue, self.pvalue_low)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "TestResult":
        """The result a ``tests`` entry of a JSON document describes (``to_json``'s inverse)."""
        verdict = data.get("verdict")
        return cls(name=data["name"], statistic=data.get("statistic"), pvalue=data.get("p_value"),
                   pvalue_low=data.get("p_value_low"), verdict=None if verdict is None else Verdict(verdict),
                   needs=data.get("needs"), details=dict(data.get("details") or {}))

    def to_json(self) -> dict[str, Any]:
        """The ``tests`` entry of the JSON document (non-finite numbers as null)."""
        data: dict[str, Any] = {
            "name": self.name,
            "statistic": _json_number(self.statistic),
            "p_value": _json_number(self.pvalue),
            "verdict": self.verdict,
        }
        if self.pvalue_low is not None:
            data["p_value_low"] = _json_number(self.pvalue_low)
        if self.needs is not None:
            data["needs"] = self.needs
        if self.details:
            data["details"] = _json_safe(self.details)
        return data


def insufficient(name: str, needs: str, **details: Any) -> TestResult:
    """A result that gives no verdict because the test needs more data."""
    return TestResult(name=name, statistic=None, pvalue=None, verdict=Verdict.INSUFFICIENT, needs=needs, details=details)


def pearson_statistic(observed: Any, expected: Any) -> float:
    """Pearson's X^2 = sum (observed - expected)^2 / expected over the classes."""
    import numpy as np

    return float(np.sum((observed - expected) ** 2 / expected))


def chi_square_result(name: str, statistic: float, dof: int, details: dict[str, Any] | None = None, *,
                      lower_tail: bool = True) -> TestResult:
    """A chi-square statistic with ``dof`` degrees of freedom: ``pvalue`` the
    upper tail, and ``pvalue_low`` the lower (a fit too good to be random)
    unless ``lower_tail`` is False, for tests whose standard judges the
    upper tail only (NIST SP 800-22's)."""
    return TestResult(
        name=name,
        statistic=statistic,
        pvalue=chi_square_sf(statistic, dof),
        pvalue_low=chi_square_cdf(statistic, dof) if lower_tail else None,
        details=details or {},
    )


# ---- tail probabilities -----------------------------------------------------
# The values of scipy.stats.chi2.sf/cdf, norm.sf and poisson.sf/cdf, bit for
# bit: those call the scipy.special functions used here, after argument
# checks whose outcomes are written out below.  scipy.special loads in about
# a fifth of the time scipy.stats takes, which is most of randqa's start-up.
# scipy is imported on first use, so `randqa list`, `generate` and `report`
# never load it.

def chi_square_sf(statistic: float, dof: int) -> float:
    """P(X >= statistic) for X chi-square with ``dof`` > 0 degrees of freedom."""
    return _chi_square_tail(statistic, dof, upper=True)


def chi_square_cdf(statistic: float, dof: int) -> float:
    """P(X <= statistic) for X chi-square with ``dof`` > 0 degrees of freedom."""
    return _chi_square_tail(statistic, dof, upper=False)


def _chi_square_tail(statistic: float, dof: int, *, upper: bool) -> float:
    from scipy import special

    x = float(statistic)
    if math.isnan(x):
        return math.nan
    if x <= 0 or x == math.inf:  # the whole mass lies above 0 and below inf
        return 1.0 if (x <= 0) == upper else 0.0
    return float((special.chdtrc if upper else special.chdtr)(dof, x))


def normal_sf(z: float) -> float:
    """P(Z >= z) for a standard normal Z."""
    from scipy import special

    return float(special.ndtr(-float(z)))


def poisson_sf(k: int, mean: float) -> float:
    """P(X > k) for X Poisson with mean ``mean`` >= 0 (k an integer)."""
    return _poisson_tail(k, mean, upper=True)


def poisson_cdf(k: int, mean: float) -> float:
    """P(X <= k) for X Poisson with mean ``mean`` >= 0 (k an integer)."""
    return _poisson_tail(k, mean, upper=False)


def _poisson_tail(k: int, mean: float, *, upper: bool) -> float:
    from scipy import special

    if k < 0:
        return 1.0 if upper else 0.0
    return min(max(float((special.pdtrc if upper else special.pdtr)(float(k), mean)), 0.0), 1.0)


def binomial_tails(counts: Any, trials: Any, p: float) -> tuple[Any, Any]:
    """(P(X >= count), P(X <= count)) for X binomial with ``trials`` and
    success probability ``p``, elementwise over arrays of counts <= trials."""
    import numpy as np
    from scipy import special

    # the regularized incomplete beta function, as scipy.stats.binom computes the tails
    counts, trials = np.asarray(counts), np.asarray(trials)
    upper = np.where(counts > 0, special.betainc(np.maximum(counts, 1), trials - counts + 1, p), 1.0)
    lower = np.where(counts < trials, special.betainc(np.maximum(trials - counts, 1), counts + 1, 1.0 - p), 1.0)
    return upper, lower


def smallest_of(p_min: float, looks: int) -> float:
    """P(the smallest of ``looks`` independent p-values is <= p_min):
    1 - (1 - p_min)^looks (Sidak), computed stably when p_min is tiny."""
    return float(-math.expm1(looks * math.log1p(-p_min))) if p_min < 1 else 1.0


def classify(result: TestResult, thresholds: Thresholds) -> Verdict:
    """Fill in and return the verdict of ``result`` (kept if the test set one)."""
    if result.verdict is None:
        q = result.tail_probability()
        if q is None:
            result.verdict = Verdict.INSUFFICIENT
        elif q < thresholds.fail:
            result.verdict = Verdict.FAIL
        elif q < thresholds.suspicious:
            result.verdict = Verdict.SUSPICIOUS
        else:
            result.verdict = Verdict.PASS
    return result.verdict


def worst_verdict(verdicts: list[str]) -> Verdict:
    """Overall verdict: the worst of the parts; all-insufficient stays insufficient."""
    return max((Verdict(v) for v in verdicts), key=lambda v: v.severity, default=Verdict.INSUFFICIENT)


def _json_safe(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None (JSON has no inf or NaN)."""
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _json_number(x: float | None) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


@dataclass
class RunResult:
    """Everything one run found out; ``to_json`` is the interchange format."""

    source: dict[str, Any]
    suite: str
    results: list[TestResult]
    bytes_tested: int
    bits_tested: int
    elapsed_s: float
    requested: int | None = None  # the --bytes limit, in `unit`s
    unit: str = "bytes"  # "bits" for --format bits
    input_ended_early: bool = False
    interrupted: bool = False
    thresholds: Thresholds = field(default_factory=Thresholds)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def verdict(self) -> Verdict:
        return worst_verdict([r.verdict for r in self.results if r.verdict is not None])

    @property
    def notes(self) -> list[str]:
        notes = []
        if self.input_ended_early:
            got = self.bits_tested if self.unit == "bits" else self.bytes_tested
            notes.append(f"input ended after {got} {self.unit}, before the {self.requested} requested; tested what arrived")
        if self.interrupted:
            notes.append(f"interrupted: results cover the first {self.bytes_tested} bytes only")
        return notes

    def to_json(self) -> dict[str, Any]:
        data = {
            "randqa_version": __version__,
            "source": self.source,
            "suite": self.suite,
            "bytes_tested": self.bytes_tested,
            "bits_tested": self.bits_tested,
            f"{self.unit}_requested": self.requested,
            "input_ended_early": self.input_ended_early,
            "interrupted": self.interrupted,
            "verdict": self.verdict,
            "elapsed_s": round(self.elapsed_s, 6),
            "thresholds": {"suspicious": self.thresholds.suspicious, "fail": self.thresholds.fail},
            "notes": self.notes,
            "tests": [r.to_json() for r in self.results],
        }
        data.update(self.extra)
        return data
