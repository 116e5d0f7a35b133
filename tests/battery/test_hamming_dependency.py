"""hamming_dependency (Blackman and Vigna's HWD): the counts and sums per
signature equal a Python reading of the words, the trit probabilities are
hwd.c's, the transform equals hwd.c's recursive "mix3" written out here
and is orthonormal, the tail bound is above the exact tail of a
standardised binomial sum, parts cut anywhere merge into the one-pass
counts, bad parameters and too little data are refused, PCG64 passes and
xorshift32 fails (xorshift128+ needs gigabytes: see the module doc)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from accumulators import feed_in_pieces, same_results
from randqa.battery.hamming_dependency import (TRIT_BOUNDS, HammingDependency, contrast_tail, contrasts,
                                               positions_involved, trit_probabilities)
from randqa.results import Verdict
from reference_generators import backend_bytes, pcg64_array

rng = np.random.default_rng(20261204)


def reference_counts(words: np.ndarray, word_bits: int, dim: int) -> tuple[np.ndarray, np.ndarray]:
    low, high = TRIT_BOUNDS[word_bits]
    weights = [bin(int(x)).count("1") for x in words]
    trits = [(h >= low) + (h >= high) for h in weights]
    counts, sums = np.zeros(3 ** dim, dtype=np.int64), np.zeros(3 ** dim, dtype=np.int64)
    for i in range(dim, len(words)):
        signature = sum(trits[i - 1 - j] * 3 ** (dim - 1 - j) for j in range(dim))  # the latest most significant
        counts[signature] += 1
        sums[signature] += weights[i] - word_bits // 2
    return counts, sums


def skewed_words(count: int, word_bits: int) -> np.ndarray:
    # weights spread over all three trits: some words with few or many ones
    dtype = np.uint64 if word_bits == 64 else np.uint32
    words = rng.integers(0, np.iinfo(dtype).max, size=count, dtype=dtype, endpoint=True)
    words[::7] &= rng.integers(0, np.iinfo(dtype).max, size=len(words[::7]), dtype=dtype, endpoint=True)
    words[::5] |= rng.integers(0, np.iinfo(dtype).max, size=len(words[::5]), dtype=dtype, endpoint=True)
    return words


@pytest.mark.parametrize("word_bits, dim", [(64, 3), (32, 5), (64, 1)])
def test_counts_equal_a_python_reading(word_bits, dim):
    words = skewed_words(3000, word_bits)
    acc = HammingDependency(word_bits=word_bits, dim=dim)
    feed_in_pieces(acc, words.view(np.uint8), [1, 3, 5, 4000, 4003, 9001])
    counts, sums = reference_counts(words, word_bits, dim)
    assert np.array_equal(acc.counts, counts) and np.array_equal(acc.sums, sums)


@pytest.mark.parametrize("dim", [7, 8])
def test_long_runs_count_as_a_python_reading(dim):
    # one run of many blocks, enough words per signature for the kernel's packed counts; the kernel's signatures
    # from runs of trits: dim 7 = 1 + 2 + 4, dim 8 (the standard suite's) one run of 8
    words = skewed_words(40_000, 32)
    acc = HammingDependency(word_bits=32, dim=dim)
    feed_in_pieces(acc, words.view(np.uint8), [4 * 5, 4 * 39_000])
    counts, sums = reference_counts(words, 32, dim)
    assert np.array_equal(acc.counts, counts) and np.array_equal(acc.sums, sums)


def test_trit_probabilities_are_hwd_c_s():
    for word_bits, middle in [(64, 0.46769122397215788544), (32, 0.40338510414585471153)]:
        p = trit_probabilities(word_bits)
        assert p.sum() == pytest.approx(1, abs=1e-15) and p[0] == pytest.approx(p[2], rel=1e-12)
        assert p[1] == pytest.approx(middle, rel=1e-12)


def mix3(values: list[float], size: int, offset: int = 0) -> None:
    """hwd.c's transform, recursively on thirds of the array, as the paper describes it."""
    for i in range(offset, offset + size):
        a, b, c = values[i], values[i + size], values[i + 2 * size]
        values[i] = (a + b + c) / math.sqrt(3)
        values[i + size] = (a - c) / math.sqrt(2)
        values[i + 2 * size] = (2 * b - a - c) / math.sqrt(6)
    if size >= 3:
        for third in range(3):
            mix3(values, size // 3, offset + third * size)


@pytest.mark.parametrize("dim", [1, 2, 4])
def test_transform_is_hwd_c_s_mix3_and_orthonormal(dim):
    z = rng.normal(size=3 ** dim)
    expected = z.tolist()
    mix3(expected, 3 ** (dim - 1))
    mixed = contrasts(z, dim)
    assert np.allclose(mixed, expected, atol=1e-12)
    assert float(np.sum(mixed ** 2)) == pytest.approx(float(np.sum(z ** 2)), rel=1e-12)
    assert positions_involved(dim)[0] == 0 and positions_involved(dim)[-1] == dim


@pytest.mark.parametrize("words", [1, 3, 40])
def test_contrast_tail_bounds_the_exact_tail_of_a_standardised_binomial_sum(words):
    from scipy.stats import binom

    trials = 64 * words  # the ones of `words` 64-bit words
    for z in (1.0, 3.0, 5.0, 7.0):
        # P(|ones - trials/2| >= z sqrt(trials/4)), exactly
        reach = math.ceil(trials / 2 + z * math.sqrt(trials / 4) - 1e-9)
        exact = 2 * binom.sf(reach - 1, trials, 0.5)
        assert exact <= contrast_tail(z)
        assert contrast_tail(z) >= math.erfc(z / math.sqrt(2))


def test_parts_cut_anywhere_merge_into_one_pass():
    words = skewed_words(4000, 64)
    data = words.view(np.uint8)
    whole = HammingDependency(dim=5)
    whole.update(data)
    for cuts in ([8], [8, 16, 24], [800, 808, 10_000], list(range(2400, len(data), 2400))):
        bounds = [0, *cuts, len(data)]
        merged = None
        for lo, hi in zip(bounds, bounds[1:]):
            part = HammingDependency(dim=5)
            part.begin_at(lo)
            part.update(data[lo:hi])
            sent = HammingDependency(dim=5)
            sent.begin_at(lo)
            sent.load_state(part.state())
            merged = sent if merged is None else (merged.merge(sent) or merged)
        assert np.array_equal(merged.counts, whole.counts) and np.array_equal(merged.sums, whole.sums), cuts
        assert np.array_equal(merged.cursor, whole.cursor), cuts
        same_results(merged.finalize(), whole.finalize())


@pytest.mark.parametrize("params", [{"word_bits": 16}, {"word_bits": True}, {"dim": 0}, {"dim": 13},
                                    {"dim": 2.0}, {"dim": True}])
def test_bad_parameters_are_refused(params):
    with pytest.raises(ValueError):
        HammingDependency(**params)


def test_too_little_data_is_insufficient():
    acc = HammingDependency(dim=4)
    need = acc.min_words()
    acc.update(pcg64_array(8 * (need - 1), seed=1))
    (result,) = acc.finalize()
    assert result.verdict == Verdict.INSUFFICIENT and str(need) in result.needs
    acc.update(pcg64_array(8, seed=2))
    assert acc.finalize()[0].verdict is None


@pytest.mark.parametrize("word_bits, dim", [(64, 8), (32, 6)])
def test_pcg64_passes(word_bits, dim):
    acc = HammingDependency(word_bits=word_bits, dim=dim)
    acc.update(pcg64_array(32 << 20, seed=5))
    assert acc.finalize()[0].pvalue > 1e-3


def test_xorshift32_fails_at_16_mib():
    acc = HammingDependency(word_bits=32, dim=4)
    acc.update(backend_bytes("xorshift32", 1, 16 << 20))
    (result,) = acc.finalize()
    assert result.pvalue < 1e-9 and result.details["contrast"] == "0002"  # the latest word, quadratic

