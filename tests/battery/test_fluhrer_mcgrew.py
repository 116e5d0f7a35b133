"""fluhrer_mcgrew, RC4's digraph biases (Fluhrer and McGrew, 2000): the cell
tables across chunks and merges against numpy, the phase scores against a
dense 256 x 256 computation, standard normal on random bytes, and planted
biases found at their phase on 64 MiB (the test's minimum).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from accumulators import results_of
from randqa.battery import _counts
from randqa.results import Thresholds, classify


def _rc4_cell_reference(data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The fluhrer_mcgrew kernel's tables, by numpy."""
    a, b = data[:-1].astype(np.int64), data[1:].astype(np.int64)
    cls = np.arange(len(a)) % 256
    low = np.zeros((256, 3, 256), dtype=np.int64)
    for row, value in enumerate((0, 129, 255)):
        hit = a == value
        np.add.at(low, (cls[hit], row, b[hit]), 1)
    high = np.zeros((256, 256), dtype=np.int64)
    hit = b == 255
    np.add.at(high, (cls[hit], a[hit]), 1)
    return low.ravel(), high.ravel()


def test_fluhrer_mcgrew_counts_cells_across_chunks_and_merges() -> None:
    from randqa.battery.fluhrer_mcgrew import FluhrerMcGrew

    # bytes drawn mostly from the values the cells use, so every table fills
    data = np.random.default_rng(21).choice(np.array([0, 1, 2, 129, 200, 255], dtype=np.uint8), size=200_003)
    low, high = _rc4_cell_reference(data)
    pieces = FluhrerMcGrew()
    results_of(pieces, data, cuts=[1, 2, 255, 256, 257, 70_001])
    left, right = FluhrerMcGrew(), FluhrerMcGrew()
    split = 256 * 300
    results_of(left, data[:split])
    results_of(right, data[split:], cuts=[5])
    left.merge(right)
    for acc in (pieces, left):
        assert np.array_equal(acc.low, low) and np.array_equal(acc.high, high)
        assert acc.bytes_seen == len(data)


def test_fluhrer_mcgrew_phase_scores_match_a_dense_computation() -> None:
    # the sparse cell lists against full 256 x 256 weight matrices per index
    # i and a full digraph table per position class, on a stream rich in the
    # bytes the cells use and whose length is not a multiple of 256
    from randqa.battery.fluhrer_mcgrew import PAIR, _CELLS, biased_cells, phase_scores

    weights = np.zeros((256, 256, 256))
    for i in range(256):
        for (a, b), w in biased_cells(i).items():
            weights[i, a, b] = w
    mean = weights.sum(axis=(1, 2)) * PAIR
    variance = (weights**2).sum(axis=(1, 2)) * PAIR - mean**2
    following = np.roll(weights, -1, axis=0)
    covariance = np.einsum("iab,ibc->i", weights, following) * PAIR / 256 - mean * np.roll(mean, -1)
    assert np.allclose(_CELLS.variance, variance, rtol=1e-12, atol=0)
    assert np.allclose(_CELLS.covariance, covariance, rtol=1e-12, atol=0)

    data = np.random.default_rng(24).choice(np.array([0, 1, 2, 3, 129, 254, 255], dtype=np.uint8), size=300_001)
    pairs = len(data) - 1
    table = np.zeros((256, 256, 256))
    np.add.at(table, (np.arange(pairs) % 256, data[:-1], data[1:]), 1)
    per_class = table.sum(axis=(1, 2))
    adjacent = np.bincount(np.arange(pairs - 1) % 256, minlength=256)
    low, high = np.zeros(256 * 3 * 256, dtype=np.int64), np.zeros(65536, dtype=np.int64)
    _counts.rc4_digraph_counts(data, 0, -1, low, high)
    z, _ = phase_scores(low, high, pairs)
    for f in (0, 1, 77, 255):
        i = (np.arange(256) + f) % 256
        s = (weights[i] * (table - per_class[:, None, None] * PAIR)).sum()
        var = (per_class * variance[i] + 2 * adjacent * covariance[i]).sum()
        assert z[f] == pytest.approx(s / math.sqrt(var), rel=1e-9)
    with pytest.raises(ValueError, match="previous"):
        _counts.rc4_digraph_counts(data, 0, 256, low, high)


def test_fluhrer_mcgrew_phase_scores_are_standard_normal_on_random_bytes() -> None:
    # each phase's z is standard normal on random bytes: 300 streams of 1 MiB,
    # all 256 phases (a coarse check; the variance itself is checked above)
    from randqa.battery.fluhrer_mcgrew import phase_scores

    rng = np.random.Generator(np.random.PCG64(22))
    scores = []
    for _ in range(300):
        data = rng.integers(0, 256, size=1 << 20, dtype=np.uint8)
        low, high = np.zeros(256 * 3 * 256, dtype=np.int64), np.zeros(65536, dtype=np.int64)
        _counts.rc4_digraph_counts(data, 0, -1, low, high)
        scores.append(phase_scores(low, high, len(data) - 1)[0])
    scores = np.array(scores)
    assert abs(scores.mean()) < 0.2
    assert 0.8 < scores.var(axis=0).mean() < 1.2


def test_fluhrer_mcgrew_finds_planted_biases_and_their_phase() -> None:
    # random bytes, except that after a byte i+1 (i = position mod 256 + 77)
    # the next byte is 255 three times as often as it should be: the
    # (i+1, 255) cells of Fluhrer and McGrew's table at phase 77
    from randqa.battery.fluhrer_mcgrew import FluhrerMcGrew

    rng = np.random.Generator(np.random.PCG64(23))
    data = rng.integers(0, 256, size=64 << 20, dtype=np.uint8)
    pairs = len(data) - 1
    i_plus_1 = np.resize(np.arange(78, 78 + 256, dtype=np.uint64).astype(np.uint8), pairs)
    planted = (data[:-1] == i_plus_1) & (rng.integers(0, 128, size=pairs, dtype=np.uint8) == 0)
    data[1:][planted] = 255
    acc = FluhrerMcGrew()
    acc.update(data)
    (result,) = acc.finalize()
    classify(result, Thresholds())
    assert result.verdict == "fail" and result.details["phase"] == 77
    clean = FluhrerMcGrew()
    clean.update(rng.integers(0, 256, size=64 << 20, dtype=np.uint8))
    (null,) = clean.finalize()
    assert null.pvalue > 1e-3
