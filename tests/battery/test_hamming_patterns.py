"""hamming_patterns: the tuple length chosen from the data, the statistics
(Q_t - Q_(t-1) over circular tuples of byte-weight letters, t the longest
length and the shorter ones) against a direct computation, the same result
however the stream is cut or merged and on a fold, bad parameters refused;
bytes that repeat the byte 5 before now and then fail it (bcfn's 4-tuples
do not see them), PCG64 passes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from accumulators import failed, results_of, same_results, summary
from randqa.battery._folding import FoldedTest
from randqa.battery.bcfn import BCFN, weight_letters
from randqa.battery.hamming_patterns import HammingPatterns
from reference_generators import folded_low_bits, pcg64_array


def direct_statistic(data: np.ndarray, t: int) -> float:
    """Q_t - Q_(t-1) of the circular t-tuples of the bytes' 4 weight letters."""
    table, probs = weight_letters(8, 4)
    letters = table[np.unpackbits(data).reshape(-1, 8).sum(axis=1)].astype(np.int64)
    n = len(letters)
    circular = np.concatenate([letters, letters[: t - 1]])
    index = np.zeros(n, dtype=np.int64)
    for j in range(t):
        index = 4 * index + circular[j : j + n]
    counts = np.bincount(index, minlength=4**t)
    shorter = counts.reshape(-1, 4).sum(axis=1)
    pt = np.ones(1)
    for _ in range(t):
        pt = np.multiply.outer(pt, probs).ravel()
    ps = pt.reshape(-1, 4).sum(axis=1)
    return float(np.sum((counts - n * pt) ** 2 / (n * pt)) - np.sum((shorter - n * ps) ** 2 / (n * ps)))


def test_hamming_patterns_statistics_match_direct_computation() -> None:
    # 5,000 bytes: 5000 * (37/256)^t >= 14 up to t = 3 (t = 4: 2.2 expected)
    data = pcg64_array(5000, seed=70)
    results = results_of(HammingPatterns(tuple_length=6, shorter=2), data, [3, 999])
    assert [r.name for r in results] == ["hamming_patterns[block_bits=8,longest]", "hamming_patterns[block_bits=8,longest-1]",
                                         "hamming_patterns[block_bits=8,longest-2]", "hamming_patterns[block_bits=8,halves]"]
    for result, t in zip(results[:2], (3, 2)):
        assert result.details["tuple_length"] == t and result.details["dof"] == 4**t - 4 ** (t - 1)
        q = direct_statistic(data, t)
        assert math.isclose(result.statistic, q, rel_tol=1e-9)
        assert math.isclose(result.pvalue, stats.chi2.sf(q, 4**t - 4 ** (t - 1)), rel_tol=1e-9)
    assert results[2].verdict == "insufficient"  # t = 1 is no pattern


def test_hamming_patterns_too_little_data_is_insufficient() -> None:
    # 2-tuples need 14 / (37/256)^2 = 671 bytes
    results = results_of(HammingPatterns(), pcg64_array(600, seed=71))
    assert all(r.verdict == "insufficient" for r in results[:3])
    assert [r.needs.split()[2] for r in results[:3]] == ["671", "4638", "32084"]  # 14 / (37/256)^t, t = 2, 3, 4
    # the halves' rarest letter has 93/256: 2-tuples from 107 bytes, 3-tuples here
    assert results[3].details["tuple_length"] == 3
    assert results_of(HammingPatterns(), pcg64_array(100, seed=71))[3].needs.split()[2] == "107"
    assert results_of(HammingPatterns(), pcg64_array(700, seed=71))[0].details["tuple_length"] == 2


def test_hamming_patterns_same_result_however_cut_and_merged() -> None:
    data = pcg64_array(300_000, seed=72)
    params = dict(block_bits=[8, 16], tuple_length=7)
    whole = results_of(HammingPatterns(**params), data)
    same_results(whole, results_of(HammingPatterns(**params), data, [1, 7, 4093, 100_001]))
    left, right = HammingPatterns(**params), HammingPatterns(**params)
    left.update(data[:100_000])
    right.begin_at(100_000)
    right.update(data[100_000:])
    left.merge(right)
    same_results(whole, left.finalize())


