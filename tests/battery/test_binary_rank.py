"""binary_rank: the law of the deficiency of a square GF(2) matrix against
exact counts of matrices, the compiled rank against a pure-Python one,
results that do not depend on how the stream is cut or split, refused
parameters, PCG64 passing, and F2-linear generators (xorshift32,
xorshift128, and a 64-bit xorshift's low bits through a fold) caught by
their first matrix wider than their state."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from randqa.battery import _gf2_rank
from randqa.battery._folding import FoldedTest
from randqa.battery.binary_rank import BinaryRank, deficiency_probabilities, deficiency_tail
from randqa.battery.suites import parse_suite
from randqa.errors import SuiteError
from randqa.results import Verdict
from reference_generators import gf2_sequence, pcg64_array, xorshift128_words, xorshift32_step


def exact_deficiency_probability(n: int, d: int) -> Fraction:
    """(number of n x n GF(2) matrices of rank n - d) / 2^(n^2): the rank-r count
    prod_{i<r} (2^n - 2^i)^2 / (2^r - 2^i) (Landsberg 1893)."""
    r = n - d
    count = Fraction(1)
    for i in range(r):
        count *= Fraction((2**n - 2**i) ** 2, 2**r - 2**i)
    return count / 2 ** (n * n)


def python_rank(rows: list[int]) -> int:
    rank = 0
    rows = list(rows)
    while rows:
        pivot = rows.pop()
        if pivot:
            rank += 1
            low = pivot & -pivot
            rows = [r ^ pivot if r & low else r for r in rows]
    return rank


def ranked(data: np.ndarray, n: int) -> int:
    counts = np.zeros(n + 1, dtype=np.int64)
    assert _gf2_rank.rank_deficiency_counts(data, n, n * n // 8, counts) == 1
    return n - int(np.flatnonzero(counts)[0])


def counts_of(acc: BinaryRank) -> list[list[int]]:
    return [side.counts.tolist() for side in acc.sides]


@pytest.mark.parametrize("n", [64, 128, 256])
def test_deficiency_law_matches_exact_matrix_counts(n):
    got = deficiency_probabilities(n, 6)
    for d in range(6):
        exact = float(exact_deficiency_probability(n, d))
        assert got[d] == pytest.approx(exact, rel=1e-12)
    # the tail sums the same law: d >= 4 from its terms, d <= 3 as the complement
    assert deficiency_tail(n, 4) == pytest.approx(float(sum(exact_deficiency_probability(n, d) for d in range(4, 12))),
                                                  rel=1e-12)
    assert deficiency_tail(n, 2) == pytest.approx(float(1 - exact_deficiency_probability(n, 0)
                                                        - exact_deficiency_probability(n, 1)), rel=1e-12)


@pytest.mark.parametrize("n", [64, 128, 512])
def test_kernel_rank_matches_python_rank(n):
    # 512: more than 256 free rows, so the 8-pivot table path runs too
    rng = np.random.default_rng(n)
    row_bytes = n // 8
    for trial in range(6 if n < 512 else 3):
        if trial % 3 == 0:
            data = rng.integers(0, 256, n * row_bytes, dtype=np.uint8)
        else:
            # rows are XORs of k random rows: rank k or a little less
            k = int(rng.integers(1, n))
            base = rng.integers(0, 256, (k, row_bytes), dtype=np.uint8)
            mix = rng.integers(0, 2, (n, k)).astype(bool)
            matrix = np.zeros((n, row_bytes), dtype=np.uint8)
            for i in range(n):
                matrix[i] = np.bitwise_xor.reduce(base[mix[i]], axis=0) if mix[i].any() else 0
            if trial % 3 == 2:
                matrix[rng.integers(0, n, 4)] = matrix[rng.integers(0, n, 4)]  # repeated rows
            data = matrix.ravel()
        rows = [int.from_bytes(data[i * row_bytes:(i + 1) * row_bytes].tobytes(), "little") for i in range(n)]
        assert ranked(data, n) == python_rank(rows)


def test_kernel_ranks_every_stride_and_refuses_bad_arguments():
    rng = np.random.default_rng(3)
    data = rng.integers(0, 256, 10 * 512, dtype=np.uint8)
    counts = np.zeros(65, dtype=np.int64)
    # 64 x 64 matrices are 512 bytes: at 0, 1536, 3072 and 4608, the last ending at the data's end
    assert _gf2_rank.rank_deficiency_counts(data, 64, 1536, counts) == 4
    assert counts.sum() == 4
    with pytest.raises(ValueError):
        _gf2_rank.rank_deficiency_counts(data, 100, 2048, np.zeros(101, dtype=np.int64))
    with pytest.raises(ValueError):
        _gf2_rank.rank_deficiency_counts(data, 64, 511, counts)
    with pytest.raises(ValueError):
        _gf2_rank.rank_deficiency_counts(data, 64, 512, np.zeros(64, dtype=np.int64))


@pytest.mark.parametrize("params", [dict(min_size=100), dict(min_size=32), dict(max_size=32768),
                                    dict(min_size=256, max_size=128), dict(every=0), dict(every=1.5),
                                    dict(min_size=True)])
def test_bad_parameters_refused(params):
    with pytest.raises(ValueError):
        BinaryRank(**params)


def test_too_little_data_is_insufficient():
    acc = BinaryRank(min_size=128)
    acc.update(pcg64_array(2047, 1))
    (result,) = acc.finalize()
    assert result.verdict == Verdict.INSUFFICIENT and "2048 bytes" in result.needs
    acc.update(pcg64_array(1, 2))
    (result,) = acc.finalize()
    assert result.verdict is None and result.details["sizes"]["128"]["matrices"] == 1


def test_chunking_splitting_and_state_do_not_change_the_counts():
    data = pcg64_array(700_000, 7)
    params = dict(min_size=64, max_size=1024, every=3)
    whole = BinaryRank(**params)
    whole.update(data)
    assert [sum(c) for c in counts_of(whole)] == [(700_000 // (n * n // 8) + 2) // 3 for n in (64, 128, 256, 512, 1024)]

    rng = np.random.default_rng(1)
    chunked = BinaryRank(**params)
    cuts = [0, *sorted(rng.integers(0, len(data), 40).tolist()), len(data)]
    for a, b in zip(cuts, cuts[1:]):
        chunked.update(data[a:b])
    assert counts_of(chunked) == counts_of(whole)

    # parts placed at arbitrary bytes (inside matrices, some empty), merged left to right and right to left
    for order in ("left", "right"):
        bounds = [0, *sorted(rng.integers(0, len(data), 9).tolist()), len(data)]
        parts = []
        for a, b in zip(bounds, bounds[1:]):
            part = BinaryRank(**params)
            part.begin_at(a)
            part.update(data[a:b])
            restored = BinaryRank(**params)  # through the plain-data state, as workers send it
            restored.load_state(part.state())
            parts.append(restored)
        if order == "left":
            merged = parts[0]
            for part in parts[1:]:
                merged.merge(part)
        else:
            while len(parts) > 1:
                parts[-2].merge(parts.pop())
            merged = parts[0]
        assert counts_of(merged) == counts_of(whole)
        assert merged.finalize()[0].pvalue == whole.finalize()[0].pvalue


def test_pcg64_passes():
    acc = BinaryRank(min_size=64, max_size=1024, every=1)
    acc.update(pcg64_array(4 << 20, 11))
    (result,) = acc.finalize()
    assert result.pvalue > 1e-3
    assert result.details["sizes"]["64"]["matrices"] == 8192
    assert result.details["tails"] == 5 * 3  # every size: the largest deficiency and both class tails


def test_xorshift32_fails_at_its_first_matrix():
    # 32 bits of state: every 128 x 128 matrix has rank <= 32
    words = gf2_sequence(xorshift32_step, 2463534242, 2048 // 4)
    acc = BinaryRank(min_size=128, max_size=128)
    acc.update(words.view(np.uint8))
    (result,) = acc.finalize()
    assert result.details["sizes"]["128"]["largest_deficiency"] >= 96
    assert result.pvalue < 1e-300


def test_xorshift128_fails_at_256_but_not_128():
    # 128 bits of state: the 128 x 128 matrices look random, the 256 x 256 ones have rank <= 128
    words = xorshift128_words(1, 8192 // 4)[0]
    acc = BinaryRank(min_size=128, max_size=256)
    acc.update(words.view(np.uint8))
    (result,) = acc.finalize()
    sizes = result.details["sizes"]
    assert sizes["128"]["largest_deficiency"] < 10
    assert sizes["256"]["largest_deficiency"] >= 128
    assert result.details["from"] == "largest deficiency at 256 x 256"
    assert result.pvalue < 1e-300


def test_fold_catches_the_low_bits_of_a_64_bit_linear_generator():
    # xorshift64 (13, 7, 17): 64 bits of state; its words' low 4 bits, 4 x 128^2 / 4 words
    x = np.uint64(88172645463325252)
    out = np.empty(8192, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for i in range(len(out)):
            x ^= x << np.uint64(13)
            x ^= x >> np.uint64(7)
            x ^= x << np.uint64(17)
            out[i] = x
    acc = FoldedTest(BinaryRank(min_size=128, max_size=128), word_bits=64, low_bits=4)
    acc.update(out.view(np.uint8))
    (result,) = acc.finalize()
    assert result.name == "binary_rank[low4/64]"
    assert result.details["sizes"]["128"]["matrices"] == 2
    assert result.details["sizes"]["128"]["largest_deficiency"] >= 64
    assert result.pvalue < 1e-300


def test_bonferroni_bound_holds_on_random_matrices():
    # the p-value is a bound: on fair bits it falls below t at most a fraction t of the time
    gen = np.random.Generator(np.random.PCG64(99))
    pvalues = []
    for _ in range(400):
        acc = BinaryRank(min_size=64, max_size=128, every=1)
        acc.update(gen.integers(0, 256, 60_000, dtype=np.uint8))  # 117 and 29 matrices
        pvalues.append(acc.finalize()[0].pvalue)
    pvalues = np.array(pvalues)
    # binomial(400, t) exceeds these bounds with probability below 1e-4
    assert (pvalues <= 0.25).mean() <= 0.25 + 0.09
    assert (pvalues <= 0.05).mean() <= 0.05 + 0.05


SUITE = b"""
name = "brank"
description = "binary rank, raw and on the low bit of 32-bit words"
[thresholds]
suspicious = 1e-3
fail = 1e-6
fail_at_once = 1e-20
[[tests]]
test = "binary_rank"
every = 256
[[tests]]
test = "binary_rank"
max_size = 2048
every = 256
fold_word_bits = 32
fold_low_bits = 1
"""


def test_suite_entries_raw_and_folded_and_a_refused_value():
    suite = parse_suite(SUITE, "brank.toml")
    words = gf2_sequence(xorshift32_step, 1, 1 << 16)  # 256 KiB: one 128 x 128 matrix of the low bits
    results = {}
    for acc in suite.build():
        acc.update(words.view(np.uint8))
        results.update({r.name: r for r in acc.finalize()})
    assert results["binary_rank"].pvalue < 1e-300
    # the lowest bit of xorshift32 is linear in its 32-bit state too
    assert results["binary_rank[low1/32]"].details["sizes"]["128"]["largest_deficiency"] >= 96
    with pytest.raises(SuiteError, match="min_size"):
        parse_suite(SUITE.replace(b"every = 256\n[[tests]]", b"every = 256\nmin_size = 96\n[[tests]]", 1), "bad.toml")
