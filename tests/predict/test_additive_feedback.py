"""glibc rand() (TYPE_3) and other lagged-Fibonacci generators: Go's math/rand
(additive, every bit output) and .NET's System.Random (Knuth's subtractive)."""

from __future__ import annotations

import numpy as np
import pytest
from reference_generators import backend_bytes

from randqa.predict.additive_feedback import MIN_RELATIONS, AdditiveFeedbackPredictor
from randqa.predict.base import NoFit
from randqa.predict.runner import run_predictor


@pytest.mark.parametrize("name, word_bits, max_observed", [
    ("glibc-rand", 32, 512),
    ("glibc-rand-short", 16, 256),
    ("glibc-rand-byte", 8, 128),
])
def test_glibc_rand_exact_once_the_low_bits_are_solved(name, word_bits, max_observed):
    data = backend_bytes(name, 1987, 1 << 17)
    result = run_predictor(AdditiveFeedbackPredictor(), data)
    assert result.succeeded and result.checked_bytes >= 1 << 16
    s = result.structure
    assert s["lags"] == [3, 31] and s["word_bits"] == word_bits and s["low_bits_solved"]
    assert s["word_exact_fraction"] == 1.0
    # the documented rate of o_i = o_(i-3) + o_(i-31) without the carry: P(no carry) = 3/4
    # (16,384+ checked outputs: standard deviation under 0.004)
    assert abs(s["one_step_carry0_fraction"] - 0.75) < 0.02
    assert result.observed_bytes <= max_observed


def test_full_output_lags_24_55():
    # Mitchell-Moore x_i = x_(i-24) + x_(i-55) mod 2^32, every bit output: no carry is hidden
    rng = np.random.default_rng(3)
    x = [int(v) for v in rng.integers(0, 1 << 32, size=55)]
    for i in range(55, 40000):
        x.append((x[i - 24] + x[i - 55]) % (1 << 32))
    data = np.array(x, dtype="<u4").view(np.uint8)
    result = run_predictor(AdditiveFeedbackPredictor(), data)
    assert result.succeeded and result.checked_bytes >= 1 << 16
    assert result.structure["lags"] == [24, 55]


def test_no_lags_in_random_bytes():
    assert isinstance(AdditiveFeedbackPredictor().fit(backend_bytes("aes-ctr", 5, 4096)), NoFit)


@pytest.mark.parametrize("name, lags, at_most", [
    ("go-math-rand", [273, 607], 8 * (607 + MIN_RELATIONS)),
    ("dotnet-random", [34, 55], -(-31 * (55 + MIN_RELATIONS) // 8)),
    ("musl-random", [3, 31], 512),
])
def test_runtime_backends(name, lags, at_most):
    # Go's Uint64() and .NET's Next() output every bit; musl's random() drops the low bit, as glibc's does
    result = run_predictor(AdditiveFeedbackPredictor(), backend_bytes(name, 31337, 1 << 17))
    assert result.succeeded and result.structure["lags"] == lags and result.observed_bytes <= at_most
