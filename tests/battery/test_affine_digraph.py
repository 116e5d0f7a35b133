"""affine_digraph: the counts equal a direct computation over the sampled
pairs in any chunking and across merges, the p-value is the Bonferroni'd
exact binomial tail of the most extreme cell, bad parameters and kernel
inputs are refused, a planted counter-affine bias fails while PCG64 passes,
and too little data is insufficient and says how much is needed.

Source: randqa/battery/affine_digraph.py (its docstring's formula);
scipy.stats.binom for the tails, computed independently of the module.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from randqa.battery import _affine_pairs
from randqa.battery._wide_counts import MAX_UNMOVED
from randqa.battery.affine_digraph import CELLS, SLOPES, AffineDigraph
from reference_generators import pcg64_array

#: the defaults' minimum: 16 blocks of 4,096 pairs, one every 524,288 bytes
DEFAULT_MINIMUM = 15 * 524_288 + 8192


def direct_tables(data: np.ndarray, block: int, period: int, start: int = 0) -> np.ndarray:
    """The 8 tables counted with numpy: the pairs at even stream positions t
    with t mod period < block, in cell ((z_t - alpha t) mod 256, (z_(t+1) - beta t) mod 256)."""
    t = np.arange(start, start + len(data) - 1, dtype=np.int64)
    t = t[(t % 2 == 0) & (t % period < block)]
    first, second = data[t - start].astype(np.int64), data[t - start + 1].astype(np.int64)
    return np.stack([np.bincount(((first - alpha * t) % 256) * 256 + (second - beta * t) % 256, minlength=CELLS)
                     for alpha, beta in SLOPES])


def tables_of(acc: AffineDigraph) -> np.ndarray:
    return acc.cells.total().reshape(len(SLOPES), CELLS)


def fed(acc: AffineDigraph, data: np.ndarray, cuts: list[int] = ()) -> AffineDigraph:
    bounds = [0, *sorted(cuts), len(data)]
    for lo, hi in zip(bounds, bounds[1:]):
        acc.update(data[lo:hi])
    return acc


def test_counts_equal_a_direct_computation_in_any_chunking_and_after_merges():
    data = pcg64_array(200_001, seed=31)
    params = dict(block=512, period=4096)
    expected = direct_tables(data, **params)
    assert expected[0].sum() == 200_001 // 4096 * 256 + 256  # the last, partial period holds a whole block
    assert np.array_equal(tables_of(fed(AffineDigraph(**params), data)), expected)
    # cuts inside pairs, inside and between blocks, and one-byte chunks
    cuts = [1, 2, 3, 511, 513, 4095, 4097, 4098, 99_999] + np.random.default_rng(1).integers(0, len(data), 30).tolist()
    chunked = fed(AffineDigraph(**params), data, cuts)
    assert np.array_equal(tables_of(chunked), expected) and chunked.pairs == expected[0].sum()
    # a right part placed at an odd position: the pair across the join is counted once
    for split in (70_001, 4096 * 3 + 1, 4096 * 3):
        left, right = AffineDigraph(**params), AffineDigraph(**params)
        right.begin_at(split)
        fed(left, data[:split], [split // 2 + 1]).merge(fed(right, data[split:], [11]))
        assert np.array_equal(tables_of(left), expected), split
        assert left.finalize()[0].to_json() == chunked.finalize()[0].to_json()
    # a right part numbered from 0 follows a left part of whole periods
    left, right = AffineDigraph(**params), AffineDigraph(**params)
    fed(left, data[:4096 * 7]).merge(fed(right, data[4096 * 7:]))
    assert np.array_equal(tables_of(left), expected)
    # a part placed mid-stream samples the stream's positions
    late = AffineDigraph(**params)
    late.begin_at(1001)
    assert np.array_equal(tables_of(fed(late, data[1001:], [5000])), direct_tables(data[1001:], start=1001, **params))


def test_an_unplaced_right_part_off_a_period_is_refused():
    left, right = AffineDigraph(block=256, period=512), AffineDigraph(block=256, period=512)
    left.update(np.zeros(256, dtype=np.uint8))
    right.update(np.zeros(10, dtype=np.uint8))
    with pytest.raises(ValueError, match="boundary"):
        left.merge(right)


def test_counts_move_to_the_totals_before_a_32_bit_cell_could_wrap():
    data = pcg64_array(140_000, seed=4)
    reference = fed(AffineDigraph(block=256, period=256), data).finalize()[0]
    acc = AffineDigraph(block=256, period=256)
    acc.update(data[:1000])
    acc.cells.unmoved = MAX_UNMOVED - 100  # as if 2^32 pairs had been counted
    acc.update(data[1000:])
    assert acc.cells.totals.sum() == 8 * 500 and acc.cells.unmoved == 69_500
    assert acc.finalize()[0].to_json() == reference.to_json()


def test_pvalue_is_the_bonferroni_exact_binomial_tail_of_the_most_extreme_cell():
    data = pcg64_array(2 * 300_000, seed=7)
    result = fed(AffineDigraph(block=256, period=256), data).finalize()[0]
    tables = direct_tables(data, 256, 256)
    m = int(tables[0].sum())
    assert m == 300_000 and result.details["pairs"] == m
    tails = []
    for k, (alpha, beta) in enumerate(SLOPES):
        top, bottom = int(tables[k].argmax()), int(tables[k].argmin())
        tails.append((binom.sf(tables[k, top] - 1, m, 2.0**-16), [alpha, beta], top, "upper"))
        tails.append((binom.cdf(tables[k, bottom], m, 2.0**-16), [alpha, beta], bottom, "lower"))
    tail, slopes, cell, side = min(tails, key=lambda x: x[0])
    assert result.pvalue_kind == "bound"
    assert result.pvalue == pytest.approx(min(1.0, tail * 8 * 65536 * 2), rel=1e-9)
    assert result.details["worst_pvalue"] == pytest.approx(tail, rel=1e-9)
    assert (result.details["slopes"], result.details["tail"]) == (slopes, side)
    assert result.details["cell"] == [cell >> 8, cell & 255]


@pytest.mark.parametrize("params", [dict(period=100), dict(period=0), dict(period=2**41), dict(period=256.0),
                                    dict(block=0), dict(block=3), dict(block=True), dict(block=1024, period=512),
                                    dict(block=8192.0)])
def test_bad_parameters_are_refused(params):
    with pytest.raises(ValueError, match="block" if "block" in params else "period"):
        AffineDigraph(**params)


def test_the_kernel_refuses_bad_inputs():
    data = np.zeros(64, dtype=np.uint8)
    good = dict(previous=-1, position=0, period=512, block=256)

    def call(counts=None, **changes):
        args = {**good, **changes}
        counts = np.zeros(8 * CELLS, dtype=np.uint32) if counts is None else counts
        return _affine_pairs.affine_pair_count(data, args["previous"], args["position"], args["period"],
                                               args["block"], counts)

    assert call() == 32
    for changes, says in [(dict(previous=256), "previous"), (dict(previous=-2), "previous"),
                          (dict(previous=5, position=0), "position"), (dict(position=-1), "position"),
                          (dict(period=511), "period"), (dict(period=0), "period"), (dict(block=0), "block"),
                          (dict(block=3), "block"), (dict(block=1024), "block"),
                          (dict(counts=np.zeros(8 * CELLS, dtype=np.int64)), "counts"),
                          (dict(counts=np.zeros(8 * CELLS - 1, dtype=np.uint32)), "counts"),
                          (dict(counts=np.zeros(8 * CELLS, dtype=np.float32)), "counts")]:
        with pytest.raises(ValueError, match=says):
            call(**changes)
    frozen = np.zeros(8 * CELLS, dtype=np.uint32)
    frozen.flags.writeable = False
    with pytest.raises((ValueError, BufferError)):
        call(counts=frozen)


def planted(n: int, seed: int, rate: float) -> np.ndarray:
    """Uniform bytes, except that where z_t = t mod 256, z_(t+1) becomes
    2t + 1 mod 256 with probability ``rate``: a bias of slopes (1, 2)."""
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 256, n, dtype=np.uint8)
    t = np.flatnonzero((z[:-1] == (np.arange(n - 1) & 255)) & (rng.random(n - 1) < rate))
    z[t + 1] = (2 * t + 1) & 255
    return z


def test_a_planted_affine_bias_fails_and_pcg64_passes():
    bad = fed(AffineDigraph(), planted(DEFAULT_MINIMUM, 3, 0.1), [1 << 20]).finalize()[0]
    assert bad.pvalue < 1e-12
    assert bad.details["slopes"] == [1, 2] and bad.details["tail"] == "upper"
    assert bad.details["cell"] == [0, 1]  # the positions are counted from 0, the planted phase
    good = fed(AffineDigraph(), pcg64_array(2 * DEFAULT_MINIMUM, seed=5), [1 << 20]).finalize()[0]
    assert good.verdict is None and good.pvalue > 0.01


@pytest.mark.parametrize("params, needed", [(dict(), DEFAULT_MINIMUM), (dict(block=256, period=1024), 511 * 1024 + 256),
                                            (dict(block=4096, period=4096), 131_072)])
def test_too_little_data_is_insufficient_and_says_how_much(params, needed):
    data = pcg64_array(needed, seed=9)
    short = fed(AffineDigraph(**params), data[:-1]).finalize()[0]
    assert short.verdict == "insufficient" and short.pvalue is None
    assert f"at least {needed} bytes" in short.needs and short.details["pairs"] == 65535
    enough = fed(AffineDigraph(**params), data).finalize()[0]
    assert enough.verdict is None and enough.pvalue is not None and enough.details["pairs"] == 65536
