"""NIST SP 800-22 Rev 1a tests 2.2, 2.4, 2.5, 2.6, 2.9 and 2.10 against the standard.

Reference values are the worked examples of section 2 and the Appendix B
table (first 1,000,000 bits of e).  Where the document's printed value is
not what its own algorithm gives, the test says so and checks what can be
checked.  Run as a script to print every reference value next to randqa's.
"""

from __future__ import annotations

import itertools
import math
import os

import numpy as np
import pytest

from nist_reference import (E_BITS, EPSILON_100, e_bytes, feed_in_sizes, observed, print_references, reference_matches,
                            results_for, run, same_results)

from randqa.battery import _linear, _nist, accumulator_class, available_tests
from randqa.battery.block_frequency import BlockFrequency
from randqa.battery.dft import DFT, peak_count_pvalue
from randqa.battery.frequency import Frequency
from randqa.battery.linear_complexity import LinearComplexity
from randqa.battery.linear_complexity import exact_class_probabilities as lc_probabilities
from randqa.battery.longest_run import STS_PROBABILITIES, LongestRun, exact_class_probabilities, prob_longest_at_most
from randqa.battery.matrix_rank import MatrixRank, rank_probability
from randqa.battery.universal import EXPECTED_VALUE, VARIANCE, Universal


# 2.4.8, n = 128
EPSILON_128 = (
    "11001100000101010110110001001100111000000000001001"
    "00110101010001000100111101011010000000110101111100"
    "1100111001101101100010110010"
)


# (source, factory, input ("e", "e100k" or a bit string), result name, field, printed value, tolerance)
# field: "p" (p-value), "stat" (statistic) or a details key.  Tolerance is
# half a unit of the last printed digit.
REFERENCES = [
    ("2.2.4", lambda: BlockFrequency(M=3), "0110011010", "block_frequency", "stat", 1.0, 5e-7),
    ("2.2.4", lambda: BlockFrequency(M=3), "0110011010", "block_frequency", "p", 0.801252, 5e-7),
    ("2.2.8", lambda: BlockFrequency(M=10), EPSILON_100, "block_frequency", "stat", 7.2, 5e-7),
    ("2.2.8", lambda: BlockFrequency(M=10), EPSILON_100, "block_frequency", "p", 0.706438, 5e-7),
    ("App. B", BlockFrequency, "e", "block_frequency", "p", 0.211072, 5e-7),
    # 2.4.8 uses the exact M = 8 probabilities (55/256, ...): chi^2 = 4.882457;
    # the 4-digit table of 2.4.4 would give 4.882605 and 0.180598.
    ("2.4.8", LongestRun, EPSILON_128, "longest_run", "counts", [4, 9, 3, 0], 0),
    ("2.4.8", LongestRun, EPSILON_128, "longest_run", "stat", 4.882457, 5e-7),
    ("2.4.8", LongestRun, EPSILON_128, "longest_run", "p", 0.180609, 5e-7),
    # Appendix B (M = 10^4) comes from the standard's approximate table ("sts")
    ("App. B", lambda: LongestRun(probabilities="sts"), "e", "longest_run", "p", 0.718945, 5e-7),
    # 2.5.4: F_M = 1, F_M-1 = 1, 0 lower; its p-value uses 32 x 32 probabilities (see below)
    ("2.5.4", lambda: MatrixRank(rows=3, cols=3), "01011001001010101101", "matrix_rank[3x3]", "counts", [1, 1, 0], 0),
    ("2.5.8", MatrixRank, "e100k", "matrix_rank", "counts", [23, 60, 14], 0),
    ("2.5.8", MatrixRank, "e100k", "matrix_rank", "stat", 1.2619656, 5e-8),
    ("2.5.8", MatrixRank, "e100k", "matrix_rank", "p", 0.532069, 5e-7),
    ("App. B", MatrixRank, "e", "matrix_rank", "p", 0.306156, 5e-7),
    ("App. B", DFT, "e", "dft", "p", 0.847187, 5e-7),
    ("2.9.4", lambda: Universal(L=2, Q=4), "01011010011101010111", "universal", "K", 6, 0),
    ("2.9.4", lambda: Universal(L=2, Q=4), "01011010011101010111", "universal", "stat", 1.1949875, 5e-8),
    ("App. B", Universal, "e", "universal", "p", 0.282568, 5e-7),
    ("2.10.4", lambda: LinearComplexity(M=13), "1101011110001", "linear_complexity", "complexities", {"4": 1}, 0),
    # 2.10.8 and Appendix B come from sts-2.1.2's pi_0 = 0.01047 ("sts")
    ("2.10.8", lambda: LinearComplexity(M=1000, probabilities="sts"), "e", "linear_complexity", "counts",
     [11, 31, 116, 501, 258, 57, 26], 0),
    ("2.10.8", lambda: LinearComplexity(M=1000, probabilities="sts"), "e", "linear_complexity", "stat", 2.700348, 5e-7),
    ("2.10.8", lambda: LinearComplexity(M=1000, probabilities="sts"), "e", "linear_complexity", "p", 0.845406, 5e-7),
    ("App. B", lambda: LinearComplexity(probabilities="sts"), "e", "linear_complexity", "p", 0.826335, 5e-7),
]


