"""_tuple_law: the expected count needed for the chi-square law meets the
calibration's fit at 1.1 times nominal; 14 per cell suffice from 487 cells
(mod3's t = 6) on, not for fewer; a result short of it is withheld unless decisive.
"""

from __future__ import annotations

import math

import numpy as np

from randqa.battery._tuple_law import MAX_RATIO, excess_at_fail, harmonic_mean_expected, mean_expected_needed, withhold_unless_close
from randqa.results import chi_square_result


def test_needed_mean_meets_the_fit_at_the_allowed_excess() -> None:
    for cells in (3, 55, 487, 65536):
        assert math.isclose(excess_at_fail(cells, mean_expected_needed(cells)), MAX_RATIO, rel_tol=1e-12)
    assert MAX_RATIO < 1.1  # the calibration's limit, with room for its exact sums above the fit
    assert mean_expected_needed(700) < 14 < mean_expected_needed(487)
    assert mean_expected_needed(3) > 300


def test_harmonic_mean_is_led_by_the_rare_cells() -> None:
    assert math.isclose(harmonic_mean_expected(np.array([1.0, 1000.0])), 2 / 1.001)


def test_results_short_of_the_law_are_withheld_unless_decisive() -> None:
    few = chi_square_result("x", 200.0, 162)
    withhold_unless_close(few, np.full(163, 20.0), 162)
    assert few.needs and "harmonic mean" in few.needs and math.isclose(few.details["mean_expected"], 20.0)
    many = chi_square_result("x", 200.0, 162)
    withhold_unless_close(many, np.full(163, 40.0), 162)
    assert many.needs is None
