"""mod3: the remainder probabilities against enumeration, the counts and
statistic (Q_t - Q_(t-1) over circular tuples of block remainders) against
a direct computation, the same result however the stream is cut or merged,
bad parameters refused; an additive generator fails it, PCG64 passes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from accumulators import failed, feed_in_sizes, results_of, same_results
from randqa.battery import _mod3
from randqa.battery.mod3 import STRETCH_BYTES, Mod3, remainder_probabilities
from reference_generators import pcg64_array


@pytest.mark.parametrize("bits", [8, 16])
def test_mod3_remainder_probabilities_match_enumeration(bits: int) -> None:
    exact = np.bincount(np.arange(2**bits) % 3) / 2**bits
    assert np.allclose(remainder_probabilities(bits), exact, rtol=1e-15, atol=0)


def direct_statistic(data: np.ndarray, level: int, t: int) -> tuple[float, int]:
    """Q_t - Q_(t-1) of the circular t-tuples of the 2^level-byte blocks' values mod 3."""
    block = 1 << level
    values = data[: len(data) // block * block].astype(np.int64).reshape(-1, block)
    # each block's value as a little-endian integer, mod 3, by Python's big integers
    letters = np.array([int.from_bytes(bytes(row.astype(np.uint8)), "little") % 3 for row in values])
    n = len(letters)
    circular = np.concatenate([letters, letters[: t - 1]])
    index = np.zeros(n, dtype=np.int64)
    for j in range(t):
        index = 3 * index + circular[j : j + n]
    counts = np.bincount(index, minlength=3**t)
    shorter = counts.reshape(-1, 3).sum(axis=1)
    probs = remainder_probabilities(8 * block)
    pt = probs
    for _ in range(t - 1):
        pt = np.multiply.outer(pt, probs).ravel()
    ps = pt.reshape(-1, 3).sum(axis=1)
    q = np.sum((counts - n * pt) ** 2 / (n * pt)) - np.sum((shorter - n * ps) ** 2 / (n * ps))
    return float(q), n


def test_mod3_statistic_matches_direct_computation() -> None:
    data = pcg64_array(40_000, seed=60)
    results = results_of(Mod3(levels=3, tuple_length=4), data, [5, 4093, 20_000])
    for level, result in enumerate(results):
        assert result.details["tuple_length"] == 4
        q, n = direct_statistic(data, level, 4)
        assert result.details["blocks"] == n
        assert math.isclose(result.statistic, q, rel_tol=1e-9)
        assert result.details["dof"] == 81 - 27
        assert math.isclose(result.pvalue, stats.chi2.sf(q, 54), rel_tol=1e-9)
        assert math.isclose(result.pvalue_low, stats.chi2.cdf(q, 54), rel_tol=1e-9)


def test_mod3_shortens_tuples_to_the_data() -> None:
    # 4,000 bytes: 4000 * (85/256)^t >= 14 up to t = 5 (t = 6: 5.3 expected)
    result = results_of(Mod3(levels=1, tuple_length=9), pcg64_array(4000, seed=61))[0]
    assert result.details["tuple_length"] == 5
    q, _ = direct_statistic(pcg64_array(4000, seed=61), 0, 5)
    # the 9-tuples' counts summed over their 4 oldest remainders are the circular 5-tuples'
    assert math.isclose(result.statistic, q, rel_tol=1e-9)


def test_mod3_same_result_however_cut_and_merged() -> None:
    data = pcg64_array(200_000, seed=62)
    whole = Mod3(levels=5, tuple_length=6)
    whole.update(data)
    pieces = Mod3(levels=5, tuple_length=6)
    feed_in_sizes(pieces, data)
    assert np.array_equal(whole.counts, pieces.counts) and np.array_equal(whole.scan_state, pieces.scan_state)
    same_results(whole.finalize(), pieces.finalize())
    # parts of 16 (the alignment), 48 and the rest: the second one shorter than a tuple at the top level
    cuts = [0, 16, 64, len(data)]
    parts = []
    for start, end in zip(cuts, cuts[1:]):
        part = Mod3(levels=5, tuple_length=6)
        part.begin_at(start)
        part.update(data[start:end])
        parts.append(part)
    merged = parts[0]
    for part in parts[1:]:
        merged.merge(part)
    assert np.array_equal(whole.counts, merged.counts) and np.array_equal(whole.scan_state, merged.scan_state)
    same_results(whole.finalize(), merged.finalize())


def test_mod3_every_tests_one_stretch_in_every_as_one_stream() -> None:
    data = pcg64_array(10 * STRETCH_BYTES + 1000, seed=68)
    sampled = np.concatenate([data[k * STRETCH_BYTES : (k + 1) * STRETCH_BYTES] for k in range(0, 11, 3)])
    expected = results_of(Mod3(levels=4, tuple_length=7), sampled)
    same_results(results_of(Mod3(levels=4, tuple_length=7, every=3), data, [5, STRETCH_BYTES - 3, 200_001]), expected)
    # parts placed where they start, cut inside a tested stretch and inside a skipped one
    cuts = [0, STRETCH_BYTES // 2, STRETCH_BYTES + 8, len(data)]
    parts = []
    for start, end in zip(cuts, cuts[1:]):
        part = Mod3(levels=4, tuple_length=7, every=3)
        part.begin_at(start)
        part.update(data[start:end])
        parts.append(part)
    for part in parts[1:]:
        parts[0].merge(part)
    same_results(parts[0].finalize(), expected)


def test_mod3_merge_needs_whole_blocks() -> None:
    left, right = Mod3(levels=3), Mod3(levels=3)
    left.update(pcg64_array(6, seed=63))
    right.update(pcg64_array(8, seed=64))
    with pytest.raises(ValueError):
        left.merge(right)


def test_mod3_too_little_data_is_insufficient() -> None:
    results = results_of(Mod3(levels=2), pcg64_array(60, seed=65))
    # 60 bytes: 60 * 85/256 = 19.9 expected per remainder, a frequency test (t = 1); 30 pairs, 10 expected
    assert results[0].pvalue is not None and results[0].details["tuple_length"] == 1
    assert results[1].verdict == "insufficient" and "bytes" in results[1].needs


def additive_words(count: int, seed: int) -> np.ndarray:
    """x_n = x_(n-1) + x_(n-3) mod 2^32: consecutive words' remainders mod 3
    add up, but for the carry."""
    x = [int(v) for v in np.random.default_rng(seed).integers(0, 2**32, 3)]
    for _ in range(count - 3):
        x.append((x[-1] + x[-3]) & 0xFFFFFFFF)
    return np.array(x, dtype="<u4").view(np.uint8)


def test_mod3_fails_an_additive_generator_and_passes_pcg64() -> None:
    assert "mod3[block_bits=32]" in failed(results_of(Mod3(levels=3), additive_words(16_384, seed=66)))
    assert not failed(results_of(Mod3(), pcg64_array(1 << 20, seed=67)))


@pytest.mark.parametrize("params", [dict(levels=0), dict(levels=17), dict(levels=2.0), dict(tuple_length=0),
                                    dict(tuple_length=12), dict(tuple_length=True), dict(every=0), dict(every=1025)])
def test_mod3_refuses_bad_parameters(params) -> None:
    with pytest.raises(ValueError):
        Mod3(**params)


@pytest.mark.parametrize("tuple_length", [1, 2, 8, 9, 11])
def test_mod3_kernel_counts_the_tuples_of_every_level(tuple_length: int) -> None:
    # the kernel's tuple indices from runs of 1, 2, 4 and 8 remainders, in blocks of hundreds: each remainder that
    # completes a tuple counts it, the newest remainder least significant, however the bytes are cut
    data = pcg64_array(30_011, seed=69).copy()
    data[1000:3000] = 3  # a stretch of zero remainders: one cell counted many times over
    levels, cells = 3, 3**tuple_length
    counts, state = np.zeros(levels * cells, np.int64), np.zeros(4 * levels, np.int64)
    for lo, hi in zip([0, 1, 7, 4099], [1, 7, 4099, len(data)]):
        _mod3.mod3_tuple_scan(data[lo:hi], levels, tuple_length, counts, state)
    letters = data.astype(np.int64) % 3
    for level in range(levels):
        index = np.zeros(len(letters) - tuple_length + 1, dtype=np.int64)
        for j in range(tuple_length):
            index = 3 * index + letters[j : j + len(index)]
        expected = np.bincount(index, minlength=cells)
        assert np.array_equal(counts[level * cells : (level + 1) * cells], expected), level
        pairs = len(letters) // 2
        letters = (letters[: 2 * pairs : 2] + letters[1 : 2 * pairs : 2]) % 3


def test_mod3_kernel_refuses_bad_arguments() -> None:
    data = np.zeros(16, dtype=np.uint8)
    with pytest.raises(ValueError):
        _mod3.mod3_tuple_scan(data, 2, 3, np.zeros(2 * 26, np.int64), np.zeros(8, np.int64))  # counts too short
    with pytest.raises(ValueError):
        _mod3.mod3_tuple_scan(data, 2, 3, np.zeros(2 * 27, np.int64), np.array([27, 0, 0, 0, 0, 0, 0, 0]))  # index past 3^t
    with pytest.raises(ValueError):
        _mod3.mod3_tuple_scan(data, 17, 3, np.zeros(17 * 27, np.int64), np.zeros(68, np.int64))
