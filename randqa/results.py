"""Result objects (scipy.stats style: ``statistic`` and ``pvalue``) and verdicts.

A test's p-value is the probability, under the hypothesis that the bytes are
independent and uniform, of a statistic at least as extreme as the one seen.
Tests whose statistic is also suspicious when it is *too* good (a chi-square
near zero, too few birthday collisions) report the lower tail as well in
``pvalue_low``; the verdict then looks at both tails.

Verdicts, for thresholds ``fail_at_once`` <= ``fail`` < ``suspicious`` (suite
data, defaults 1e-20, 1e-6 and 1e-3), on the smaller tail probability q:

- ``fail``         q below ``fail_at_once``; or q below ``fail`` and the same
  test, run again on the next stretch of the stream of the same length (fresh
  data), below ``suspicious`` in the same tail: the failure repeated;
- ``unconfirmed``  q below ``fail`` x ``suspicious`` where no fresh data
  could be had (a file or stdin that ends, a source that cannot be read
  again), or where the fresh data was cut short (the data ended, or the run
  was stopped, part-way through it) and did not repeat it: a failure as
  unlikely for a good generator as a repeated one, that could not be
  repeated; a stretch cut short can confirm a failure but not clear it;
- ``suspicious``   q below ``suspicious``, or a q below ``fail`` that did not
  repeat, or that had no fresh data to repeat on and is not below
  ``fail`` x ``suspicious``; suspicious results are retested too and say
  whether they repeated;
- ``pass``         otherwise;
- ``insufficient`` too little data for the test's distribution to hold:
  never a pass or a fail; ``needs`` says how much it wants.

A good generator's run exits 1 on one tail check with probability at most
1.1 fail_at_once + (1.1 fail)(1.1 suspicious), whatever the source: p-values
are exact or within 1.1 times nominal at the thresholds
(benchmarks/calibration.py); the retest reads other bytes; and without
fresh data a check fails only below fail x suspicious, with probability at
most 1.1 fail suspicious.  A check whose retest may be cut short can fail
either way, so it adds 1.1 fail suspicious: those are the checks at the
lengths whose retest block (up to MAX_RETEST_FACTOR times the length) ends
past what the run read (``RunResult.cut_checks``), whatever the source, as
where a run stops does not depend on the bytes.  A run's bound adds that
over its checks (``false_fail_bound``, the union bound): about 1.2e-9 a
check, 2.3e-9 for one that may be cut.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

class Verdict(StrEnum):
    """A result's verdict.  Declared in the order reports list them, what
    needs attention first; ``severity`` ranks them for the overall verdict
    (a pass outranks insufficient data, so a run with both passes).

    A ``str`` (``Verdict.PASS == "pass"``), so JSON documents hold the plain word.
    """

    FAIL = "fail"
    UNCONFIRMED = "unconfirmed"
    SUSPICIOUS = "suspicious"
    INSUFFICIENT = "insufficient"
    PASS = "pass"

    @property
    def severity(self) -> int:
        """0 for insufficient, 1 pass, 2 suspicious, 3 unconfirmed, 4 fail."""
        return _SEVERITY[self]


_SEVERITY = {Verdict.INSUFFICIENT: 0, Verdict.PASS: 1, Verdict.SUSPICIOUS: 2, Verdict.UNCONFIRMED: 3, Verdict.FAIL: 4}

#: the verdicts that count as failing a run (exit code 1, ``passed`` false)
FAILING = (Verdict.FAIL, Verdict.UNCONFIRMED)


@dataclass(frozen=True)
class Thresholds:
    """p-value levels below which a result is suspicious, fails once it
    repeats on fresh data, or fails at once (module doc)."""

    suspicious: float = 1e-3
    fail: float = 1e-6
    fail_at_once: float = 1e-20

    def __post_init__(self) -> None:
        if not (0.0 < self.fail_at_once <= self.fail < self.suspicious < 1.0):
            raise ValueError("thresholds need 0 < fail_at_once <= fail < suspicious < 1, got "
                             f"fail_at_once={self.fail_at_once}, fail={self.fail}, suspicious={self.suspicious}")

    def to_json(self) -> dict[str, float]:
        return {"suspicious": self.suspicious, "fail": self.fail, "fail_at_once": self.fail_at_once}

    @property
    def retests(self) -> bool:
        """Whether results below ``suspicious`` are run again on fresh data.
        A suite whose runs are too long to read twice sets fail_at_once =
        fail: a tail below fail then fails at once, and nothing is retested."""
        return self.fail_at_once < self.fail

    @property
    def fail_unrepeated(self) -> float:
        """Below this a tail fails (``unconfirmed``) where no fresh data can
        repeat it: fail x suspicious, the level a repeated failure reaches,
        so that such a check fails a good generator no more often."""
        return self.fail * self.suspicious

    def per_check(self) -> float:
        """A good generator's chance to fail one tail check, at most: below
        fail_at_once, or below fail and then below suspicious on other bytes
        (or, with no fresh data, below fail x suspicious), each probability
        within CALIBRATION times its threshold."""
        c = CALIBRATION
        if not self.retests:
            return c * self.fail_at_once
        return c * self.fail_at_once + (c * self.fail) * (c * self.suspicious)

    def per_cut_check(self) -> float:
        """What a check whose retest may be cut short adds to per_check: it
        also fails below fail x suspicious when the stretch it had did not
        repeat it (module doc)."""
        return CALIBRATION * self.fail_unrepeated if self.retests else 0.0


#: a retest short of data for its test reads on, its block growing to at
#: most this times the length it retests (randqa.engine.retests)
MAX_RETEST_FACTOR = 8


def retest_may_be_cut(length: int, end: int) -> bool:
    """Whether the retest of a check judged at ``length`` may be cut short
    in a run that ends at byte ``end``: its block, from ``length`` and up to
    MAX_RETEST_FACTOR times it, may reach past the end (module doc)."""
    return (1 + MAX_RETEST_FACTOR) * length > end


#: a p-value is below a threshold t with probability at most this times t
#: under the hypothesis (exact tails, or the chi-square law where it is
#: within 10%: benchmarks/calibration.py)
CALIBRATION = 1.1


#: the kinds of p-value that are not continuous uniform under the hypothesis
#: (``TestResult.pvalue_kind``)
PVALUE_KINDS = ("discrete", "bound", "dependent", "not_applicable")


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
    #: how the p-value is distributed under the hypothesis when it is not
    #: continuous uniform: "discrete" (a discrete statistic's tail),
    #: "bound" (a conservative bound, Bonferroni's), "dependent" (from the
    #: same counts as an earlier result of the same test), "not_applicable"
    #: (a standard's stand-in value where its pre-condition failed, not a
    #: tail probability); None: uniform
    pvalue_kind: str | None = None
    #: the same test on the next stretch of the stream (``retest_record``)
    retest: dict[str, Any] | None = None

    def withhold_verdict(self, needs: str) -> None:
        """Keep the statistic and p-value but give no verdict: the test had
        too little data for its distribution to hold (``needs`` says how much)."""
        self.verdict = Verdict.INSUFFICIENT
        self.needs = needs

    def withhold_verdict_unless_decisive(self, needs: str) -> None:
        """Like ``withhold_verdict``, except that a tail below ``fail_at_once``
        still fails: the distribution is only approximate here (``needs``
        says how much data makes it close enough at the thresholds), but a
        tail of 1e-20 is no near miss of an approximation's error."""
        self.needs = needs

    def tail_probability(self) -> float | None:
        """The smallest tail probability this result carries, for the verdict."""
        if self.pvalue is None:
            return None
        if self.pvalue_low is None:
            return self.pvalue
        return min(self.pvalue, self.pvalue_low)

    def tail(self) -> str:
        """Which tail the verdict looked at: "lower" when the lower one is the smaller."""
        if self.pvalue_low is not None and self.pvalue is not None and self.pvalue_low < self.pvalue:
            return "lower"
        return "upper"

    def tail_checks(self) -> int:
        """How many tails the verdict judged: 0 (no verdict from data), 1 or 2."""
        if self.pvalue is None or self.verdict == Verdict.INSUFFICIENT:
            return 0
        return 1 if self.pvalue_low is None else 2

    def needs_retest(self) -> bool:
        """Whether the same test on fresh data should say if this repeats."""
        return self.verdict in (Verdict.UNCONFIRMED, Verdict.SUSPICIOUS) and self.retest is None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "TestResult":
        """The result a ``tests`` entry of a JSON document describes (``to_json``'s inverse)."""
        verdict = data.get("verdict")
        return cls(name=data["name"], statistic=data.get("statistic"), pvalue=data.get("p_value"),
                   pvalue_low=data.get("p_value_low"), verdict=None if verdict is None else Verdict(verdict),
                   needs=data.get("needs"), details=dict(data.get("details") or {}),
                   pvalue_kind=data.get("p_value_kind"), retest=data.get("retest"))

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
        if self.pvalue_kind is not None:
            data["p_value_kind"] = self.pvalue_kind
        if self.retest is not None:
            data["retest"] = _json_safe(self.retest)
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


