"""Random excursions test, NIST SP 800-22 Rev 1a section 2.14.

Source: NIST SP 800-22 Rev 1a (2010), sections 2.14 and 3.14; M. Baron
and A. L. Rukhin, "Distribution of the number of visits of a random walk",
Commun. Statist. Stochastic Models 15 (1999) 593-597.

Bits become steps 2 bit - 1 and S_k is the walk.  With a zero added at
both ends the walk splits into J cycles (excursions from zero):
J = #{k <= n : S_k = 0} + [S_n != 0].  For each state x in -4..-1, 1..4,
nu_k(x) counts the cycles that visit x exactly k times (k = 0..4) or at
least 5 times (k = 5).  With pi_0(x) = 1 - 1/(2|x|),
pi_k(x) = (1/(4x^2)) (1 - 1/(2|x|))^(k-1) for k = 1..4 and
pi_5(x) = (1/(2|x|)) (1 - 1/(2|x|))^4:
chi^2(x) = sum_k (nu_k(x) - J pi_k(x))^2 / (J pi_k(x)), p = igamc(5/2, chi^2/2).
Results: ``random_excursions[x=-4]`` .. ``random_excursions[x=+4]``.

The visits of each state are counted per cycle with vectorised run
boundaries over slices of the walk; a cycle still open at the end of a
slice carries its count into the next.

Parameters:
  max_bits  bits kept and tested (default 2^24)

The test only applies with enough cycles: J >= max(500, 0.005 sqrt n) (the
STS code's constraint) and n >= 10^6 bits (SP 800-22 2.14.7).  Otherwise
every result is ``insufficient``, with the p-values still computed when
J > 0.  (The printed probabilities of 3.14 are rounded to 4 digits; the
2.14.4 example's chi^2 = 4.333033 comes from them, the exact pi give
4.333333.)
"""

from __future__ import annotations

import math
from typing import Any, Callable, ClassVar

import numpy as np
from scipy.special import gammaincc

from randqa.battery._bitseq import SLICE_BITS, WholeSequenceTest, walk, walk_bytes
from randqa.results import TestResult, insufficient

MIN_BITS = 10**6
MIN_CYCLES = 500
STATES = (-4, -3, -2, -1, 1, 2, 3, 4)
TOP = 5  # visit counts of 5 or more share a class


def visit_probabilities(x: int) -> np.ndarray:
    """pi_0(x) .. pi_5(x): the probability that a cycle visits x k times."""
    a = 1 / (2 * abs(x))
    pi = [1 - a] + [(1 / (4 * x * x)) * (1 - a) ** (k - 1) for k in range(1, TOP)] + [a * (1 - a) ** 4]
    return np.array(pi)


def cycles_needed(n: int) -> int:
    """The fewest cycles with which the excursion tests apply (STS constraint)."""
    return max(MIN_CYCLES, math.ceil(0.005 * math.sqrt(n)))


def excursion_requirement(n: int, cycles: int, section: str) -> tuple[str, bool]:
    """What the excursion tests (2.14, 2.15) need, and whether n bits with J
    = ``cycles`` meet it."""
    need_cycles = cycles_needed(n)
    needs = (
        f"at least {MIN_BITS} bits (NIST SP 800-22 {section}) and {need_cycles} cycles of the random walk "
        f"(J = {cycles} here)"
    )
    return needs, n >= MIN_BITS and cycles >= need_cycles


def state_label(name: str, x: int) -> str:
    return f"{name}[x={x:+d}]"


