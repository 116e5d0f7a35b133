"""serial_correlation: ENT's circular coefficient r = (n T1 - T2^2) /
(n T3 - T2^2) at every lag, computed directly here and compared; a
correlated walk caught, random bytes passed, a constant stream failed.
The comparison with ENT's own output on the same file is in
test_chi_square.py (ENT prints both statistics).
"""

from __future__ import annotations

import numpy as np
import pytest

from accumulators import results_of
from randqa.battery.serial_correlation import SerialCorrelation


def circular_coefficient(data: np.ndarray, lag: int) -> float:
    x = data.astype(np.float64)
    n = len(x)
    t1, t2, t3 = float(np.dot(x, np.roll(x, -lag))), float(x.sum()), float(np.dot(x, x))
    return (n * t1 - t2 * t2) / (n * t3 - t2 * t2)


rng = np.random.default_rng(11)
RANDOM = rng.integers(0, 256, 1 << 16, dtype=np.uint8)
WALK = (np.cumsum(rng.integers(-3, 4, 1 << 16)) % 256).astype(np.uint8)


@pytest.mark.parametrize("data", [RANDOM, WALK], ids=["random", "walk"])
def test_coefficients_equal_the_circular_definition(data):
    lags = [1, 2, 7, 300]
    results = {r.details["lag"]: r for r in results_of(SerialCorrelation(lags=lags), data)}
    for k in lags:
        assert results[k].statistic == pytest.approx(circular_coefficient(data, k), abs=1e-12)


def test_a_correlated_walk_is_caught_and_random_bytes_pass():
    (walk,) = results_of(SerialCorrelation(), WALK)
    (random,) = results_of(SerialCorrelation(), RANDOM)
    assert walk.pvalue < 1e-6  # below the suites' fail threshold
    assert random.pvalue > 1e-3


def test_a_constant_stream_fails_and_a_short_one_is_insufficient():
    (constant,) = results_of(SerialCorrelation(), np.full(1000, 7, dtype=np.uint8))
    assert constant.verdict == "fail"
    (short,) = results_of(SerialCorrelation(), RANDOM[:99])
    assert short.verdict == "insufficient" and "100 bytes" in short.needs