def symmetric_binomial_two_sided(k: int, n: int) -> float:
    """P(|B - n/2| >= |k - n/2|) for B ~ Bin(n, 1/2): 2 P(B >= max(k, n - k)),
    1 when k = n - k (the incomplete beta of binomial_tails; scipy.special.
    bdtrc is 0.5% off at n = 5e8 bits)."""
    high = max(k, n - k)
    if 2 * high == n:
        return 1.0
    return min(1.0, 2 * float(binomial_tails(high, n, 0.5)[0]))


def smallest_of(p_min: float, looks: int) -> float:
    """P(the smallest of ``looks`` independent p-values is <= p_min):
    1 - (1 - p_min)^looks (Sidak), computed stably when p_min is tiny."""
    return float(-math.expm1(looks * math.log1p(-p_min))) if p_min < 1 else 1.0


def classify(result: TestResult, thresholds: Thresholds) -> Verdict:
    """Fill in and return the verdict of ``result`` (kept if the test set
    one).  A tail below ``fail`` but not ``fail_at_once`` is ``unconfirmed``
    until ``resolve_retest`` says whether it repeated."""
    if result.verdict is None:
        q = result.tail_probability()
        if q is None or (result.needs is not None and q >= thresholds.fail_at_once):
            result.verdict = Verdict.INSUFFICIENT
        elif q < thresholds.fail_at_once:
            result.verdict = Verdict.FAIL
            result.needs = None  # failed, whatever more data would say
        elif q < thresholds.fail:
            result.verdict = Verdict.UNCONFIRMED
        elif q < thresholds.suspicious:
            result.verdict = Verdict.SUSPICIOUS
        else:
            result.verdict = Verdict.PASS
    return result.verdict