def test_e_bits_convention(e):
    # Appendix B: frequency test on the first 10^6 bits of e
    assert run(Frequency(), e)["frequency"].pvalue == pytest.approx(0.953749, abs=5e-7)


@pytest.mark.parametrize("ref", REFERENCES, ids=lambda r: f"{r[0]}-{r[3]}-{r[4]}")
def test_reference_value(ref, e):
    section, factory, data, name, field, expected, tolerance = ref
    got = observed(results_for(factory, data, e), name, field)
    assert reference_matches(got, expected, tolerance), (section, name, field, got, expected)


def test_matrix_rank_example_2_5_4_with_printed_probabilities(e):
    # The document computes the 3 x 3 example with the 32 x 32 probabilities
    # 0.2888, 0.5776, 0.1336: chi^2 = 0.596953, p = 0.741948.  randqa uses the
    # 3 x 3 ones (rank 3, 2, <=1: 21/64, 147/256, 25/256), a different p.
    result = results_for(lambda: MatrixRank(rows=3, cols=3), "01011001001010101101", e)["matrix_rank[3x3]"]
    counts, N = np.array(result.details["counts"]), result.details["matrices"]
    printed = np.array([0.2888, 0.5776, 0.1336])
    chi2 = float(((counts - N * printed) ** 2 / (N * printed)).sum())
    assert chi2 == pytest.approx(0.596953, abs=5e-7)
    assert math.exp(-chi2 / 2) == pytest.approx(0.741948, abs=5e-7)
    assert result.details["probabilities"] == pytest.approx([21 / 64, 147 / 256, 25 / 256], abs=1e-15)
    assert result.verdict == "insufficient" and result.needs


