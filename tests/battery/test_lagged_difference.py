"""lagged_difference: its counts against a direct computation, its
statistic against scipy's, bad parameters refused, truncated power-of-two
LCGs caught early (MMIX, java.util.Random and relatives built here), and
uniform p-values on a good generator."""

from __future__ import annotations

from itertools import islice
from math import comb

import numpy as np
import pytest
from scipy import stats

from randqa.battery import _differences
from randqa.battery._multinomial import multinomial_tail
from randqa.battery.lagged_difference import LaggedDifference, power_divergence
from reference_generators import MMIX_INCREMENT, MMIX_MULTIPLIER, pcg64_bytes, truncated_lcg_bytes, wide_lcg_blocks


def direct_counts(data: bytes, word_bits: int, order: int, max_lag: int, bits: int, starts: int, period: int):
    """The counts by the definition, in Python integers, over whole words."""
    words = np.frombuffer(data[: len(data) - len(data) % (word_bits // 8)], dtype=f"<u{word_bits // 8}")
    y = [int(w) for w in words]
    rows = []
    lag = 1
    while lag <= max_lag:
        row = [0] * (1 << bits)
        for n in range(len(y) - order * lag):
            if n % period < starts:
                z = sum((-1) ** (order - i) * comb(order, i) * y[n + i * lag] for i in range(order + 1))
                row[z % (1 << bits)] += 1
        rows.append(row)
        lag *= 2
    return np.array(rows)


@pytest.mark.parametrize("word_bits, order, max_lag, bits, starts, period", [
    (32, 4, 64, 4, 256, 16384),
    (8, 2, 16, 8, 5, 7),
    (16, 5, 32, 3, 100, 100),
    (64, 1, 8, 6, 3, 40),
])
def test_counts_equal_the_definition_in_any_pieces(word_bits, order, max_lag, bits, starts, period):
    data = pcg64_bytes(9001, 3)
    expected = direct_counts(data, word_bits, order, max_lag, bits, starts, period)
    params = dict(word_bits=word_bits, order=order, max_lag=max_lag, bits=bits, starts=starts, period=period)
    whole = LaggedDifference(**params)
    whole.update(np.frombuffer(data, dtype=np.uint8))
    assert (whole.counts == expected).all()
    pieces = LaggedDifference(**params)
    arr = np.frombuffer(data, dtype=np.uint8)
    for lo, hi in zip([0, 1, 13, 700, 701, 4000], [1, 13, 700, 701, 4000, len(arr)]):
        pieces.update(arr[lo:hi])
    assert (pieces.counts == expected).all()
    # a merge at a whole number of periods of words equals one pass
    split = len(arr) // 2 // whole.alignment * whole.alignment
    left, right = LaggedDifference(**params), LaggedDifference(**params)
    left.update(arr[:split])
    right.update(arr[split:])
    left.merge(right)
    assert (left.counts == expected).all()


def test_statistic_is_cressie_read_and_result_is_the_bonferroni_minimum():
    counts = np.random.default_rng(3).integers(0, 60, size=(6, 16))
    ours = power_divergence(counts, counts.sum(axis=1))
    theirs = [stats.power_divergence(row, lambda_="cressie-read").statistic for row in counts]
    assert ours == pytest.approx(theirs, rel=1e-12)
    acc = LaggedDifference()
    acc.update(np.frombuffer(pcg64_bytes(1 << 16, 8), dtype=np.uint8))
    result = acc.finalize()[0]
    judged = acc.counts[acc.counts.sum(axis=1) >= 128]
    samples = judged.sum(axis=1)
    statistics = power_divergence(judged, samples)
    p = stats.chi2.sf(statistics, 15)
    # lags with fewer than 32 expected per class near the smallest p-value: the exact tail
    if p.min() * len(p) < 0.01:
        near = (samples < 1024) & (p < 2 * p.min())
        p[near] = [multinomial_tail(np.full(16, 1 / 16), int(n), x, kind="cressie_read").pvalue
                   for n, x in zip(samples[near], statistics[near])]
    assert result.details["lags_judged"] == len(judged)
    assert result.pvalue == pytest.approx(min(1.0, p.min() * len(p)), rel=1e-9)
    assert result.pvalue_kind == "bound"


def test_a_lag_with_few_samples_takes_the_exact_tail():
    # 128 counted starts at lag 1 (8 expected per class): the result is the
    # exact multinomial tail (1.07e-4 at most), not chi-square's 1.12e-4
    acc = LaggedDifference(max_lag=1)
    acc.counts[0, :] = [22, 20] + [6] * 13 + [8]
    result = acc.finalize()[0]
    statistic = float(power_divergence(acc.counts[:1], acc.counts[:1].sum(axis=1))[0])
    exact = multinomial_tail(np.full(16, 1 / 16), 128, statistic, kind="cressie_read")
    assert result.pvalue == exact.pvalue == pytest.approx(1.0666e-4, rel=1e-3)
    assert stats.chi2.sf(statistic, 15) == pytest.approx(1.1240e-4, rel=1e-3)


def test_too_little_data_is_insufficient_and_says_how_much():
    acc = LaggedDifference()
    acc.update(np.frombuffer(pcg64_bytes(527, 1), dtype=np.uint8))
    result = acc.finalize()[0]
    assert result.verdict == "insufficient" and "528 bytes" in result.needs
    acc.update(np.frombuffer(pcg64_bytes(1, 2), dtype=np.uint8))
    assert acc.finalize()[0].pvalue is not None


@pytest.mark.parametrize("params", [
    dict(word_bits=24), dict(order=0), dict(order=9), dict(max_lag=3), dict(max_lag=1 << 25), dict(bits=9),
    dict(min_lag=0), dict(min_lag=3), dict(min_lag=128, max_lag=64), dict(min_lag=2.0), dict(min_lag=True),
    dict(bits=0), dict(starts=0), dict(starts=10, period=9), dict(order=2.0), dict(top_bits=5), dict(top_bits=0),
    dict(bits=8, top_bits=4.0), dict(bits=8, top_bits=5),
])
def test_bad_parameters_are_refused(params):
    with pytest.raises(ValueError):
        LaggedDifference(**params)


def test_kernel_refuses_bad_input():
    counts = np.zeros((1, 16), dtype=np.int64)
    lags = np.ones(1, dtype=np.int64)
    with pytest.raises(ValueError, match="order"):
        _differences.lagged_difference_scan(b"", b"abc", 0, 9, 4, 1, 1, 1 << 62, lags, counts)
    with pytest.raises(ValueError, match="history"):
        _differences.lagged_difference_scan(b"xy", b"abc", 1, 4, 4, 1, 1, 1 << 62, lags, counts)
    with pytest.raises(ValueError, match="counts"):
        _differences.lagged_difference_scan(b"", b"abc", 0, 4, 5, 1, 1, 1 << 62, lags, counts)


# (state bits, multiplier, increment, shift, word bits) -> fails by this many bytes
TRUNCATED_LCGS = {
    "MMIX, top 32 bits": ((64, MMIX_MULTIPLIER, MMIX_INCREMENT, 32, 32), 4 << 10),
    "java.util.Random nextInt": ((48, 0x5DEECE66D, 11, 16, 32), 1 << 10),
    "multiplicative mod 2^64, top 32 bits": ((64, 0xF1357AEA2E62A9C5, 0, 32, 32), 4 << 10),
    "mod 2^56, top 32 bits": ((56, 0x5DEECE66D * 9 + 4, 1, 24, 32), 1 << 10),
    "MMIX, top 16 bits as 16-bit words": ((64, MMIX_MULTIPLIER, MMIX_INCREMENT, 48, 16), 32 << 10),
    "MMIX, top 8 bits as bytes": ((64, MMIX_MULTIPLIER, MMIX_INCREMENT, 56, 8), 64 << 10),
}


@pytest.mark.parametrize("name", TRUNCATED_LCGS)
def test_truncated_power_of_two_lcgs_fail_early(name):
    (state_bits, a, c, shift, word_bits), fails_by = TRUNCATED_LCGS[name]
    data = truncated_lcg_bytes(state_bits, a, c, shift, word_bits, fails_by * 8 // word_bits)
    acc = LaggedDifference()
    acc.update(np.frombuffer(data, dtype=np.uint8))
    assert acc.finalize()[0].pvalue < 1e-20


def test_top_64_bits_of_a_128_bit_lcg_fail_by_2_mib():
    acc = LaggedDifference()
    acc.update(np.frombuffer(b"".join(islice(wide_lcg_blocks(128, 64, outputs=1 << 18), 1)), dtype=np.uint8))
    result = acc.finalize()[0]
    assert result.pvalue < 1e-20 and result.details["worst_lag"] == 1 << 16  # 2^15 outputs of 64 bits


def test_min_lag_counts_the_longer_lags_alone():
    data = np.frombuffer(pcg64_bytes(1 << 16, 5), dtype=np.uint8)
    every, longer = LaggedDifference(order=2, max_lag=64), LaggedDifference(order=2, min_lag=8, max_lag=64)
    every.update(data)
    longer.update(data)
    assert longer.lags.tolist() == [8, 16, 32, 64] and (longer.counts == every.counts[3:]).all()
    result = longer.finalize()[0]
    assert result.name == "lagged_difference[order=2,low4/32,lags2^3-2^6]" and result.details["lags_judged"] == 4
    row = longer.counts[result.details["worst_lag"].bit_length() - 4]
    assert result.details["worst_lag_counts"] == row.tolist()


@pytest.mark.parametrize("word_bits, order, min_lag, max_lag, starts, period", [
    (16, 2, 16, 64, 3, 8),
    (32, 4, 8, 32, 8, 8),
    (8, 1, 64, 256, 5, 32),
])
def test_lags_that_are_whole_periods_keep_only_their_words(word_bits, order, min_lag, max_lag, starts, period):
    """With every lag a multiple of the period, a window reads only words of
    its start's residue: only those are kept (starts / period of the low
    bytes), and the counts are the definition's, in any pieces and merged."""
    data = pcg64_bytes(20011, 8)
    lags = max_lag.bit_length() - min_lag.bit_length() + 1
    expected = direct_counts(data, word_bits, order, max_lag, 4, starts, period)[-lags:]
    params = dict(word_bits=word_bits, order=order, min_lag=min_lag, max_lag=max_lag, starts=starts, period=period)
    arr = np.frombuffer(data, dtype=np.uint8)
    pieces = LaggedDifference(**params)
    for lo, hi in zip([0, 1, 13, 700, 701, 4000], [1, 13, 700, 701, 4000, len(arr)]):
        pieces.update(arr[lo:hi])
    assert (pieces.counts == expected).all()
    assert len(pieces.ends.history) == order * max_lag * starts // period
    split = len(arr) // 3 // pieces.alignment * pieces.alignment
    left, right = LaggedDifference(**params), LaggedDifference(**params)
    left.update(arr[:split])
    right.update(arr[split:])
    left.merge(right)
    assert (left.counts == expected).all() and left.words == pieces.words == len(arr) // (word_bits // 8)


def test_min_lag_needs_its_window_before_any_count():
    # 128 starts at lag 2^10 need 128 + 2 * 2^10 words
    acc = LaggedDifference(order=2, min_lag=1024, max_lag=1024, starts=1, period=1)
    acc.update(np.frombuffer(pcg64_bytes(4 * (128 + 2048) - 1, 6), dtype=np.uint8))
    result = acc.finalize()[0]
    assert result.verdict == "insufficient" and f"{4 * (128 + 2048)} bytes" in result.needs
    acc.update(np.frombuffer(pcg64_bytes(1, 7), dtype=np.uint8))
    assert acc.finalize()[0].pvalue is not None


def xor_multiply_words(count: int, shift: int, seed: int = 1) -> bytes:
    """16-bit words (x >> shift) of x = (x xor X) * M mod 2^64, the first
    component of PractRand's cxlcg: not affine, so no lag makes its
    differences constant, but each bit k of x has period 2^(k+1) at most
    (bit k of the next state depends on bits <= k only)."""
    xor, multiplier, mask = 0xC74EAD55, 0x947E3DB3, (1 << 64) - 1
    x, out = seed, []
    for _ in range(count):
        x = ((x ^ xor) * multiplier) & mask
        out.append(x >> shift & 0xFFFF)
    return np.array(out, dtype="<u2").tobytes()


def test_long_lags_fail_a_xor_multiply_generator_that_the_short_ones_pass():
    # its output's low bit is bit 21 of the state: in differences at lag
    # 2^21 it has period 2; the defaults' lags to 2^16 see little
    data = np.frombuffer(xor_multiply_words((1 << 22) + (1 << 18), 21), dtype=np.uint8)
    results = []
    for params in (dict(), dict(order=8, bits=8, top_bits=4, starts=16),
                   dict(word_bits=16, order=2, min_lag=1 << 21, max_lag=1 << 24, starts=64)):
        acc = LaggedDifference(**params)
        acc.update(data)
        results.append(acc.finalize()[0])
    assert results[0].pvalue > 1e-3 and results[1].pvalue > 1e-3
    assert results[2].pvalue < 1e-20 and results[2].details["worst_lag"] == 1 << 21


def test_top_bits_judge_classes_of_neighbouring_values():
    # top_bits = 2 of bits = 4: class c holds z = 4c .. 4c + 3, judged as 4 equal cells
    data = np.frombuffer(pcg64_bytes(64 << 10, 3), dtype=np.uint8)
    whole, top = LaggedDifference(bits=4), LaggedDifference(bits=4, top_bits=2)
    whole.update(data)
    top.update(data)
    result = top.finalize()[0]
    assert result.name == "lagged_difference[order=4,low4/32,top2]" and result.details["dof"] == 3
    grouped = whole.counts.reshape(len(whole.lags), 4, 4).sum(axis=2)
    lag = result.details["worst_lag"]
    row = grouped[lag.bit_length() - 1]
    assert result.details["worst_lag_counts"] == row.tolist()
    statistic = power_divergence(row[None], row.sum(keepdims=True))[0]
    assert result.details["worst_lag_pvalue"] == pytest.approx(stats.chi2.sf(statistic, 3), rel=1e-9)


def test_more_than_4_bits_are_judged_by_their_top_4():
    # 256 classes would need 2048 samples a lag and minutes for an exact tail
    acc = LaggedDifference(bits=8)
    acc.update(np.frombuffer(pcg64_bytes(64 << 10, 4), dtype=np.uint8))
    result = acc.finalize()[0]
    assert acc.top_bits == 4 and result.name == "lagged_difference[order=4,low8/32,top4]"
    assert result.details["dof"] == 15


def test_eighth_differences_of_low_bytes_fail_an_lcg_that_hides_96_bits():
    # the top 32 bits of a 128-bit LCG: 4th differences of 4 bits would need
    # lag 2^23 (k (j + 2) >= s + m: 4 (j + 2) >= 100), beyond any max_lag;
    # 8th differences of 8 bits need lag 2^11 (8 (j + 2) >= 104)
    data = np.frombuffer(b"".join(islice(wide_lcg_blocks(128, 32, outputs=1 << 18), 1)), dtype=np.uint8)
    fourth, eighth = LaggedDifference(), LaggedDifference(order=8, bits=8, top_bits=4)
    fourth.update(data)
    eighth.update(data)
    assert fourth.finalize()[0].pvalue > 1e-3
    result = eighth.finalize()[0]
    assert result.pvalue < 1e-20 and result.details["worst_lag"] >= 1 << 11


@pytest.mark.slow
def test_p_values_are_uniform_on_a_good_generator():
    # 300 PCG64 streams of 256 KiB: each result's p-value is uniform or above
    # (Bonferroni); each lag's own p-value is uniform
    results, lag4 = [], []
    for seed in range(300):
        acc = LaggedDifference()
        acc.update(np.frombuffer(pcg64_bytes(256 << 10, seed), dtype=np.uint8))
        results.append(acc.finalize()[0].pvalue)
        row = acc.counts[2:3]
        lag4.append(stats.chi2.sf(power_divergence(row, row.sum(axis=1))[0], 15))
    assert sum(p < 0.05 for p in results) <= 30
    assert min(results) > 1e-4
    assert stats.kstest(lag4, "uniform").pvalue > 1e-3