class _VisitHistogram:
    """For one state: how many closed cycles visited it k = 1..TOP(+) times."""

    def __init__(self) -> None:
        self.histogram = np.zeros(TOP + 1, dtype=np.int64)
        self.open_cycle = -1
        self.open_visits = 0

    def add(self, cycle_ids: np.ndarray) -> None:
        """Visits in the next slice of the walk, by cycle id (non-decreasing)."""
        if len(cycle_ids) == 0:
            return
        starts = np.flatnonzero(np.concatenate(([True], cycle_ids[1:] != cycle_ids[:-1])))
        visits = np.diff(np.append(starts, len(cycle_ids)))
        ids = cycle_ids[starts]
        if ids[0] == self.open_cycle:
            visits[0] += self.open_visits
        elif self.open_visits:
            self._close(np.array([self.open_visits]))
        self._close(visits[:-1])
        self.open_cycle, self.open_visits = int(ids[-1]), int(visits[-1])

    def _close(self, visits: np.ndarray) -> None:
        self.histogram += np.bincount(np.minimum(visits, TOP), minlength=TOP + 1)

    def counts(self, cycles: int) -> np.ndarray:
        """nu_0 .. nu_TOP once the walk has ended with ``cycles`` cycles."""
        nu = self.histogram.copy()
        if self.open_visits:
            nu[min(self.open_visits, TOP)] += 1
        nu[0] = cycles - nu[1:].sum()
        return nu


class ExcursionTest(WholeSequenceTest):
    """What the two excursion tests (2.14, 2.15) share: a result for each
    state x of the walk, which applies only with enough bits and cycles."""

    #: the states x of the walk with a result each
    states: ClassVar[tuple[int, ...]]
    #: the section of SP 800-22 that states what the test needs
    section: ClassVar[str]
    #: bytes of ``_evaluate``'s temporaries per position of a slice of the walk
    slice_bytes_per_bit: ClassVar[int]

    @classmethod
    def _evaluation_bytes(cls, n: int, params: dict[str, Any]) -> int:
        return walk_bytes(n) + cls.slice_bytes_per_bit * min(n, SLICE_BITS)

    @classmethod
    def _result_count(cls, params: dict[str, Any]) -> int:
        return len(cls.states)

    def _state_results(
        self, n: int, cycles: int, result_of: Callable[[int], tuple[float, float, dict[str, Any]]]
    ) -> list[TestResult]:
        """A result per state from ``result_of(x)`` = (statistic, p-value,
        details beyond bits and J); all ``insufficient`` when the walk of n
        bits has no cycle, as the p-values cannot be computed then."""
        needs, applies = excursion_requirement(n, cycles, self.section)
        if cycles == 0:
            return [insufficient(state_label(self.name, x), needs, bits=n, J=0) for x in self.states]
        results = []
        for x in self.states:
            statistic, p_value, details = result_of(x)
            result = TestResult(
                state_label(self.name, x), statistic, p_value, details={"bits": n, "J": cycles, **details}
            )
            if not applies:
                result.withhold_verdict(needs)
            results.append(result)
        return results


class RandomExcursions(ExcursionTest):
    name = "random_excursions"
    states = STATES
    section = "2.14.7"
    # zero flags, cycle ids (int64), |S|, the positions near 0 with their
    # states, cycles and per-state masks
    slice_bytes_per_bit = 48

    def _evaluate(self, packed: np.ndarray, n: int) -> list[TestResult]:
        visits = {x: _VisitHistogram() for x in STATES}
        zeros_before = 0  # zeros of the walk in earlier slices = id of the current cycle
        final = 0
        for sums in walk(packed, n):
            # id of the cycle each position belongs to (a zero closes its cycle)
            is_zero = sums == 0
            cycle = np.cumsum(is_zero) + zeros_before
            near = np.flatnonzero((np.abs(sums) <= max(STATES)) & ~is_zero)
            near_states, near_cycles = sums[near], cycle[near]
            for x in STATES:
                visits[x].add(near_cycles[near_states == x])
            zeros_before = int(cycle[-1])
            final = int(sums[-1])
        cycles = zeros_before + (final != 0)

        def chi_square_of(x: int) -> tuple[float, float, dict[str, Any]]:
            nu = visits[x].counts(cycles)
            expected = cycles * visit_probabilities(x)
            chi2 = float(((nu - expected) ** 2 / expected).sum())
            return chi2, float(gammaincc(TOP / 2, chi2 / 2)), {"nu": nu.tolist()}

        return self._state_results(n, cycles, chi_square_of)