def test_dft_examples_2_6(e):
    # The printed p-values follow from the printed N1 through the Rev 1a
    # formula (N0 = 0.95 n / 2, variance n (.95)(.05) / 4) ...
    for n, n1, d_printed, p_printed in [(10, 4, -2.176429, 0.029523), (100, 46, -1.376494, 0.168669)]:
        d, p = peak_count_pvalue(n, n1)
        assert d == pytest.approx(d_printed, abs=5e-7) and p == pytest.approx(p_printed, abs=5e-7)
    # ... but the printed N1 (4 and 46) are not what the described algorithm
    # gives: a plain O(n^2) DFT of the same bits counts 5 and 48, as randqa does.
    for bits in ("1001010011", EPSILON_100):
        x = 2.0 * np.array([int(c) for c in bits]) - 1
        n = len(x)
        k = np.arange(n // 2)[:, None]
        moduli = np.abs(np.exp(-2j * np.pi * k * np.arange(n) / n) @ x)
        naive_n1 = int(np.sum(moduli < math.sqrt(math.log(20) * n)))
        assert run(DFT(), bits)["dft"].details["N1"] == naive_n1
    assert run(DFT(), EPSILON_100)["dft"].details["N1"] == 48


def test_universal_example_2_9_4_printed_pvalue(e):
    # 2.9.4 prints p = 0.767189 = erfc(|f_n - 1.5374383| / sqrt(2 * 1.338)):
    # sigma = sqrt(variance(2)), without the c and K of its own step 5.
    result = results_for(lambda: Universal(L=2, Q=4), "01011010011101010111", e)["universal"]
    printed_style = math.erfc(abs(result.statistic - EXPECTED_VALUE[2]) / math.sqrt(2 * VARIANCE[2]))
    assert printed_style == pytest.approx(0.767189, abs=5e-7)
    assert result.details["sigma"] == pytest.approx(result.details["c"] * math.sqrt(VARIANCE[2] / 6))
    assert result.verdict == "insufficient" and result.needs


def test_exact_probabilities_match_enumeration_and_tables():
    # longest run: the recursion against the C kernel over all 2^16 16-bit blocks
    every_block = np.arange(1 << 16, dtype=">u2").view(np.uint8)
    runs = np.zeros(17, dtype=np.int64)
    _nist.longest_run_counts(every_block, 8 * len(every_block), 16, runs)
    for k in range(16):
        assert prob_longest_at_most(16, k) == pytest.approx(runs[: k + 1].sum() / 65536, abs=1e-15)
    assert exact_class_probabilities(8, 1, 4) == STS_PROBABILITIES[8]
    # M = 128: the standard's 4-digit table is the exact values rounded (one
    # entry, 0.2493 for 0.249363, rounded down so that the table sums to 1)
    assert exact_class_probabilities(128, 4, 9) == pytest.approx(STS_PROBABILITIES[128], abs=1e-4)
    # M = 10^4: the standard's table is off in the third digit (0.0882 vs 0.0866)
    assert abs(exact_class_probabilities(10_000, 10, 16)[0] - STS_PROBABILITIES[10_000][0]) > 1e-3
    # matrix rank: the formula against every 3 x 3 and 2 x 5 matrix
    for rows, cols in ((3, 3), (2, 5)):
        size = rows * cols
        every = np.array(list(itertools.product([0, 1], repeat=size)), dtype=np.uint8).ravel()
        ranks = np.zeros(min(rows, cols) + 1, dtype=np.int64)
        _linear.matrix_rank_counts(np.packbits(every), len(every), rows, cols, ranks)
        for r, count in enumerate(ranks):
            assert rank_probability(rows, cols, r) == pytest.approx(count / 2**size, abs=1e-15)
    assert [rank_probability(32, 32, r) for r in (32, 31, 30)] == pytest.approx([0.2888, 0.5776, 0.1284], abs=5e-5)
    # linear complexity: the exact classes against all 2^12 sequences of 12 bits,
    # and the standard's pi (1/96, ...) for M = 500
    every = np.array(list(itertools.product([0, 1], repeat=12)), dtype=np.uint8).ravel()
    complexities = np.zeros(13, dtype=np.int64)
    _linear.linear_complexity_counts(np.packbits(every), len(every), 12, complexities)
    acc = LinearComplexity(M=12)
    acc.update(np.packbits(every))
    counts = acc.finalize()[0].details["counts"]
    assert lc_probabilities(12) == pytest.approx(np.array(counts) / 4096, abs=1e-15)
    assert lc_probabilities(500) == pytest.approx([1 / 96, 1 / 32, 1 / 8, 1 / 2, 1 / 4, 1 / 16, 1 / 48], rel=1e-12)


ALL_SIX = [BlockFrequency, LongestRun, MatrixRank, DFT, Universal, LinearComplexity]
ODD_BLOCKS = [lambda: BlockFrequency(M=10), lambda: MatrixRank(rows=3, cols=3), lambda: LinearComplexity(M=13),
              lambda: MatrixRank(size=64)]


def test_registered_by_name():
    for cls in ALL_SIX:
        assert cls.name in available_tests() and accumulator_class(cls.name) is cls


@pytest.mark.parametrize("factory", ALL_SIX + ODD_BLOCKS, ids=lambda f: repr(f()))
def test_chunking_and_merge_do_not_change_results(factory, e):
    data = e[:60_001]  # an odd number of bytes ...
    tail = np.array([1, 0, 1, 1, 0], dtype=np.uint8)  # ... and 5 tail bits
    whole = factory()
    whole.update(data)
    whole.update_tail_bits(tail)
    reference = whole.finalize()
    chunked = factory()
    feed_in_sizes(chunked, data)
    chunked.update_tail_bits(tail)
    same_results(chunked.finalize(), reference)
    left, right = factory(), factory()
    cut = 30_000 // left.alignment * left.alignment
    left.update(data[:cut])
    right.update(data[cut:])
    right.update_tail_bits(tail)
    left.merge(right)
    same_results(left.finalize(), reference)
    assert left.bytes_seen == len(data)
    assert reference[0].pvalue is not None


@pytest.mark.parametrize("factory", [BlockFrequency, LongestRun, MatrixRank, LinearComplexity] + ODD_BLOCKS[:3],
                         ids=lambda f: repr(f()))
def test_merge_refuses_a_left_part_off_the_block_boundary(factory):
    left, right = factory(), factory()
    left.update(np.zeros(left.alignment + 1, dtype=np.uint8))
    with pytest.raises(ValueError, match="boundary"):
        left.merge(right)


@pytest.mark.parametrize("cls", [DFT, Universal], ids=lambda c: c.name)
def test_max_bits_tests_the_first_bits_and_says_so(cls, e):
    limit = 8 * 60_000
    first = cls()
    first.update(e[:60_000])
    expected = first.finalize()
    capped = cls(max_bits=limit)
    capped.update(e[:100_000])
    results = capped.finalize()
    for r in results:
        assert r.details["bits_seen"] == 8 * 100_000 and f"first {limit}" in r.details["note"]
        del r.details["bits_seen"], r.details["note"]
    same_results(results, expected)


def test_longest_run_block_size_follows_n(e):
    for nbytes, M in [(16, 8), (783, 8), (784, 128), (93_749, 128), (93_750, 10_000)]:
        assert run(LongestRun(), e[:nbytes])["longest_run"].details["M"] == M


def test_universal_block_size_follows_n(e):
    for nbits, L in [(387_840, 6), (904_952, 6), (904_960, 7)]:
        acc = Universal()
        acc.update(e[: nbits // 8])
        assert acc.finalize()[0].details["L"] == L


def test_too_little_data_is_insufficient_not_pass(e):
    cases = [
        (BlockFrequency(M=20), e[:10], True),  # 80 bits < 100: p-value computed, no verdict
        (BlockFrequency(), e[:5], False),  # not one block of 128 bits
        (LongestRun(), e[:15], False),  # 120 bits < 128
        (MatrixRank(), e[:37 * 128], True),  # 37 matrices < 38
        (MatrixRank(size=1024), e[:100_000], False),
        (DFT(), e[:100], True),  # 800 bits < 1000
        (Universal(), e[:48_479], False),  # 387,832 bits < 387,840
        (LinearComplexity(), e[:124_999], True),  # 999,992 bits < 10^6
    ]
    for acc, data, has_pvalue in cases:
        acc.update(data)
        for result in acc.finalize():
            assert result.verdict == "insufficient" and result.needs, acc
            assert (result.pvalue is not None) == has_pvalue, acc


def test_bad_parameters_refused():
    for bad in [lambda: BlockFrequency(M=0), lambda: LongestRun(probabilities="old"), lambda: MatrixRank(size=1),
                lambda: MatrixRank(size=64, rows=64), lambda: Universal(L=17), lambda: Universal(Q=10),
                lambda: DFT(max_bits=0), lambda: LinearComplexity(M=3), lambda: LinearComplexity(probabilities="x")]:
        with pytest.raises(ValueError):
            bad()


def xorshift128_words(segments: int, words_per_segment: int, seed: int = 2024) -> np.ndarray:
    """Marsaglia's xorshift128 (2003), 32-bit outputs: ``segments`` runs of
    ``words_per_segment`` consecutive outputs from random starting states
    (all states lie on the generator's single cycle, so each run is a piece
    of the one stream).  The segments step together: one numpy operation
    per output position, none per value."""
    x, y, z, w = np.random.default_rng(seed).integers(1, 2**32, size=(4, segments), dtype=np.uint32)
    out = np.empty((words_per_segment, segments), dtype=np.uint32)
    for i in range(words_per_segment):
        t = x ^ (x << np.uint32(11))
        x, y, z = y, z, w
        w = w ^ (w >> np.uint32(19)) ^ t ^ (t >> np.uint32(8))
        out[i] = w
    return out.T.copy()


def test_large_matrix_rank_catches_xorshift128():
    # A 1024 x 1024 matrix is 32,768 outputs; its rows are linear functions
    # of the 128-bit state, so the rank is at most 128.
    matrices = 40
    stream = xorshift128_words(matrices, 1024 * 1024 // 32).astype(">u4").tobytes()
    data = np.frombuffer(stream, dtype=np.uint8)
    result = run(MatrixRank(size=1024), data)["matrix_rank[1024x1024]"]
    assert result.pvalue < 1e-6 and result.details["min_rank"] <= 128
    # the standard's 32 x 32 matrices see nothing wrong in the same bytes
    assert run(MatrixRank(), data)["matrix_rank"].pvalue > 1e-6
    # ... and good bytes pass the large test
    good = run(MatrixRank(size=1024), np.frombuffer(os.urandom(len(stream)), dtype=np.uint8))["matrix_rank[1024x1024]"]
    assert good.pvalue > 1e-6 and good.verdict != "insufficient"
    assert good.details["matrices"] == matrices and sum(good.details["counts"]) == matrices


def test_large_matrix_rank_pools_rare_classes():
    # 40 matrices expect 0.2 of rank <= size - 3 and 5.1 of size - 2: the last
    # class is pooled into its neighbour (every expected count >= 5)
    data = np.frombuffer(np.random.default_rng(5).bytes(40 * 64 * 64 // 8), dtype=np.uint8)
    result = run(MatrixRank(size=64), data)["matrix_rank[64x64]"]
    assert result.details["rank_classes"] == ["64", "63", "<=62"] and result.details["dof"] == 2
    assert min(np.array(result.details["probabilities"]) * 40) >= 5
    assert sum(result.details["counts"]) == 40 and sum(result.details["probabilities"]) == pytest.approx(1)
    assert result.details["probabilities"][2] == pytest.approx(1 - rank_probability(64, 64, 64) - rank_probability(64, 64, 63))


def lfsr_bits(nbits: int, taps: tuple[int, int] = (31, 28), seed: int = 99) -> np.ndarray:
    """s_t = s_(t-31) xor s_(t-28), the primitive trinomial x^31 + x^28 + 1,
    filled 28 bits per numpy step."""
    long_lag, short_lag = taps
    s = np.empty(nbits, dtype=np.uint8)
    s[:long_lag] = np.random.default_rng(seed).integers(0, 2, long_lag)
    s[0] = 1
    for t in range(long_lag, nbits, short_lag):
        stop = min(t + short_lag, nbits)
        s[t:stop] = s[t - long_lag : stop - long_lag] ^ s[t - short_lag : stop - short_lag]
    return s


def test_linear_complexity_catches_an_lfsr():
    data = np.packbits(lfsr_bits(E_BITS))
    result = run(LinearComplexity(), data)["linear_complexity"]
    assert result.pvalue < 1e-6 and set(result.details["complexities"]) == {"31"}


def test_good_bits_pass():
    data = np.frombuffer(np.random.default_rng(12345).bytes(1 << 17), dtype=np.uint8)
    for cls in ALL_SIX:
        for r in run(cls(), data).values():
            assert r.verdict != "insufficient" and r.pvalue > 1e-6, r.name


def test_cli_runs_the_examples_from_bit_text(cli, tmp_path):
    suite = tmp_path / "examples.toml"
    suite.write_text('name = "examples"\n[[tests]]\ntest = "longest_run"\n[[tests]]\ntest = "block_frequency"\nM = 10\n')
    out = cli("test", "-", "--format", "bits", "--suite", str(suite), "--json", "-", input=EPSILON_128.encode())
    assert out.returncode == 0, out.stderr
    results = {t["name"]: t for t in out.json()["tests"]}
    assert results["longest_run"]["p_value"] == pytest.approx(0.180609, abs=5e-7)
    assert out.json()["bits_tested"] == 128


if __name__ == "__main__":
    bits_of_e = e_bytes()
    print_references(REFERENCES, bits_of_e, 20, 13, 30)
    rank3 = results_for(lambda: MatrixRank(rows=3, cols=3), "01011001001010101101", bits_of_e)["matrix_rank[3x3]"]
    printed_pi = np.array([0.2888, 0.5776, 0.1336]) * rank3.details["matrices"]
    chi2 = float(((np.array(rank3.details["counts"]) - printed_pi) ** 2 / printed_pi).sum())
    print(f"2.5.4 counts with the printed 32x32 pi: chi2 {chi2:.6f} (0.596953), p {math.exp(-chi2 / 2):.6f} (0.741948);"
          f" randqa's 3x3 pi give p {rank3.pvalue:.6f}")
    for n, n1, printed in [(10, 4, 0.029523), (100, 46, 0.168669)]:
        print(f"2.6 printed N1 = {n1} of n = {n}: p {peak_count_pvalue(n, n1)[1]:.6f} ({printed});"
              f" the algorithm counts N1 = {run(DFT(), '1001010011' if n == 10 else EPSILON_100)['dft'].details['N1']}")
    f_n = results_for(lambda: Universal(L=2, Q=4), "01011010011101010111", bits_of_e)["universal"].statistic
    p_printed_style = math.erfc(abs(f_n - EXPECTED_VALUE[2]) / math.sqrt(2 * VARIANCE[2]))
    print(f"2.9.4 with sigma = sqrt(variance(2)): p {p_printed_style:.6f} (0.767189)")
    print("with exact class probabilities (the default) on e:")
    for label, acc, name, printed in [("longest_run", LongestRun(), "longest_run", "App. B, 'sts' table: 0.718945"),
                                      ("linear_complexity", LinearComplexity(), "linear_complexity", "App. B, 'sts' pi: 0.826335"),
                                      ("linear_complexity M=1000", LinearComplexity(M=1000), "linear_complexity",
                                       "2.10.8, 'sts' pi: 0.845406")]:
        print(f"  {label:25} {run(acc, bits_of_e)[name].pvalue:.6f}  ({printed})")
