"""fpf (PractRand's floating-point frequency test, one window per 16-bit
or 32-bit word): the exponents and mantissas equal a bit-by-bit Python
reading of the stream in either bit order, the exponent p-value bounds the
exact tail of its statistic (full enumeration), the mantissa sum is
Pearson's X^2 of the reference counts, results do not depend on how the
stream is cut or merged, bad parameters are refused, PCG64 passes,
java.util.Random's folded low bits fail, and a bias planted after 17 zero
bits is seen by 32-bit windows and not by 16-bit ones."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pytest

from accumulators import feed_in_pieces, same_results
from randqa.battery._folding import FoldedTest
from randqa.battery.fpf import MIN_WORDS, Fpf, exponent_probabilities, exponent_result, platter_mantissas, \
    platter_offsets
from randqa.results import Verdict, chi_square_sf
from reference_generators import backend_bytes, pcg64_array

rng = np.random.default_rng(20261204)


def stream_bits(data: np.ndarray, bit_order: str) -> list[int]:
    """The stream's bits in the order the test reads them: lowest first in
    each little-endian 16-bit word, or highest first in each byte."""
    bits = []
    for lo, hi in zip(data[0::2].tolist(), data[1::2].tolist()):
        if bit_order == "lsb":
            word = lo | hi << 8
            bits += [(word >> i) & 1 for i in range(16)]
        else:
            bits += [(lo >> (7 - i)) & 1 for i in range(8)] + [(hi >> (7 - i)) & 1 for i in range(8)]
    return bits


def reference_windows(data: np.ndarray, bit_order: str, window_bits: int = 16) -> list[tuple[int, tuple[int, ...]]]:
    """(exponent, mantissa bits in stream order) of every word, read bit by
    bit (a 32-bit word read from its lowest bit little-endian, or from its
    highest big-endian, is two 16-bit words' bits in a row)."""
    bits = stream_bits(data, bit_order)
    out = []
    for start in range(0, len(bits) - window_bits + 1, window_bits):
        window = bits[start:start + window_bits]
        exponent = window.index(1) if 1 in window else window_bits
        out.append((exponent, tuple(window[exponent + 1:])))
    return out


def test_exponent_probabilities_are_those_of_all_16_bit_words():
    counts = np.zeros(17)
    for exponent, _ in reference_windows(np.arange(1 << 16, dtype="<u2").view(np.uint8), "lsb"):
        counts[exponent] += 1
    assert np.array_equal(counts / (1 << 16), exponent_probabilities())


@pytest.mark.parametrize("bit_order", ["lsb", "msb"])
def test_platter_counts_equal_a_bit_by_bit_reading(bit_order):
    data = rng.integers(0, 256, 6000, dtype=np.uint8)
    data[100:140] = 0  # zero words and long runs
    data[141] = 0x80
    acc = Fpf(bit_order=bit_order)
    feed_in_pieces(acc, data, [1, 3, 999, 3001])
    windows = acc.windows()

    reference = reference_windows(data, bit_order)
    for exponent in range(16):
        mantissas = [m for e, m in reference if e == exponent]
        expected = np.zeros(1 << (15 - exponent), dtype=np.int64)
        for m in mantissas:
            expected[sum(bit << i for i, bit in enumerate(m))] += 1  # the first bit read is the lowest
        assert np.array_equal(platter_mantissas(windows, exponent), expected), exponent
    assert int(windows[0]) == sum(e == 16 for e, _ in reference)


@lru_cache(maxsize=None)
def fisher_outcomes(words: int, levels: int) -> tuple[np.ndarray, np.ndarray]:
    """Fisher's T over the first ``levels`` levels of ``words`` words and its
    probability, for every outcome of the binomial chain (enumerated)."""
    from scipy.stats import binom

    from randqa.results import symmetric_binomial_two_sided

    outcomes = [(0.0, 1.0, words)]  # T so far, probability, words reaching the level
    for _ in range(levels):
        outcomes = [(t - 2 * math.log(symmetric_binomial_two_sided(n, reaching) if reaching else 1.0),
                     prob * binom.pmf(n, reaching, 0.5), reaching - n)
                    for t, prob, reaching in outcomes for n in range(reaching + 1)]
    return np.array([o[0] for o in outcomes]), np.array([o[1] for o in outcomes])


def exact_fisher_tail(words: int, levels: int, observed: float) -> float:
    """P(T >= observed), exactly."""
    t, prob = fisher_outcomes(words, levels)
    return float(prob[t >= observed * (1 - 1e-12)].sum())


def test_exponent_p_value_bounds_the_exact_tail():
    words = 40  # levels 0 and 1 expect at least 16
    checked = 0
    for n0 in range(8, 33, 3):
        for n1 in range(0, words - n0 + 1, 4):
            counts = np.zeros(17, dtype=np.int64)
            counts[0], counts[1], counts[2] = n0, n1, words - n0 - n1
            result = exponent_result("fpf", counts)
            assert result.details["levels"] == 2
            exact = exact_fisher_tail(words, 2, result.statistic)
            assert exact <= result.pvalue * (1 + 1e-9), (n0, n1)
            if exact < 1e-3:  # the bound is not loose by orders of magnitude in the tail
                assert result.pvalue < 30 * exact, (n0, n1, exact, result.pvalue)
                checked += 1
    assert checked >= 3


def test_mantissa_sum_is_pearson_on_the_reference_counts():
    data = pcg64_array(1 << 20, seed=7)
    acc = Fpf(mantissa_bits=10)
    acc.update(data)
    _, _, summed = acc.finalize()
    reference = reference_windows(data[: 1 << 16], "lsb")  # a bit-by-bit check of the first 32,768 words
    assert len(reference) == 1 << 15
    windows, x2, dof = acc.windows(), 0.0, 0
    for exponent in summed.details["platters"]:
        n = int(sum(windows[(np.arange(1 << (15 - exponent)) << (exponent + 1)) | (1 << exponent)]))
        bits = min(10, 15 - exponent)
        while n < 32 << bits:
            bits -= 1
        counts = np.bincount(
            (np.arange(1 << (15 - exponent)) & ((1 << bits) - 1)),
            weights=windows[(np.arange(1 << (15 - exponent)) << (exponent + 1)) | (1 << exponent)],
            minlength=1 << bits)
        x2 += float(np.sum((counts - n / (1 << bits)) ** 2) / (n / (1 << bits)))
        dof += (1 << bits) - 1
    assert summed.statistic == pytest.approx(x2, rel=1e-12) and summed.details["dof"] == dof
    assert summed.pvalue == pytest.approx(chi_square_sf(x2, dof), rel=1e-12)


def test_chunks_and_merged_parts_give_one_pass_results():
    data = pcg64_array(200_001, seed=3)
    whole = Fpf(bit_order="msb")
    whole.update(data)
    pieces = Fpf(bit_order="msb")
    feed_in_pieces(pieces, data, [1, 2, 5, 4097, 100_001])
    same_results(pieces.finalize(), whole.finalize())
    merged = None
    for lo, hi in [(0, 70_000), (70_000, 70_002), (70_002, 200_001)]:
        part = Fpf(bit_order="msb")
        part.begin_at(lo)
        part.update(data[lo:hi])
        sent = Fpf(bit_order="msb")
        sent.begin_at(lo)
        sent.load_state(part.state())
        merged = sent if merged is None else (merged.merge(sent) or merged)
    same_results(merged.finalize(), whole.finalize())


@pytest.mark.parametrize("params", [{"mantissa_bits": 0}, {"mantissa_bits": 16}, {"mantissa_bits": True},
                                    {"mantissa_bits": 2.0}, {"bit_order": "big"}, {"bit_order": None}])
def test_bad_parameters_are_refused(params):
    with pytest.raises(ValueError):
        Fpf(**params)


def test_too_little_data_is_insufficient():
    acc = Fpf()
    acc.update(pcg64_array(2 * MIN_WORDS - 2, seed=1))
    results = acc.finalize()
    assert len(results) == 3 and all(r.verdict == Verdict.INSUFFICIENT and r.needs for r in results)
    acc.update(pcg64_array(2, seed=2))
    assert acc.finalize()[0].verdict is None


@pytest.mark.parametrize("bit_order", ["lsb", "msb"])
def test_pcg64_passes(bit_order):
    acc = Fpf(bit_order=bit_order)
    acc.update(pcg64_array(16 << 20, seed=11))
    assert min(min(r.pvalue, r.pvalue_low if r.pvalue_low is not None else 1) for r in acc.finalize()) > 1e-4


def test_java_random_low_bit_fold_fails_at_4_mib():
    # bit 16 of a 48-bit LCG's state is java.util.Random's lowest output bit: period 2^17
    acc = FoldedTest(Fpf(bit_order="msb"), word_bits=32, low_bits=1)
    acc.update(backend_bytes("java-random", 1, 4 << 20))
    results = acc.finalize()
    assert [r.name for r in results] == ["fpf:exponent[low1/32]", "fpf:mantissa[low1/32]",
                                         "fpf:mantissa_sum[low1/32]"]
    assert min(r.pvalue for r in results) < 1e-20


# ---- 32-bit windows

def window32_data() -> np.ndarray:
    """Random bytes with zero words, and runs of 17 to 31 zero bits before a one in either bit order."""
    data = rng.integers(0, 256, 40_000, dtype=np.uint8)
    data[400:440] = 0
    for k, e in enumerate(range(12, 32)):
        at = 800 + 8 * k
        low = (int.from_bytes(data[at:at + 4].tobytes(), "little") | 1 << e) >> e << e  # e zero bits, lowest first
        high = int.from_bytes(data[at + 4:at + 8].tobytes(), "big") & ((2 << (31 - e)) - 1) | 1 << (31 - e)
        data[at:at + 8] = np.frombuffer(low.to_bytes(4, "little") + high.to_bytes(4, "big"), dtype=np.uint8)
    return data


def test_exponent_probabilities_of_32_bit_windows():
    probs = exponent_probabilities(32)
    assert len(probs) == 33 and probs.sum() == 1.0 and probs[31] == probs[32] == 2.0 ** -32
    assert np.array_equal(probs[:17], np.append(exponent_probabilities()[:16], 2.0 ** -17))


@pytest.mark.parametrize("bit_order", ["lsb", "msb"])
@pytest.mark.parametrize("mantissa_bits", [14, 5])
def test_32_bit_platter_counts_equal_a_bit_by_bit_reading(bit_order, mantissa_bits):
    data = window32_data()
    acc = Fpf(bit_order=bit_order, mantissa_bits=mantissa_bits, window_bits=32)
    feed_in_pieces(acc, data, [1, 3, 999, 3001])
    by_exponent, platters = acc.platters()
    offsets = platter_offsets(mantissa_bits)
    assert len(acc.counts) == offsets[-1] == (33 - mantissa_bits) << mantissa_bits

    reference = reference_windows(data, bit_order, 32)
    assert len(reference) == 10_000
    seen = sorted({e for e, _ in reference})
    assert set(range(12, 33)) <= set(seen)  # the planted long runs and zero words
    for exponent in range(33):
        mantissas = [m[:mantissa_bits] for e, m in reference if e == exponent]
        assert by_exponent[exponent] == len(mantissas), exponent
        expected = np.zeros(1 << max(0, min(mantissa_bits, 31 - exponent)), dtype=np.int64)  # the zero word: one
        for m in mantissas:
            expected[sum(bit << i for i, bit in enumerate(m))] += 1  # the first bit read is the lowest
        assert np.array_equal(acc.counts[offsets[exponent]:offsets[exponent + 1]], expected), exponent
        if exponent < 31:
            assert platters[exponent] is not None and np.array_equal(platters[exponent], expected)
    assert len(platters) == 31


def test_32_bit_results_are_named_apart_and_use_32_levels():
    acc = Fpf(window_bits=32)
    acc.update(pcg64_array(1 << 22, seed=5))
    results = acc.finalize()
    assert [r.name for r in results] == ["fpf:exponent[window_bits=32]", "fpf:mantissa[window_bits=32]",
                                         "fpf:mantissa_sum[window_bits=32]"]
    words = 1 << 20
    assert results[0].details["words"] == words
    assert results[0].details["levels"] == 17  # 2^20 / 2^16 = 16 words reach level 16
    by_exponent, _ = acc.platters()
    assert results[0].pvalue == exponent_result("fpf", by_exponent).pvalue


def test_32_bit_chunks_and_merged_parts_give_one_pass_results():
    data = pcg64_array(400_003, seed=4)
    whole = Fpf(bit_order="msb", window_bits=32)
    whole.update(data)
    pieces = Fpf(bit_order="msb", window_bits=32)
    feed_in_pieces(pieces, data, [1, 2, 5, 4097, 100_001, 100_002])
    same_results(pieces.finalize(), whole.finalize())
    merged = None
    for lo, hi in [(0, 80_000), (80_000, 80_004), (80_004, 400_003)]:
        part = Fpf(bit_order="msb", window_bits=32)
        part.begin_at(lo)
        part.update(data[lo:hi])
        sent = Fpf(bit_order="msb", window_bits=32)
        sent.begin_at(lo)
        sent.load_state(part.state())
        merged = sent if merged is None else (merged.merge(sent) or merged)
    same_results(merged.finalize(), whole.finalize())
    with pytest.raises(ValueError):  # a 32-bit window may not start inside a word
        Fpf(window_bits=32).begin_at(2)
    with pytest.raises(ValueError):  # nor merge with 16-bit windows
        Fpf(window_bits=32).merge(Fpf())


@pytest.mark.parametrize("window_bits", [0, 8, 24, 64, True, 32.0, "32", None])
def test_bad_window_bits_are_refused(window_bits):
    with pytest.raises(ValueError):
        Fpf(window_bits=window_bits)


def test_the_kernel_refuses_bad_arguments():
    from randqa.battery import _fpf_windows

    counts = np.zeros((33 - 14) << 14, dtype=np.int64)
    for args in [(b"abc", 0, 14, counts), (b"abcd", 2, 14, counts), (b"abcd", 0, 0, counts),
                 (b"abcd", 0, 16, counts), (b"abcd", 0, 13, counts), (b"abcd", 0, 14, counts[:-1]),
                 (b"abcd", 0, 14, counts.astype(np.int32))]:
        with pytest.raises(ValueError):
            _fpf_windows.fpf_window32_counts(*args)
    _fpf_windows.fpf_window32_counts(b"\x00\x00\x02\x00", 0, 14, counts)  # exponent 17, mantissa 0
    assert counts.sum() == 1 and counts[platter_offsets(14)[17]] == 1


def test_too_little_data_is_insufficient_with_32_bit_windows():
    acc = Fpf(window_bits=32)
    acc.update(pcg64_array(4 * MIN_WORDS - 1, seed=1))
    results = acc.finalize()
    assert all(r.verdict == Verdict.INSUFFICIENT and "4096 bytes" in r.needs for r in results)
    acc.update(pcg64_array(1, seed=2))
    assert acc.finalize()[0].verdict is None


@pytest.mark.parametrize("bit_order", ["lsb", "msb"])
def test_pcg64_passes_with_32_bit_windows(bit_order):
    acc = Fpf(bit_order=bit_order, window_bits=32)
    acc.update(pcg64_array(16 << 20, seed=12))
    assert min(min(r.pvalue, r.pvalue_low if r.pvalue_low is not None else 1) for r in acc.finalize()) > 1e-4


def test_a_bias_after_17_zero_bits_is_seen_by_32_bit_windows_only():
    # PCG64's 32-bit words, except that a word whose lowest 17 bits are zero
    # becomes 2^17: exponent 17 and a zero mantissa.  A 16-bit window sees a
    # zero word, as it would anyway, then the value 2 at an extra rate of
    # 2^-17, inside a platter of 2^14 classes
    words = pcg64_array(16 << 20, seed=13).view("<u4").copy()
    words[(words & ((1 << 17) - 1)) == 0] = 1 << 17
    data = words.view(np.uint8)
    results = {}
    for window_bits in (16, 32):
        acc = Fpf(window_bits=window_bits)
        acc.update(data)
        results[window_bits] = {r.name.split("[")[0]: r for r in acc.finalize()}
    assert min(r.pvalue for r in results[16].values()) > 1e-3
    exponent = results[32]["fpf:exponent"]  # every word reaching level 17 stops there
    assert exponent.details["worst_level"] == 17 and exponent.details["worst_level_p_value"] < 1e-9
    assert results[32]["fpf:mantissa"].pvalue < 1e-10 and results[32]["fpf:mantissa"].details["platter"] == 17
