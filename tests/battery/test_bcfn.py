"""bcfn, Marsaglia's and PractRand's Hamming-weight letters of blocks: the
letters of bytes (Marsaglia's 37, 56, 70, 56, 37 of 256), the counts and
statistic (Q_t - Q_(t-1) over circular tuples of letters) against a direct
computation; MINSTD fails it within 64 KiB, PCG64 passes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from accumulators import failed, results_of, same_results
from randqa.battery import _block_weights
from randqa.battery.bcfn import BCFN, weight_letters
from reference_generators import pcg64_array, reference_stream


def test_bcfn_letters_for_bytes_are_marsaglias() -> None:
    letters, probs = weight_letters(8, 5)
    assert letters.tolist() == [0, 0, 0, 1, 2, 3, 4, 4, 4]
    assert np.allclose(probs * 256, [37, 56, 70, 56, 37])


def test_bcfn_counts_and_statistic_match_direct_computation() -> None:
    data = pcg64_array(60_000, seed=50)
    acc = BCFN(block_bits=[16], letters=4, tuple_length=3)
    result = results_of(acc, data, [3, 999])[0]
    table, probs = weight_letters(16, 4)
    weights = np.unpackbits(data).reshape(-1, 16).sum(axis=1)
    letters = table[weights].astype(np.int64)
    circular = np.concatenate([letters, letters[:2]])
    words = circular[:-2] * 16 + circular[1:-1] * 4 + circular[2:]
    counts = np.bincount(words, minlength=64)
    pairs = counts.reshape(16, 4).sum(axis=1)
    p3 = np.einsum("i,j,k->ijk", probs, probs, probs).ravel()
    p2 = np.outer(probs, probs).ravel()
    n = len(letters)
    q3 = np.sum((counts - n * p3) ** 2 / (n * p3))
    q2 = np.sum((pairs - n * p2) ** 2 / (n * p2))
    assert math.isclose(result.statistic, q3 - q2, rel_tol=1e-9)
    assert result.details["dof"] == 64 - 16
    assert math.isclose(result.pvalue, stats.chi2.sf(q3 - q2, 48), rel_tol=1e-9)


def test_bcfn_fails_minstd_and_passes_pcg64() -> None:
    assert "bcfn[block_bits=32]" in failed(results_of(BCFN(block_bits=[32]), reference_stream("minstd", 131072)))
    assert not failed(results_of(BCFN(block_bits=[8, 32]), pcg64_array(131072, seed=51)))


@pytest.mark.parametrize(
    "params", [dict(block_bits=[12]), dict(block_bits=[]), dict(block_bits=[8, 8]), dict(letters=1), dict(tuple_length=1), dict(letters=16, tuple_length=6)]
)
def test_bcfn_refuses_bad_parameters(params) -> None:
    with pytest.raises(ValueError):
        BCFN(**params)


def test_bcfn_levels_derived_from_smaller_blocks_match_each_level_read_alone() -> None:
    # one pass, each level's weights summed from the level below, against a
    # pass over the bytes per level; cut so that blocks of every level
    # straddle the chunks
    data = pcg64_array(300_000, seed=52)
    sizes = [16, 32, 64, 128, 384, 768]
    chained = results_of(BCFN(block_bits=sizes, letters=3, tuple_length=5), data, [1, 4097, 150_001])
    alone = [results_of(BCFN(block_bits=[b], letters=3, tuple_length=5), data)[0] for b in sizes]
    same_results(chained, alone)


def test_bcfn_chain_merge_matches_one_pass() -> None:
    data = pcg64_array(262_144, seed=53)
    params = dict(block_bits=[8, 16, 32, 64, 128, 256, 512], letters=2, tuple_length=9, min_tuple_length=2)
    whole = results_of(BCFN(**params), data)
    left, right = BCFN(**params), BCFN(**params)
    cut = 3 * left.alignment * 41
    right.begin_at(cut)
    results_of(left, data[:cut], [5])
    results_of(right, data[cut:], [77])
    left.merge(right)
    same_results(left.finalize(), whole)


def test_bcfn_shorter_tuples_are_those_of_a_test_with_that_length() -> None:
    # 64 KiB of 32-bit blocks are too few for 12-letter words: the level
    # tests the longest words it has enough blocks for, whose counts are
    # sums of the 12-letter ones
    data = pcg64_array(65_536, seed=54)
    result = results_of(BCFN(block_bits=[32], letters=2, tuple_length=12, min_tuple_length=2), data)[0]
    t = result.details["tuple_length"]
    assert 2 <= t < 12
    direct = results_of(BCFN(block_bits=[32], letters=2, tuple_length=t), data)[0]
    assert (result.statistic, result.pvalue, result.details) == (direct.statistic, direct.pvalue, direct.details)
    # without min_tuple_length the level waits for enough blocks
    assert results_of(BCFN(block_bits=[32], letters=2, tuple_length=12), data)[0].pvalue is None


def test_bcfn_doubling_levels_fail_minstd_bytes_and_pass_pcg64() -> None:
    params = dict(block_bits=[16 << k for k in range(8)], letters=2, tuple_length=12, min_tuple_length=2)
    assert failed(results_of(BCFN(**params), reference_stream("minstd", 131072)))
    assert not failed(results_of(BCFN(**params), pcg64_array(1 << 20, seed=55)))


@pytest.mark.parametrize(
    "params", [dict(tuple_length=17), dict(letters=2, tuple_length=4, min_tuple_length=5), dict(min_tuple_length=1),
               dict(letters=3, tuple_length=11)]
)
def test_bcfn_refuses_bad_tuple_lengths(params) -> None:
    with pytest.raises(ValueError):
        BCFN(**params)


@pytest.mark.parametrize("letter_bits, steps, t", [(1, True, 4), (2, True, 4), (2, False, 4), (1, True, 2), (2, True, 2),
                                                    (1, False, 12), (1, True, 7)])
def test_block_weight_kernel_counts_match_numpy(letter_bits: int, steps: bool, t: int) -> None:
    # enough blocks per cell that the kernel counts runs of 4 (1 bit per
    # letter) or 2 (2 bits, or 2-letter tuples) tuples at once, or few
    # enough that it counts one at a time (12 letters); a table that steps up
    # with the weight (compared with its cuts) or one that does not (looked
    # up); one-bit letters take the packed-bits path; two calls, so the
    # latest letters carry over
    block_bytes = 2
    data = pcg64_array(80_000, seed=56)
    table = (np.arange(17) * 2**letter_bits // 17 if steps
             else np.random.default_rng(5).integers(0, 2**letter_bits, 17)).astype(np.uint8)
    counts = np.zeros(2 ** (letter_bits * t), dtype=np.int64)
    state, heads = np.zeros(4, dtype=np.int64), np.zeros(t - 1, dtype=np.int64)
    for part in (data[:2 * 12_345], data[2 * 12_345:]):
        _block_weights.block_weight_tuples(part, block_bytes, np.array([1]), np.array([letter_bits]), table.tobytes(),
                                           t, counts, state, heads)
    letters = table[np.unpackbits(data).reshape(-1, 8 * block_bytes).sum(axis=1)].astype(np.int64)
    index = sum(letters[j : len(letters) - t + 1 + j] << (letter_bits * (t - 1 - j)) for j in range(t))
    assert np.array_equal(counts, np.bincount(index, minlength=len(counts)))
    assert state[0] == index[-1] and state[1] == len(letters)
    assert heads.tolist() == letters[: t - 1].tolist()
