"""Random excursions variant test, NIST SP 800-22 Rev 1a section 2.15.

Source: NIST SP 800-22 Rev 1a (2010), sections 2.15 and 3.15; M. Baron
and A. L. Rukhin (1999), as for section 2.14.

Bits become steps 2 bit - 1 and S_k is the walk; J is its number of
cycles (excursions from zero, as in the random excursions test) and xi(x)
the total number of visits to state x over the whole walk.  For each
x in -9..-1, 1..9: p = erfc(|xi(x) - J| / sqrt(2 J (4|x| - 2))).
Results: ``random_excursions_variant[x=-9]`` .. ``[x=+9]``.

Parameters:
  max_bits  bits kept and tested (default 2^24)

As for random excursions, the test only applies with
J >= max(500, 0.005 sqrt n) cycles and n >= 10^6 bits (SP 800-22 2.15.7);
otherwise every result is ``insufficient``, with the p-values still
computed when J > 0.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from randqa.battery._bitseq import walk
from randqa.battery.random_excursions import ExcursionTest
from randqa.results import TestResult

REACH = 9
STATES = tuple(x for x in range(-REACH, REACH + 1) if x)


class RandomExcursionsVariant(ExcursionTest):
    name = "random_excursions_variant"
    states = STATES
    section = "2.15.7"
    slice_bytes_per_bit = 24  # |S| (int64), its mask and the states near 0

    def _evaluate(self, packed: np.ndarray, n: int) -> list[TestResult]:
        visits = np.zeros(2 * REACH + 1, dtype=np.int64)  # index x + REACH
        final = 0
        for sums in walk(packed, n):
            near = sums[np.abs(sums) <= REACH]
            visits += np.bincount(near + REACH, minlength=2 * REACH + 1)
            final = int(sums[-1])
        cycles = int(visits[REACH]) + (final != 0)  # zeros of the walk, plus the unfinished last cycle

        def normal_deviation_of(x: int) -> tuple[float, float, dict[str, Any]]:
            xi = int(visits[x + REACH])
            statistic = abs(xi - cycles) / math.sqrt(2 * cycles * (4 * abs(x) - 2))
            return statistic, math.erfc(statistic), {"visits": xi}

        return self._state_results(n, cycles, normal_deviation_of)
