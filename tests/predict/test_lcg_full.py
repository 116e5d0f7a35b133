"""Full-output LCGs with unknown a, c, m (Plumstead/Boyar), in words or as
the runtimes' packed 31-bit values (libstdc++'s minstd_rand0 and minstd_rand)."""

from __future__ import annotations

import numpy as np
import pytest
from reference_generators import backend_bytes, lcg_bytes

from randqa.predict.base import NoFit
from randqa.predict.lcg_full import FullLCGPredictor, find_lcg
from randqa.predict.runner import run_predictor


def test_minstd_constants_recovered():
    data = backend_bytes("minstd", 2718281, 1 << 17)
    result = run_predictor(FullLCGPredictor(), data)
    assert result.succeeded and result.checked_bytes >= 1 << 16
    s = result.structure
    assert (s["a"], s["c"], s["m"]) == (16807, 0, 2**31 - 1)
    assert result.observed_bytes <= 32


def test_randu_power_of_two_modulus():
    # RANDU's states are odd, so every difference is even and the gcd keeps extra factors of 2
    data = backend_bytes("randu", 1, 1 << 17)
    result = run_predictor(FullLCGPredictor(), data)
    assert result.succeeded
    assert (result.structure["a"], result.structure["c"], result.structure["m"]) == (65539, 0, 2**31)


def test_unknown_64_bit_constants():
    rng = np.random.default_rng(11)
    m = 2**61 - 1
    a, c, x0 = (int(v) for v in rng.integers(2, m, size=3))
    data = np.frombuffer(lcg_bytes(x0, a, c, m, 9000, 8), dtype=np.uint8)
    result = run_predictor(FullLCGPredictor(), data)
    assert result.succeeded and result.checked_bytes >= 1 << 16
    assert (result.structure["a"], result.structure["c"], result.structure["m"]) == (a, c, m)


def test_find_lcg_needs_every_word_reproduced():
    x = [5, 12, 33, 96, 285]            # x = 3x - 3 over the integers, no modulus at all
    assert find_lcg(x, 1 << 32) is None
    assert find_lcg([1, 2, 3], 1 << 32) is None


def test_no_modulus_in_chacha():
    assert isinstance(FullLCGPredictor().fit(backend_bytes("chacha", 1, 4096)), NoFit)


@pytest.mark.parametrize("name, a", [("cxx-minstd-rand0", 16807), ("cxx-minstd-rand", 48271)])
def test_libstdcxx_minstd_as_31_bit_packed_values(name, a):
    result = run_predictor(FullLCGPredictor(), backend_bytes(name, 77, 1 << 17))
    assert result.succeeded and (result.structure["a"], result.structure["m"]) == (a, 2**31 - 1)
    assert result.structure["word_bits"] == 31 and result.observed_bytes <= 32
