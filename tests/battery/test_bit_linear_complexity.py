"""bit_linear_complexity: Berlekamp-Massey linear complexity of single bit
positions (Rueppel's distribution of the complexity of a random sequence,
NIST SP 800-22 2.10's classes with exact probabilities).  It fails the
weak 32-bit generators within 1 KiB and glibc rand()'s lowest bit (linear
complexity 527), passes PCG64, and needs 5 expected sequences per class.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from accumulators import failed, results_of
from randqa.battery.bit_linear_complexity import BitLinearComplexity, complexity_cdf
from randqa.battery.linear_complexity import complexity_log2_pmf
from reference_generators import berlekamp_massey, pcg64_array, reference_stream


def test_merge_refuses_a_left_part_off_the_alignment() -> None:
    left, right = BitLinearComplexity(length=256), BitLinearComplexity(length=256)
    left.update(np.zeros(100, dtype=np.uint8))
    with pytest.raises(ValueError, match="boundary"):
        left.merge(right)


def test_complexity_distribution_matches_enumeration() -> None:
    """Rueppel's count of sequences with each complexity, checked over all 2^10 sequences."""
    n = 10
    counts = np.zeros(n + 1)
    for bits in itertools.product([0, 1], repeat=n):
        counts[berlekamp_massey(list(bits))[0]] += 1
    assert np.allclose(counts / 2**n, np.exp2(complexity_log2_pmf(n)))
    assert np.isclose(complexity_cdf(n, 3), counts[:4].sum() / 2**n)
    assert np.isclose(complexity_cdf(n, 7), counts[:8].sum() / 2**n)


def test_nist_class_probabilities_are_the_exact_ones() -> None:
    # NIST SP 800-22 2.10.4 rounds these to 0.010417, 0.03125, 0.125, 0.5, 0.25, 0.0625, 0.020833
    acc = BitLinearComplexity(word_bits=8, bits=[0], length=512)
    acc.histograms[0][256] = 600  # 600 sequences: NIST's seven classes are the finest with 5 expected
    result = acc.finalize()[0]
    assert result.details["dof"] == 6
    probs = np.array(result.details["expected"]) / 600
    assert np.allclose(probs, [1 / 96, 1 / 32, 1 / 8, 1 / 2, 1 / 4, 1 / 16, 1 / 48], rtol=1e-12)
    assert result.details["observed"] == [0, 0, 0, 600, 0, 0, 0]
    assert failed([result])  # every sequence at exactly n/2 is far too regular


@pytest.mark.parametrize("generator", ["xorshift32", "lfsr113", "randu", "minstd", "msvc-rand-short"])
def test_bit_complexity_fails_weak_32_bit_generators_within_1_kib(generator: str) -> None:
    results = results_of(BitLinearComplexity(word_bits=32, bits=[0, 31], length=256), reference_stream(generator, 1024))
    assert any(name.endswith(",lowest]") for name in failed(results))


def test_bit_complexity_fails_glibc_rand_low_bit() -> None:
    # the lowest output bit of glibc's additive generator has linear complexity 527
    data = reference_stream("glibc-rand-byte", 2048)
    results = results_of(BitLinearComplexity(word_bits=8, bits=[0], length=1536), data)
    assert results[1].details["lowest_complexity"] == 527
    assert failed(results) == ["bit_linear_complexity[bit=0/8,lowest]"]
    short = results_of(BitLinearComplexity(word_bits=16, bits=[0], length=1536), reference_stream("glibc-rand-short", 4096))
    assert failed(short) == ["bit_linear_complexity[bit=0/16,lowest]"]


def test_bit_complexity_passes_a_good_generator_and_counts_sequences() -> None:
    data = pcg64_array(256 * 4 * 64, seed=5)
    results = results_of(BitLinearComplexity(word_bits=32, bits=[3], length=256, every=2), data)
    assert results[0].details["sequences"] == 32
    assert not failed(results)
    assert results[0].details["dof"] == 2  # 32 sequences: only the classes d <= -1, 0, >= 1 have 5 expected


def test_bit_complexity_with_too_little_data_is_insufficient() -> None:
    results = results_of(BitLinearComplexity(word_bits=64, bits=[0], length=512), pcg64_array(4000, seed=1))
    assert [r.verdict for r in results] == ["insufficient", "insufficient"]
    assert "4096 bytes" in results[0].needs


@pytest.mark.parametrize(
    "params",
    [dict(word_bits=12), dict(bits=[32]), dict(bits=[]), dict(bits=[1, 1]), dict(length=100), dict(length=0), dict(every=0),
     dict(length=(1 << 18) + 64)],
)
def test_bit_complexity_refuses_bad_parameters(params) -> None:
    with pytest.raises(ValueError):
        BitLinearComplexity(**params)


def test_sequences_of_160000_bits_see_four_interleaved_mt19937_streams() -> None:
    # bit 0 of four MT19937 streams' outputs taken in turn has complexity up
    # to 4 x 19937 = 79748: beyond any sequence of 131,072 bits or fewer
    # (a random one's is about n/2), within one of 160,000 (a random sequence
    # is that low with probability 2^-504)
    outputs = np.stack([np.random.MT19937(seed).random_raw(40_000) for seed in (1, 2, 3, 4)], axis=1)
    data = outputs.astype("<u4").view(np.uint8).ravel()
    results = {r.name: r for r in results_of(BitLinearComplexity(bits=[0], length=160_000), data)}
    lowest = results["bit_linear_complexity[bit=0/32,lowest]"]
    assert lowest.statistic <= 4 * 19937 and lowest.pvalue < 1e-150
    longest_before = results_of(BitLinearComplexity(bits=[0], length=131_072), data[: 131_072 * 4])
    assert longest_before[1].pvalue > 1e-3


def test_a_part_placed_with_begin_at_may_start_at_any_sequence():
    # one sequence in 4 is tested, so the pattern repeats every 4 sequences
    # (the phase); a part placed where it starts may begin at any sequence
    params = dict(word_bits=32, bits=[0, 31], length=256, every=4)
    data = np.random.Generator(np.random.PCG64(11)).integers(0, 256, 1 << 18, dtype=np.uint8)
    whole = BitLinearComplexity(**params)
    whole.update(data)
    sequence = 256 * 4
    assert whole.alignment == sequence and whole.phase == 4 * sequence
    for cut in (sequence, 3 * sequence, 9 * sequence):  # none a multiple of the phase but 0
        left, right = BitLinearComplexity(**params), BitLinearComplexity(**params)
        right.begin_at(cut)
        left.update(data[:cut])
        right.update(data[cut:])
        left.merge(right)
        assert [r.to_json() for r in left.finalize()] == [r.to_json() for r in whole.finalize()]


def test_an_unplaced_part_off_the_phase_or_a_part_placed_elsewhere_is_refused():
    params = dict(word_bits=32, bits=[0], length=256, every=4)
    data = np.zeros(8192, dtype=np.uint8)
    left, unplaced, elsewhere = (BitLinearComplexity(**params) for _ in range(3))
    left.update(data[:1024])
    with pytest.raises(ValueError, match="4096-byte boundary"):
        left.merge(unplaced)
    elsewhere.begin_at(2048)
    with pytest.raises(ValueError, match="starts at byte 2048, not where the left part ends"):
        left.merge(elsewhere)
    with pytest.raises(ValueError, match="1024-byte boundary"):
        BitLinearComplexity(**params).begin_at(100)
