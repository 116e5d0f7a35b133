"""Exact tails of goodness-of-fit statistics of a multinomial sample, and
the rule that says when the chi-square law is close enough instead.

Sources: U. Keich and N. Nagarajan, "A fast and numerically robust method
for exact multinomial goodness-of-fit test", J. Comput. Graph. Stat. 15
(2006) 779-802 (the statistic's law on a lattice, summed cell by cell,
every number a probability); J. H. Hirji, "A comparison of algorithms for
exact goodness-of-fit tests for multinomial data", Commun. Stat. Simul.
Comput. 26 (1997) 1197-1227 (the network of partial counts); J. K. Yarnold,
"Asymptotic approximations for the probability that a sum of lattice random
vectors lies in a convex set", Ann. Math. Stat. 43 (1972) 1566-1580 (why
Pearson's X^2 with few classes stays off the chi-square law in the far tail).

Why: Pearson's X^2 = sum (O_i - e_i)^2 / e_i over K classes is judged
against chi-square with K - 1 degrees of freedom, which is fine at p = 0.05
with 5 expected per class and badly wrong at 1e-6: a class expecting e
reaches a large share of the statistic by itself with Poisson odds, far
above the chi-square's.  Exact sums (randqa/battery/_tails.c, checked by
tests/battery/test_multinomial.py against full enumeration) of the law of
the bit_linear_complexity classes give, at the asymptotic 1e-6 point, 4.5
times 1e-6 with 256 sequences in 5 classes and 2.7 times with 16,384 in 11;
gap's 9 classes of bytes with 1,280 gaps 11 times; 256 equally likely byte
values, 5 expected each, 1.5 times, 10 each 1.2 times.  The error falls
roughly as 1/e in the rarest class; gap's byte classes with 500 expected
in the rarest are still 1.11 times, so ``ASYMPTOTIC_MIN_EXPECTED`` is 1000
(benchmarks/calibration.py prints each structure's ratio).

How (multinomial_tail): the multinomial is the chain o_1 ~ Bin(n, q_1),
o_2 ~ Bin(n - o_1, q_2), ... with q_i = p_i / (p_i + ... + p_K), the rarest
classes first.  After each class the state is (count left, statistic so
far rounded down to a lattice of step delta); the two largest classes are
summed exactly at the end.  Rounding down K - 2 times puts the true value
within (K - 2) delta above the lattice's, so the kernel returns a lower and
an upper bound of the tail; the lattice is refined until they agree to 5%
(``BRACKET_RTOL``; 25% above p = 0.01, where no verdict is near) or the
work would exceed ``WORK_BUDGET`` (about 0.3 s).  The p-value given is
the upper bound: never below the exact tail, so a p-value below a threshold
is one the exact law puts there at most as often as the threshold says.
The statistic's values are atoms: a tail includes the observed value
(relative tolerance 1e-9 for the rounding of the statistic itself).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, Sequence

import numpy as np

from randqa.results import TestResult, chi_square_cdf, chi_square_sf, pearson_statistic

#: every class expecting at least this many: the chi-square law's tail is
#: within 10% of the exact one at 1e-6 (benchmarks/calibration.py)
ASYMPTOTIC_MIN_EXPECTED = 1000
#: the exact tail is computed for samples up to this size ...
EXACT_MAX_SAMPLES = 16384
#: ... in up to this many classes (each rounded class widens the bracket)
EXACT_MAX_CLASSES = 12
#: an asymptotic tail above this is shown as it is: no verdict depends on
#: it, and the exact sum would cost time for nothing
SCREEN_PVALUE = 0.01
#: the lattice is refined while its predicted work (cells x counts x
#: lattice points) stays below this
WORK_BUDGET = 3e8
#: the bounds are refined until they agree to this (relative) below p = 0.01,
#: to 25% above (where no verdict is near)
BRACKET_RTOL = 0.05
#: lattice points at most
MAX_WIDTH = 65536

_KINDS = {"pearson": 0, "cressie_read": 1}


@dataclass(frozen=True)
class Tail:
    """A tail probability: ``pvalue`` (the upper bound, what verdicts use),
    and the bounds ``low`` <= exact <= ``high`` = ``pvalue``."""

    pvalue: float
    low: float
    high: float


def _chain(probs: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Expected counts and the chain's conditional probabilities, rarest class first."""
    p = np.sort(np.asarray(probs, dtype=np.float64) / np.sum(probs), kind="stable")
    remaining = np.cumsum(p[::-1])[::-1]
    conditional = np.minimum(p / remaining, 1.0)
    conditional[-2] = p[-2] / (p[-2] + p[-1])
    return n * p, conditional


def _work(expected: np.ndarray, x: float, width: int) -> float:
    """The kernel's work, about: per rounded class, the counts left it may see
    times its own counts that keep the statistic below x, times the lattice."""
    before = np.cumsum(expected) - expected
    spans = (2 * np.sqrt(x * before[:-2]) + 1) * (2 * np.sqrt(x * expected[:-2]) + 1)
    return float(np.sum(spans)) * width


