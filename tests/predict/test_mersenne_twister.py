"""MT19937, CPython's random and MT19937-64 recovered from 2,496 bytes; PHP's
mt_rand() (MT19937 >> 1, 31 bits packed) from 1,247 outputs."""

from __future__ import annotations

import random

import numpy as np
import pytest
from prediction_checks import assert_predicts, assert_predicts_backend
from reference_generators import backend_bytes

from randqa.predict.base import NoFit
from randqa.predict.mersenne_twister import (MT19937, MT19937_64, MersenneTwisterPredictor, hidden_low_bits, temper,
                                             untemper)
from randqa.predict.runner import run_predictor


@pytest.mark.parametrize("params", [MT19937, MT19937_64])
def test_untemper_inverts_temper(params):
    rng = np.random.default_rng(1)
    x = rng.integers(0, 1 << 63, size=1000, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    x &= np.uint64((1 << params.bits) - 1)
    assert np.array_equal(untemper(temper(x, params), params), x)


def test_cpython_random_from_its_own_bytes():
    # CPython's generator itself, not randqa's backend
    result = assert_predicts(MersenneTwisterPredictor(),
                             np.frombuffer(random.Random(20240611).randbytes(1 << 17), dtype=np.uint8))
    assert result.observed_bytes == 2496


def test_stream_taken_from_the_middle():
    data = np.frombuffer(random.Random(7).randbytes(1 << 17), dtype=np.uint8)[4 * 1001:]
    result = run_predictor(MersenneTwisterPredictor(), data)
    assert result.succeeded and result.observed_bytes == 2496


def test_other_streams_break_the_recurrence():
    data = backend_bytes("chacha", 1, 8192)
    fit = MersenneTwisterPredictor().fit(data)
    assert isinstance(fit, NoFit) and "twist recurrence broken" in fit.reason


def test_hidden_low_bits_are_the_dropped_ones():
    bitgen = np.random.MT19937()
    bitgen._legacy_seeding(77)
    words = bitgen.random_raw(1400)
    bits = hidden_low_bits(words >> np.uint64(1))
    assert bits is not None and np.array_equal(bits[1:1400 - 624 + 1], (words & np.uint64(1))[1:1400 - 624 + 1])


@pytest.mark.parametrize("name, seed, generator, observed", [
    ("mt19937", None, "mt19937", 2496),  # a seed drawn for the run
    # 312 words of 64 bits are also 624 of 32: one more word tells them apart
    ("mt64", 12, "mt19937-64", 2500),
    ("php-mt-rand", 99, "mt19937 >> 1 (PHP mt_rand)", 4836),
    ("r-mersenne-twister", 99, "mt19937", 2496),
    ("cxx-mt19937-64", 99, "mt19937-64", 2500),
])
def test_backends(name, seed, generator, observed):
    result = assert_predicts_backend(MersenneTwisterPredictor(), name, seed)
    assert result.structure["generator"] == generator and result.observed_bytes == observed
