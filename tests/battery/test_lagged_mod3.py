"""lagged_mod3: the counts against a direct computation from the words'
remainders, the relation law against enumeration, the exact tail beside
chi-square's, the same result however the stream is cut, merged or placed,
bad parameters refused; add-rotate lagged generators fail it, PCG64 passes.
"""

from __future__ import annotations

import math
from itertools import combinations, product

import numpy as np
import pytest

from accumulators import failed, feed_in_sizes, results_of, same_results
from randqa.battery import _mod3
from randqa.battery._multinomial import multinomial_tail
from randqa.battery.lagged_mod3 import (CHI_SQUARE_MIN_WINDOWS, MIN_WINDOWS, LaggedMod3, relation_law, triple_count,
                                        triple_offsets)
from reference_generators import pcg64_array


def direct_counts(data: np.ndarray, word_bytes: int, pair_span: int, triple_span: int, neighbour_span: int,
                  period: int):
    """The 27 joint remainders of each pair and the 81 of each triple, window by window, from Python integers."""
    words = [int.from_bytes(bytes(data[i : i + word_bytes]), "little") % 3
             for i in range(0, len(data) // word_bytes * word_bytes, word_bytes)]
    span = max(pair_span, triple_span, neighbour_span)
    pairs = list(combinations(range(1, pair_span + 1), 2))
    triples = [t for t in combinations(range(1, span + 1), 3)
               if t[2] <= triple_span or (t[2] <= neighbour_span and (t[0] == 1 or t[1] == t[0] + 1 or t[2] == t[1] + 1))]
    # the order counted: all triples up to triple_span, then the others by their last offset
    triples.sort(key=lambda t: (t[2] > triple_span, t[2] if t[2] > triple_span else 0, t))
    pc = np.zeros((max(len(pairs), 1), 27), dtype=np.int64)
    tc = np.zeros((max(len(triples), 1), 81), dtype=np.int64)
    windows = 0
    for n in range(0, len(words) - span, period):
        r = words[n : n + span + 1]
        for k, (a, b) in enumerate(pairs):
            pc[k, 9 * r[0] + 3 * r[a] + r[b]] += 1
        for k, (a, b, c) in enumerate(triples):
            tc[k, 27 * r[0] + 9 * r[a] + 3 * r[b] + r[c]] += 1
        windows += 1
    return pc, tc, windows, triples


@pytest.mark.parametrize("word_bits", [8, 16, 32, 64])
def test_lagged_mod3_counts_match_direct_computation(word_bits: int) -> None:
    data = pcg64_array(30_000, seed=90)
    test = LaggedMod3(word_bits=word_bits, pair_span=6, triple_span=5, neighbour_span=8, period=9)
    feed_in_sizes(test, data)
    test.finalize()  # counts the windows still pending
    pc, tc, windows, _ = direct_counts(data, word_bits // 8, 6, 5, 8, 9)
    assert test.triples == [tuple(t) for t in direct_counts(data[:0], 1, 0, 5, 8, 9)[3]]
    assert test.windows == windows
    assert np.array_equal(test.pair_counts.reshape(pc.shape), pc)
    assert np.array_equal(test.triple_counts.reshape(tc.shape), tc)


@pytest.mark.parametrize("span, neighbour_span", [(0, 0), (0, 3), (3, 3), (2, 9), (5, 4), (32, 80), (0, 128)])
def test_lagged_mod3_triple_count_is_the_triples_made(span: int, neighbour_span: int) -> None:
    assert triple_count(span, neighbour_span) == len(triple_offsets(span, neighbour_span))


@pytest.mark.parametrize("terms", [3, 4])
def test_lagged_mod3_relation_law_matches_enumeration(terms: int) -> None:
    # 8-bit words: every tuple of byte values, z = r_0 - r_1 + r_2 (- r_3) mod 3
    byte_law = np.bincount(np.arange(256) % 3) / 256
    law = np.zeros(3)
    for digits in product(range(3), repeat=terms):
        sign = [1, 2, 1, 2][:terms]
        law[sum(s * d for s, d in zip(sign, digits)) % 3] += np.prod(byte_law[list(digits)])
    assert np.allclose(relation_law(8, terms), law, rtol=1e-14, atol=0)
    assert math.isclose(relation_law(32, terms).sum(), 1.0, rel_tol=1e-15)


def test_lagged_mod3_statistic_and_tail() -> None:
    # windows of 3 words (pairs (1, 2) only): the smallest of the four sign
    # patterns' Pearson X^2, its exact multinomial tail times the 4 candidates
    data = pcg64_array(4 * 3 * 300, seed=91)
    result = results_of(LaggedMod3(pair_span=2, triple_span=0, neighbour_span=0, period=3), data)[0]
    words = data.view("<u4").astype(np.int64) % 3
    r = words.reshape(-1, 3)
    law = relation_law(32, 3)
    tails = []
    for s1, s2 in product((1, 2), repeat=2):
        counts = np.bincount((r[:, 0] + s1 * r[:, 1] + s2 * r[:, 2]) % 3, minlength=3)
        x = float(((counts - 300 * law) ** 2 / (300 * law)).sum())
        tails.append((math.exp(-x / 2), x))
    smallest, x = min(tails)
    assert result.details["windows"] == 300 and result.details["candidates"] == 4
    assert math.isclose(result.statistic, x, rel_tol=1e-12)
    expected = multinomial_tail(law, 300, x).pvalue if smallest * 4 < 0.01 else smallest
    assert math.isclose(result.pvalue, min(1.0, 4 * expected), rel_tol=1e-9)


@pytest.mark.parametrize("windows", [MIN_WINDOWS, 1024, CHI_SQUARE_MIN_WINDOWS])
def test_lagged_mod3_exact_tail_is_near_chi_square_where_it_is_not_computed(windows: int) -> None:
    # the screen computes the exact tail only near the smallest chi-square
    # tail (within 16 times), and none from CHI_SQUARE_MIN_WINDOWS windows on
    law = relation_law(32, 4)
    for log10_p in (6, 11, 15):
        x = 2 * log10_p * math.log(10)
        ratio = multinomial_tail(law, windows, x).pvalue / math.exp(-x / 2)
        assert ratio < 5 if windows < CHI_SQUARE_MIN_WINDOWS else 0.97 < ratio < 1.03


def test_lagged_mod3_same_result_however_cut_merged_and_placed() -> None:
    data = pcg64_array(200_000, seed=92)
    params = dict(pair_span=9, triple_span=6, neighbour_span=11, period=64)
    whole = LaggedMod3(**params)
    whole.update(data)
    pieces = LaggedMod3(**params)
    feed_in_sizes(pieces, data)
    same_results(whole.finalize(), pieces.finalize())
    assert np.array_equal(whole.pair_counts, pieces.pair_counts) and whole.windows == pieces.windows
    # parts placed where they start: one shorter than the span, one ending inside a window
    cuts = [0, 4 * 100, 4 * 103, 4 * 5000, len(data)]
    parts = []
    for start, end in zip(cuts, cuts[1:]):
        part = LaggedMod3(**params)
        part.begin_at(start)
        part.update(data[start:end])
        parts.append(part)
    for part in parts[1:]:
        parts[0].merge(part)
    same_results(whole.finalize(), parts[0].finalize())
    assert np.array_equal(whole.triple_counts, parts[0].triple_counts) and whole.windows == parts[0].windows
    # a right part that was not placed follows only a whole number of periods
    left, right = LaggedMod3(**params), LaggedMod3(**params)
    left.update(data[: 4 * 64 * 10])
    right.update(data[4 * 64 * 10 :])
    left.merge(right)
    same_results(whole.finalize(), left.finalize())
    left, right = LaggedMod3(**params), LaggedMod3(**params)
    left.update(data[:400])
    right.update(data[400:])
    with pytest.raises(ValueError):
        left.merge(right)


def test_lagged_mod3_too_little_data_is_insufficient() -> None:
    result = results_of(LaggedMod3(period=1024), pcg64_array(4 * 1024 * (MIN_WINDOWS - 2), seed=93))[0]
    assert result.verdict == "insufficient" and "bytes" in result.needs


@pytest.mark.parametrize("params", [
    dict(word_bits=24), dict(pair_span=1), dict(triple_span=2), dict(neighbour_span=2), dict(pair_span=129),
    dict(pair_span=0, triple_span=0, neighbour_span=0), dict(period=80), dict(neighbour_span=100, period=100), dict(period=True),
    dict(pair_span=2.0),
])
def test_lagged_mod3_refuses_bad_parameters(params: dict) -> None:
    with pytest.raises(ValueError):
        LaggedMod3(**params)


def test_lagged_mod3_kernels_refuse_bad_input() -> None:
    def int64(*values: int) -> np.ndarray:
        return np.array(values, dtype=np.int64)

    ok = (b"", b"\0" * 12, 0, 4, 2, 3, 1 << 62)
    assert _mod3.mod3_window_remainders(*ok) == b"\0\0\0"
    for position, bad in [(1, b"\0" * 13), (2, -1), (3, 9), (4, 1), (4, 129), (5, 2), (0, b"\0" * 4)]:
        args = list(ok)
        args[position] = bad
        with pytest.raises(ValueError):
            _mod3.mod3_window_remainders(*args)
    counts = np.zeros(27, dtype=np.int64)
    ok = (b"\0\1\2", 2, int64(1, 2), counts, int64(0), int64(0))
    _mod3.mod3_lag_count(*ok)
    assert counts[9 * 0 + 3 * 1 + 2] == 1 and counts.sum() == 1
    for position, bad in [(0, b"\0\1"), (0, b"\0\1\3"), (1, 129), (2, int64(1, 3)), (2, int64(1, 2, 2)),
                          (3, np.zeros(26, dtype=np.int64)), (4, int64(1, 2, 3))]:
        args = list(ok)
        args[position] = bad
        with pytest.raises(ValueError):
            _mod3.mod3_lag_count(*args)


def ranrot_words(count: int, long_lag: int, short_lag: int, rotations: tuple[int, ...], three_taps: bool,
                 seed: int) -> np.ndarray:
    """A. Fog's RANROT, x(n) = rotl(x(n - j), r1) + rotl(x(n - k), r2) mod 2^32,
    with a third tap rotl(x(n - 1), r3) when ``three_taps``: the words in
    the order they are made."""
    def rotl(v: int, r: int) -> int:
        return ((v << r) | (v >> (32 - r))) & 0xFFFFFFFF

    x = [int(v) for v in np.random.default_rng(seed).integers(0, 2**32, long_lag)]
    for n in range(long_lag, count):
        v = rotl(x[n - long_lag], rotations[0]) + rotl(x[n - short_lag], rotations[1])
        if three_taps:
            v += rotl(x[n - 1], rotations[2])
        x.append(v & 0xFFFFFFFF)
    return np.array(x, dtype="<u4")


def test_lagged_mod3_fails_add_rotate_generators_and_passes_pcg64() -> None:
    params = dict(period=256)
    # RANROT-B's lags and rotations (17, 10; 5, 3), and a three-tap one that
    # hands out each block of 17 words reversed, as PractRand's ranrot3tap32
    ranrot_b = ranrot_words(256 * 200, 17, 10, (5, 3), False, seed=94).view(np.uint8)
    assert failed(results_of(LaggedMod3(**params), ranrot_b))
    three_tap = ranrot_words(17 * 16_000, 17, 9, (3, 17, 9), True, seed=95)
    reversed_blocks = three_tap.reshape(-1, 17)[:, ::-1].ravel().view(np.uint8)
    assert failed(results_of(LaggedMod3(**params), reversed_blocks))
    assert not failed(results_of(LaggedMod3(**params), pcg64_array(4 * 256 * 4096, seed=96)))