def resolve_retest(result: TestResult, again: TestResult | None, thresholds: Thresholds, *, start: int,
                   length: int, missing: str = "the data ended", cut_short: bool = False) -> None:
    """Record on ``result`` the same test run again on the ``length`` bytes
    from byte ``start`` (fresh data), ``again`` (None: there was no such
    data, ``missing`` says why), and settle its verdict: an unconfirmed
    failure that repeats (the same tail below ``suspicious``) fails, one
    that does not is suspicious, one with no retest fails only below
    ``fail_unrepeated`` (``settle_unrepeated``); a suspicious result stays
    suspicious, repeated or not, and says which.  A retest ``cut_short``
    (fewer bytes than its block: the data ended, or the run was stopped) can
    confirm a failure but not clear it: one it does not repeat is settled as
    one with no retest."""
    record: dict[str, Any] = {"from_bytes": start, "bytes": length}
    if cut_short:
        record["cut_short"] = True
    if again is None or again.pvalue is None or again.verdict == Verdict.INSUFFICIENT:
        record.update({"p_value": None, "repeated": None,
                       "reason": missing if again is None else "too little data in the retest"})
        result.retest = record
        settle_unrepeated(result, thresholds)
        return
    tail = result.tail()
    q = again.pvalue_low if tail == "lower" and again.pvalue_low is not None else again.pvalue
    repeated = bool(q < thresholds.suspicious)  # a test may give a numpy float, whose comparison JSON cannot write
    record.update({"tail": tail, "p_value": _json_number(q), "repeated": repeated})
    result.retest = record
    if result.verdict == Verdict.UNCONFIRMED:
        if repeated:
            result.verdict = Verdict.FAIL
        elif cut_short:
            settle_unrepeated(result, thresholds)
        else:
            result.verdict = Verdict.SUSPICIOUS


def settle_unrepeated(result: TestResult, thresholds: Thresholds) -> None:
    """Settle a result that no fresh data could repeat: a tail below fail but
    not below ``fail_unrepeated`` is suspicious, not a failure; below it the
    result stays unconfirmed (and fails the run)."""
    if result.verdict != Verdict.UNCONFIRMED:
        return
    q = result.tail_probability()
    if q is not None and q >= thresholds.fail_unrepeated:
        result.verdict = Verdict.SUSPICIOUS


def false_fail_bound(checks: int, thresholds: Thresholds, cut: int = 0) -> float:
    """The chance, at most, that a good generator fails a run of ``checks``
    tail checks, ``cut`` of them with a retest that may be cut short (the
    union bound of Thresholds.per_check over them, and per_cut_check over those)."""
    return min(1.0, checks * thresholds.per_check() + cut * thresholds.per_cut_check())


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