def multinomial_tail(probs: Sequence[float] | np.ndarray, n: int, statistic: float, *, upper: bool = True,
                     kind: Literal["pearson", "cressie_read"] = "pearson") -> Tail:
    """P(T >= statistic) (``upper``) or P(T <= statistic) for T, Pearson's X^2
    (or Cressie and Read's lambda = 2/3 statistic) of a multinomial sample of
    ``n`` in classes of probabilities ``probs``: exact, as bounds (module doc)."""
    from randqa.battery import _tails

    probs = np.asarray(probs, dtype=np.float64)
    if len(probs) < 2 or n < 1:
        raise ValueError("a multinomial tail needs at least two classes and one observation")
    x = float(statistic)
    if math.isnan(x):
        return Tail(math.nan, math.nan, math.nan)
    # the observed value is an atom of T: keep it inside the tail despite rounding
    x = x * (1 - 1e-9) - 1e-12 if upper else x * (1 + 1e-9) + 1e-12
    if x <= 0:
        return Tail(1.0, 1.0, 1.0) if upper else Tail(0.0, 0.0, 0.0)
    expected, conditional = _chain(probs, n)
    width = 256
    low, high = _tails.multinomial_tail(expected.tobytes(), conditional.tobytes(), n, x, x / width, upper,
                                        _KINDS[kind])
    while (high > 0 and high - low > (BRACKET_RTOL if high < 0.01 else 0.25) * high and len(probs) > 2 and width < MAX_WIDTH
           and _work(expected, x, 4 * width) < WORK_BUDGET):
        width *= 4
        before = high - low
        low, high = _tails.multinomial_tail(expected.tobytes(), conditional.tobytes(), n, x, x / width, upper,
                                            _KINDS[kind])
        if high - low > 0.7 * before:
            break  # an atom of T just below x keeps the bounds apart at any lattice (the upper bound has it)
    high = min(1.0, high)
    return Tail(high, min(low, high), high)


@dataclass(frozen=True)
class Classes:
    """The classes a multinomial goodness-of-fit result is judged on: their
    probabilities, the index of each merged class's first fine class, and
    how the tail is found (``exact``: multinomial_tail; else chi-square)."""

    probs: np.ndarray
    starts: np.ndarray
    exact: bool


def choose_classes(candidates: Sequence[tuple[np.ndarray, np.ndarray]], n: int, *,
                   min_expected: float = 5) -> Classes | None:
    """The classes to judge ``n`` observations on, from ``candidates``
    (probabilities, and where each class starts among the fine classes),
    finest first: the finest whose rarest class expects ``min_expected``,
    judged exactly while the sample and the classes are small enough
    (``EXACT_MAX_SAMPLES``, ``EXACT_MAX_CLASSES``); beyond, the finest in
    which every class expects ``ASYMPTOTIC_MIN_EXPECTED``, where the
    chi-square law is close enough.  None when even the coarsest has too
    few expected."""
    usable = [(p, s) for p, s in candidates if n * float(np.min(p)) >= min_expected]
    if not usable:
        return None
    finest = usable[0]
    if n * float(np.min(finest[0])) >= ASYMPTOTIC_MIN_EXPECTED:
        return Classes(finest[0], finest[1], exact=False)
    if n <= EXACT_MAX_SAMPLES and len(finest[0]) <= EXACT_MAX_CLASSES:
        return Classes(finest[0], finest[1], exact=True)
    for p, s in usable:
        if n * float(np.min(p)) >= ASYMPTOTIC_MIN_EXPECTED:
            return Classes(p, s, exact=False)
    for p, s in usable:
        if len(p) <= EXACT_MAX_CLASSES:
            return Classes(p, s, exact=True)
    return Classes(usable[-1][0], usable[-1][1], exact=True)


def class_result(name: str, observed: np.ndarray, classes: Classes, *, lower_tail: bool = True,
                 details: dict | None = None) -> TestResult:
    """Pearson's X^2 of ``observed`` (counts in ``classes``) as a TestResult:
    the upper tail, and the lower unless ``lower_tail`` is False, exact where
    the classes say so and the asymptotic tail is below ``SCREEN_PVALUE``."""
    n = int(observed.sum())
    expected = n * classes.probs
    statistic = pearson_statistic(observed, expected)
    dof = len(classes.probs) - 1
    tails = {"upper": chi_square_sf(statistic, dof)}
    if lower_tail:
        tails["lower"] = chi_square_cdf(statistic, dof)
    method = "chi-square"
    bounds = {}
    if classes.exact:
        for side, asymptotic in tails.items():
            if asymptotic < SCREEN_PVALUE:
                tail = multinomial_tail(classes.probs, n, statistic, upper=side == "upper")
                tails[side] = tail.pvalue
                bounds[side] = [tail.low, tail.high]
        method = f"exact below {SCREEN_PVALUE:g}, else chi-square"
    info = {"dof": dof, "p_value_from": method, **(details or {})}
    if bounds:
        info["exact_bounds"] = bounds
    return TestResult(name=name, statistic=statistic, pvalue=tails["upper"], pvalue_low=tails.get("lower"),
                      details=info, pvalue_kind="discrete")
