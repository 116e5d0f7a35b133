"""Exact tails of multinomial goodness-of-fit statistics
(randqa/battery/_multinomial.py, randqa/battery/_tails.c): the kernel's
bounds hold the tail summed over every outcome (full enumeration: small
samples, Pearson's X^2 and Cressie-Read's lambda = 2/3, both tails), a deep
tail of 400 draws against mpmath at 40 digits, and the must-show case of
issue 20: X^2 = 34.77 over 256 sequences in bit_linear_complexity's five
classes has the exact tail 2.77e-6, where chi-square(4) says 5.2e-7.  The
class rule (exact while small, merged classes with 500 expected beyond) and
the kernel's refusals.  Sources: Keich and Nagarajan (2006), the module's
doc; minimum data: none.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from randqa.battery import _tails
from randqa.battery._multinomial import ASYMPTOTIC_MIN_EXPECTED, choose_classes, class_result, multinomial_tail


def enumerated_tail(probs, n, x, upper, statistic):
    """The tail summed over every outcome of the multinomial (the definition)."""
    probs = np.asarray(probs, dtype=float)
    total = 0.0
    for head in itertools.product(range(n + 1), repeat=len(probs) - 1):
        if sum(head) > n:
            continue
        o = np.array([*head, n - sum(head)], dtype=float)
        e = n * probs
        if statistic == "pearson":
            t = float(np.sum((o - e) ** 2 / e))
        else:  # Cressie and Read's lambda = 2/3: 9/5 sum o ((o/e)^(2/3) - 1)
            t = float(1.8 * np.sum(o * (np.cbrt((o / e) ** 2) - 1)))
        inside = t >= x * (1 - 1e-9) - 1e-12 if upper else t <= x * (1 + 1e-9) + 1e-12
        if inside:
            total += math.exp(math.lgamma(n + 1) + sum(k * math.log(p) - math.lgamma(k + 1) for k, p in zip(o, probs)))
    return total


CASES = [
    ([0.2, 0.3, 0.5], 30, 9.3, "pearson"),
    ([0.1, 0.2, 0.3, 0.4], 25, 14.0, "pearson"),
    ([1 / 6, 1 / 2, 1 / 3], 40, 11.0, "pearson"),
    ([0.05, 0.15, 0.3, 0.5], 30, 25.0, "pearson"),
    ([0.1] * 5 + [0.5], 16, 12.0, "pearson"),
    ([0.25] * 4, 16, 12.0, "cressie_read"),
    ([0.1, 0.2, 0.3, 0.4], 15, 9.0, "cressie_read"),
]


@pytest.mark.parametrize("probs, n, x, statistic", CASES)
@pytest.mark.parametrize("upper", [True, False])
def test_bounds_hold_the_enumerated_tail(probs, n, x, statistic, upper):
    exact = enumerated_tail(probs, n, x, upper, statistic)
    tail = multinomial_tail(probs, n, x, upper=upper, kind=statistic)
    assert tail.low <= exact * (1 + 1e-9) and exact <= tail.high * (1 + 1e-9)
    assert tail.pvalue == tail.high


def test_a_deep_tail_of_400_draws_against_mpmath():
    n, x = 400, 60.0
    mpmath.mp.dps = 40
    probs = [mpmath.mpf(1) / 6, mpmath.mpf(1) / 2, mpmath.mpf(1) / 3]
    exact = mpmath.mpf(0)
    for a in range(n + 1):
        b = np.arange(n + 1 - a)
        c = n - a - b
        t = (a - n / 6) ** 2 / (n / 6) + (b - n / 2) ** 2 / (n / 2) + (c - n / 3) ** 2 / (n / 3)
        for bb in b[t >= x * (1 - 1e-12)].tolist():  # the outcomes in the tail, then summed in 40 digits
            exact += (mpmath.factorial(n) / (mpmath.factorial(a) * mpmath.factorial(bb) * mpmath.factorial(n - a - bb))
                      * probs[0] ** a * probs[1] ** bb * probs[2] ** (n - a - bb))
    tail = multinomial_tail([1 / 6, 1 / 2, 1 / 3], n, x)
    assert 1e-14 < float(exact) < 1e-11  # where chi-square(2) says 9.4e-14
    assert tail.low <= float(exact) <= tail.high <= float(exact) * 1.05


def test_the_siprand_classes_have_the_exact_tail_not_chi_squares():
    # issue 20: bit 63 of siprand's 64-bit words, 256 sequences of 4096 bits in
    # the classes L - n/2 <= -2, -1, 0, 1, >= 2 (probabilities 1/24, 1/8, 1/2, 1/4, 1/12)
    probs = np.array([1 / 24, 1 / 8, 1 / 2, 1 / 4, 1 / 12])
    observed = np.array([10, 29, 120, 50, 47])
    classes = choose_classes([(probs, np.arange(5))], 256)
    assert classes is not None and classes.exact
    result = class_result("x", observed, classes, lower_tail=False)
    assert result.statistic == pytest.approx(34.765625)
    assert stats.chi2.sf(34.765625, 4) == pytest.approx(5.19e-7, rel=1e-2)
    assert 2.7e-6 < result.pvalue < 2.85e-6
    low, high = result.details["exact_bounds"]["upper"]
    assert high == result.pvalue and high - low < 0.05 * high


def test_choose_classes_is_exact_while_small_and_merges_beyond():
    fine = np.array([0.5, 0.25, 0.125, 0.0625, 0.03125, 0.03125])
    candidates = [(fine, np.arange(6)), (np.array([0.5, 0.25, 0.25]), np.array([0, 1, 2]))]
    assert choose_classes(candidates, 15) is None  # 3.75 expected in the coarse classes' rarest
    coarse = choose_classes(candidates, 100)  # the fine classes' rarest expects 3.1: the coarse ones
    assert coarse.exact and len(coarse.probs) == 3
    small = choose_classes(candidates, 16_384)
    assert small.exact and len(small.probs) == 6
    merged = choose_classes(candidates, 20_000)  # beyond 16,384: every class needs 1,000
    assert not merged.exact and len(merged.probs) == 3 and 20_000 * merged.probs.min() >= ASYMPTOTIC_MIN_EXPECTED
    assert not choose_classes(candidates, 32_000).exact and len(choose_classes(candidates, 32_000).probs) == 6


@pytest.mark.parametrize("args, message", [
    ((np.ones(1).tobytes(), np.ones(1).tobytes(), 10, 3.0, 0.1, True, 0), "length >= 2"),
    ((np.ones(3).tobytes(), np.ones(2).tobytes(), 10, 3.0, 0.1, True, 0), "length >= 2"),
    ((np.ones(3).tobytes(), np.ones(3).tobytes(), -1, 3.0, 0.1, True, 0), "n <= 2"),
    ((np.ones(3).tobytes(), np.ones(3).tobytes(), 10, 3.0, 0.0, True, 0), "delta > 0"),
    ((np.ones(3).tobytes(), np.ones(3).tobytes(), 10, math.inf, 0.1, True, 0), "finite x"),
    ((np.ones(3).tobytes(), np.ones(3).tobytes(), 10, 3.0, 0.1, True, 7), "kind"),
    ((np.array([1.0, 0.0, 1.0]).tobytes(), np.ones(3).tobytes(), 10, 3.0, 0.1, True, 0), "expected > 0"),
    ((np.ones(3).tobytes(), np.array([0.5, 1.5, 1.0]).tobytes(), 10, 3.0, 0.1, True, 0), "conditional"),
    ((np.ones(3).tobytes(), np.ones(3).tobytes(), 10, 3.0, 1e-9, True, 0), "lattice"),
])
def test_kernel_refuses_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        _tails.multinomial_tail(*args)
