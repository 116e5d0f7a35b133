"""R's Marsaglia-Multicarry: both 16-bit multiply-with-carry states from two
outputs, checked by a third (12 bytes).  Source: R's src/main/RNG.c, written
out in tests/reference_generators.py."""

from __future__ import annotations

import numpy as np
from reference_generators import backend_bytes, r_marsaglia_multicarry_bytes

from randqa.predict.base import NoFit
from randqa.predict.multiply_with_carry import MulticarryPredictor
from randqa.predict.runner import run_predictor


def test_reference_is_r():
    # R 4.2: RNGkind("Marsaglia-Multicarry"); set.seed(1) leaves .Random.seed[2:3] = 1280795612, -169270483,
    # and runif(3) * (2^32 - 1) prints 26427897 2376121722 394503230
    values = np.frombuffer(r_marsaglia_multicarry_bytes((1280795612, -169270483 & 0xFFFFFFFF), 3), dtype="<u4")
    assert list(values) == [26427897, 2376121722, 394503230]


def test_state_from_three_outputs():
    data = np.frombuffer(r_marsaglia_multicarry_bytes((0xDEADBEEF, 0x12345678), 20000), dtype=np.uint8)
    result = run_predictor(MulticarryPredictor(), data)
    assert result.succeeded and result.checked_bytes >= 1 << 16
    assert result.observed_bytes == 12


def test_no_carries_in_minstd_or_pcg64():
    for name in ("minstd", "pcg64"):
        assert isinstance(MulticarryPredictor().fit(backend_bytes(name, 6, 256)), NoFit)


def test_r_marsaglia_multicarry_backend():
    result = run_predictor(MulticarryPredictor(), backend_bytes("r-marsaglia-multicarry", 8, 1 << 17))
    assert result.succeeded and result.observed_bytes == 12
