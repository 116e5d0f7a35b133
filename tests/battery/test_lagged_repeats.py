"""lagged_repeats: its counts against the definition in any pieces and
merges, its p-values against the exact binomial law, bad parameters
refused, a constant stream failed at once, and R's Marsaglia-Multicarry
(whose low 16 bits never repeat 1340 words apart) caught at 8 MiB, where
PractRand 0.94's Gap-16 needs 32 MiB.

Source: the module's docstring (C_d ~ Binomial(n - d, 2^-16) exactly for
independent uniform words).  Minimum data: max_lag + 1 words.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from accumulators import failed, feed_in_pieces
from randqa.battery.lagged_repeats import LaggedRepeats
from randqa.results import Verdict
from reference_generators import backend_bytes, pcg64_array


def direct_counts(words: np.ndarray, max_lag: int) -> np.ndarray:
    return np.array([0] + [int(np.count_nonzero(words[d:] == words[:-d])) for d in range(1, max_lag + 1)])


def test_counts_equal_the_definition_in_any_pieces_and_merges():
    # low 16 bits with 700 distinct values, so every lag has repeats to count
    rng = np.random.default_rng(4)
    words = (rng.integers(0, 700, size=6000) + (rng.integers(0, 1 << 16, size=6000) << 16)).astype("<u4")
    data = words.view(np.uint8)
    expected = direct_counts(words & 0xFFFF, 300)
    pieces = LaggedRepeats(max_lag=300)
    feed_in_pieces(pieces, data, [1, 3, 1200, 1201, 18000])
    assert np.array_equal(pieces.counts, expected)
    for split in (4, 600, 1196, 1204, 16000, 23996):  # parts shorter and longer than max_lag words
        left, right = LaggedRepeats(max_lag=300), LaggedRepeats(max_lag=300)
        left.update(data[:split])
        right.update(data[split:])
        left.merge(right)
        assert np.array_equal(left.counts, expected), split
        assert left.finalize()[0].details == pieces.finalize()[0].details


def test_pvalues_are_the_exact_binomial_tails():
    words = pcg64_array(1 << 17, 5).view("<u2")
    test = LaggedRepeats(word_bits=16, max_lag=64)
    test.update(words.view(np.uint8))
    (result,) = test.finalize()
    counts = direct_counts(words, 64)[1:]
    pairs = len(words) - np.arange(1, 65)
    upper = stats.binom.sf(counts - 1, pairs, 2.0 ** -16)
    lower = stats.binom.cdf(counts, pairs, 2.0 ** -16)
    assert result.pvalue == pytest.approx(min(1.0, 64 * upper.min()), rel=1e-12)
    assert result.pvalue_low == pytest.approx(min(1.0, 64 * lower.min()), rel=1e-12)
    assert result.verdict is None and result.details["words"] == len(words)


def test_too_little_data_and_bad_parameters():
    test = LaggedRepeats(max_lag=2048)
    test.update(pcg64_array(4096, 1))
    (result,) = test.finalize()
    assert result.verdict == Verdict.INSUFFICIENT and "8196 bytes" in result.needs
    for bad in (0, 65537, 2.5, True):
        with pytest.raises(ValueError, match="max_lag"):
            LaggedRepeats(max_lag=bad)
    with pytest.raises(ValueError, match="word_bits"):
        LaggedRepeats(word_bits=8)


def test_a_constant_stream_fails_without_walking_every_lag():
    test = LaggedRepeats(word_bits=16, max_lag=65536)
    test.update(np.zeros(1 << 20, dtype=np.uint8))
    (result,) = test.finalize()
    assert result.details["words_stopped"] > 0 and result.pvalue < 1e-80
    assert failed([result]) == [result.name]


@pytest.mark.parametrize("size, fails", [(4 << 20, False), (8 << 20, True)])
def test_r_marsaglia_multicarry_low_halves_never_repeat_1340_apart(size, fails):
    test = LaggedRepeats(word_bits=32, max_lag=2048)
    test.update(backend_bytes("r-marsaglia-multicarry", 3, size))
    (result,) = test.finalize()
    assert result.details["fewest_repeats"]["lag"] == 1340 and result.details["fewest_repeats"]["count"] == 0
    assert (failed([result]) == [result.name]) == fails