def test_a_tuple_repeated_millions_of_times_in_one_call_is_counted_in_full() -> None:
    # 4 MiB of one weight: one 9-letter word 2 million times in a call, past
    # the kernel's 16-bit counters; pieces of 64 KiB count in 64-bit cells
    data = np.full(4 << 20, 0x0F, dtype=np.uint8)
    whole, pieces = HammingPatterns(tuple_length=8), HammingPatterns(tuple_length=8)
    whole.update(data)
    for start in range(0, len(data), 1 << 16):
        pieces.update(data[start:start + (1 << 16)])
    assert whole.levels[0].counts.max() == len(data) - 7
    assert np.array_equal(whole.levels[0].counts, pieces.levels[0].counts)


def test_hamming_patterns_on_a_fold_is_the_test_of_the_folded_stream() -> None:
    data = pcg64_array(400_000, seed=73)
    folded = results_of(FoldedTest(HammingPatterns(), word_bits=16, low_bits=1), data, [5, 77_777])
    direct = results_of(HammingPatterns(), np.frombuffer(folded_low_bits(data.tobytes(), 2, 1), dtype=np.uint8))
    assert [r.name for r in folded] == [r.name + "[low1/16]" for r in direct]
    assert [s[1:] for s in summary(folded)] == [s[1:] for s in summary(direct)]


def repeating_bytes(n: int, lag: int, rate: float, seed: int) -> np.ndarray:
    """Random bytes, a fraction ``rate`` of which copy the byte ``lag`` before."""
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 256, n, dtype=np.uint8)
    copies = np.flatnonzero(rng.random(n) < rate)
    copies = copies[copies >= lag]
    data[copies] = data[copies - lag]
    return data


def test_hamming_patterns_fails_long_range_repeats_that_bcfn_passes() -> None:
    data = repeating_bytes(2 << 20, lag=5, rate=0.05, seed=74)
    assert failed(results_of(HammingPatterns(), data)) == ["hamming_patterns[block_bits=8,longest]",
                                                           "hamming_patterns[block_bits=8,halves]"]
    assert not failed(results_of(BCFN(block_bits=[8]), data))


def test_the_halves_are_the_tuples_of_two_letters_read_from_the_same_counts() -> None:
    data = pcg64_array(200_000, seed=77)
    halves = results_of(HammingPatterns(), data, [3, 99_999])[3]
    two = results_of(HammingPatterns(letters=2, shorter=0), data)
    assert len(two) == 1 and halves.details["tuple_length"] == two[0].details["tuple_length"] == 8
    assert math.isclose(halves.statistic, two[0].statistic, rel_tol=1e-12)
    assert halves.pvalue == pytest.approx(two[0].pvalue, rel=1e-9)
    assert len(results_of(HammingPatterns(letters=5, tuple_length=6), data)) == 3  # an odd number of letters has no halves


def test_the_halves_see_a_dependence_farther_than_the_longest_tuples_reach() -> None:
    # each byte copies the one 7 before at 2%: at 1 MiB the 4-letter tuples hold 6 bytes
    data = repeating_bytes(1 << 20, lag=7, rate=0.02, seed=76)
    assert failed(results_of(HammingPatterns(), data)) == ["hamming_patterns[block_bits=8,halves]"]


def test_hamming_patterns_passes_pcg64() -> None:
    assert not failed(results_of(HammingPatterns(block_bits=[8, 16, 32]), pcg64_array(4 << 20, seed=75)))


@pytest.mark.parametrize("params", [dict(shorter=-1), dict(shorter=7), dict(shorter=1.0), dict(tuple_length=9),
                                    dict(tuple_length=1), dict(letters=1), dict(block_bits=[12]), dict(letters=16, tuple_length=6)])
def test_hamming_patterns_refuses_bad_parameters(params) -> None:
    with pytest.raises(ValueError):
        HammingPatterns(**params)
