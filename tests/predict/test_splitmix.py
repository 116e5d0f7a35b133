"""SplittableRandom / SplitMix64: mix64 inverted, the Weyl step read off.

Source: the JDK's java/util/SplittableRandom.java (seed += gamma; nextLong()
= mix64(seed)), written out below from its definition; randqa's splitmix64
backend is the same generator with the golden gamma.  Minimum data: one
8-byte output with the golden gamma, two with any other.
"""

from __future__ import annotations

import numpy as np
from reference_generators import backend_bytes

from randqa.predict.base import NoFit
from randqa.predict.runner import run_predictor
from randqa.predict.splitmix import GOLDEN_GAMMA, SplitMixPredictor, mix64, unmix64

M64 = (1 << 64) - 1


def splittable_next_longs(seed: int, gamma: int, count: int) -> bytes:
    out = []
    for _ in range(count):
        seed = (seed + gamma) & M64
        z = seed
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        out.append(z ^ (z >> 31))
    return np.array(out, dtype="<u8").tobytes()


def test_mix64_matches_the_definition_and_inverts():
    seeds = np.random.default_rng(8).integers(0, 1 << 64, size=1000, dtype=np.uint64)
    expected = np.frombuffer(b"".join(splittable_next_longs(int(s) - GOLDEN_GAMMA & M64, GOLDEN_GAMMA, 1)
                                      for s in seeds), dtype="<u8")
    assert np.array_equal(mix64(seeds), expected)
    assert np.array_equal(unmix64(expected), seeds)


def test_seeded_instance_from_one_output():
    data = np.frombuffer(splittable_next_longs(0xC0FFEE, GOLDEN_GAMMA, 1 << 14), dtype=np.uint8)
    result = run_predictor(SplitMixPredictor(), data)
    assert result.succeeded and result.checked_bytes >= 1 << 16
    assert result.observed_bytes == 8 and result.structure["gamma"] == GOLDEN_GAMMA


def test_split_instance_gamma_from_two_outputs():
    gamma = 0x2545F4914F6CDD1D  # odd: what split() may draw
    data = np.frombuffer(splittable_next_longs(99, gamma, 1 << 14), dtype=np.uint8)
    result = run_predictor(SplitMixPredictor(), data)
    assert result.succeeded and result.observed_bytes == 16 and result.structure["gamma"] == gamma


def test_splitmix64_backend():
    result = run_predictor(SplitMixPredictor(), backend_bytes("splitmix64", 12, 1 << 17))
    assert result.succeeded and result.observed_bytes == 8


def test_no_weyl_sequence_in_pcg64():
    assert isinstance(SplitMixPredictor().fit(backend_bytes("pcg64", 3, 64)), NoFit)


def test_java_splittable_random_backend():
    result = run_predictor(SplitMixPredictor(), backend_bytes("java-splittable-random", 5, 1 << 17))
    assert result.succeeded and result.observed_bytes == 8 and result.structure["gamma"] == GOLDEN_GAMMA


def test_a_prefix_ending_inside_a_word_is_continued_from_its_next_byte():
    data = backend_bytes("splitmix64", 12, 256)
    for observed in (9, 12, 15):
        fit = SplitMixPredictor().fit(data[:observed])
        assert (fit.predict(37) == data[observed:observed + 37]).all()
