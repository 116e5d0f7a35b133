"""R's Marsaglia-Multicarry: both 16-bit multiply-with-carry states from two
outputs, checked by a third (12 bytes).  Source: R's src/main/RNG.c; the
backend r-marsaglia-multicarry is pinned to R 4.2's runif() by its own tests."""

from __future__ import annotations

from reference_generators import backend_bytes

from randqa.predict.base import NoFit
from randqa.predict.multiply_with_carry import MulticarryPredictor
from randqa.predict.runner import run_predictor


def test_no_carries_in_minstd_or_pcg64():
    for name in ("minstd", "pcg64"):
        assert isinstance(MulticarryPredictor().fit(backend_bytes(name, 6, 256)), NoFit)


def test_r_marsaglia_multicarry_backend():
    result = run_predictor(MulticarryPredictor(), backend_bytes("r-marsaglia-multicarry", 8, 1 << 17))
    assert result.succeeded and result.observed_bytes == 12


def test_a_prefix_ending_inside_a_word_is_continued_from_its_next_byte():
    data = backend_bytes("r-marsaglia-multicarry", 8, 256)
    for observed in (13, 14, 15):
        fit = MulticarryPredictor().fit(data[:observed])
        assert (fit.predict(37) == data[observed:observed + 37]).all()
