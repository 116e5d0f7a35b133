"""digraph: the chi-square of successive byte pairs less the row and column
terms (Good's second difference on a circular stream), per position class
when position_mod > 1, against a direct computation; it catches a
position-dependent bias and needs two pairs per cell (131,073 bytes).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from accumulators import failed, results_of
from randqa.results import Thresholds, classify
from randqa.battery.digraph import Digraph
from reference_generators import pcg64_array


def _digraph_reference(data: np.ndarray, position_mod: int) -> float:
    x = data.astype(np.int64)
    classes = max(position_mod, 1)
    total = 0.0
    for r in range(classes):
        starts = np.arange(len(x) - 1)
        starts = starts[starts % classes == r]
        table = np.zeros((256, 256))
        np.add.at(table, (x[starts], x[starts + 1]), 1)
        m = table.sum()
        pairs = ((table - m / 65536) ** 2).sum() / (m / 65536)
        rows = ((table.sum(1) - m / 256) ** 2).sum() / (m / 256)
        cols = ((table.sum(0) - m / 256) ** 2).sum() / (m / 256)
        total += pairs - rows - cols
    return total


@pytest.mark.parametrize("position_mod", [0, 2])
def test_digraph_statistic_matches_direct_computation(position_mod: int) -> None:
    data = pcg64_array(280_001, seed=31)
    result = results_of(Digraph(position_mod=position_mod), data, [5, 77_777])[0]
    assert math.isclose(result.statistic, _digraph_reference(data, position_mod), rel_tol=1e-10)
    assert result.details["dof"] == max(position_mod, 1) * 255**2
    assert not failed([result])


def test_digraph_circular_stream_equals_goods_second_difference() -> None:
    """With the first byte repeated at the end, rows = columns = byte counts of
    the circular sequence, and the statistic is Good's ψ²_2 - 2ψ²_1."""
    data = pcg64_array(140_000, seed=32)
    circular = np.append(data, data[0])
    statistic = results_of(Digraph(), circular)[0].statistic
    x = data.astype(np.int64)
    pairs = np.bincount(x * 256 + np.roll(x, -1), minlength=65536)
    singles = np.bincount(x, minlength=256)
    n = len(x)
    psi2 = 65536 / n * np.sum(pairs.astype(float) ** 2) - n
    psi1 = 256 / n * np.sum(singles.astype(float) ** 2) - n
    assert math.isclose(statistic, psi2 - 2 * psi1, rel_tol=1e-8)


def test_digraph_detects_a_position_dependent_bias() -> None:
    """Equal successive bytes twice as often as chance at even positions and
    never at odd ones: the one-table statistic sees the average, which is
    right; the position-conditioned one fails."""
    data = pcg64_array(2_000_000, seed=33).copy()
    rng = np.random.default_rng(4)
    even = np.arange(0, len(data) - 1, 2)
    chosen = even[rng.random(len(even)) < 1 / 256]
    data[chosen + 1] = data[chosen]
    odd = np.arange(1, len(data) - 1, 2)
    equal = odd[data[odd + 1] == data[odd]]
    data[equal + 1] = (data[equal] + rng.integers(1, 256, len(equal))) % 256
    assert failed(results_of(Digraph(position_mod=2), data)) == ["digraph[position_mod=2]"]
    assert not failed(results_of(Digraph(), data))


def test_digraph_needs_two_pairs_per_cell() -> None:
    # below one pair per cell no statistic; from one to two, only a tail below 1e-20 fails
    assert results_of(Digraph(), pcg64_array(65_536, seed=1))[0].statistic is None
    between = results_of(Digraph(), pcg64_array(131_072, seed=1))[0]
    assert between.statistic is not None and "131073" in between.needs
    assert classify(between, Thresholds()) == "insufficient"
    assert results_of(Digraph(), pcg64_array(131_073, seed=1))[0].verdict is None
    # each byte followed by one of only 16: decisive at one pair per cell
    steps = pcg64_array(65_537, seed=2) & 15
    data = (np.cumsum(steps, dtype=np.int64) % 256).astype(np.uint8)
    blatant = results_of(Digraph(), data)[0]
    assert blatant.needs is not None
    assert classify(blatant, Thresholds()) == "fail" and blatant.needs is None  # failed, whatever more data says
