"""The accumulator protocol (randqa/battery/base.py) held by every test of the
battery: results do not depend on where the stream is cut, a merge equals
one pass over the concatenation (and is refused off the test's alignment),
the update tasks of --jobs may run in any order, tail bits and max_bits are
handled alike, too little data is "insufficient" (never a pass), bad
parameters are refused, good bits pass and blatantly bad bits fail.

The invariance checks run on streams long enough for every result to be a
real statistic; they compare full results (statistics, p-values, verdicts,
details).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from accumulators import feed_in_pieces, feed_in_sizes, results_of, same_results, summary
from nist_reference import results_for, run
from randqa.battery import accumulator_class, available_tests
from randqa.battery.approximate_entropy import ApproximateEntropy
from randqa.battery.bcfn import BCFN
from randqa.battery.bit_linear_complexity import BitLinearComplexity
from randqa.battery.block_frequency import BlockFrequency
from randqa.battery.cumulative_sums import CumulativeSums
from randqa.battery.dft import DFT
from randqa.battery.digraph import Digraph
from randqa.battery.gap import Gap
from randqa.battery.linear_complexity import LinearComplexity
from randqa.battery.longest_run import LongestRun
from randqa.battery.matrix_rank import MatrixRank
from randqa.battery.non_overlapping_template import NonOverlappingTemplate
from randqa.battery.overlapping_serial import OverlappingSerial
from randqa.battery.overlapping_template import OverlappingTemplate
from randqa.battery.random_excursions import RandomExcursions
from randqa.battery.random_excursions_variant import RandomExcursionsVariant
from randqa.battery.serial import Serial
from randqa.battery.universal import Universal
from reference_generators import pcg64_array


# --------------------------------------------------------------------------
# every registered test, with its default parameters


DATA = np.random.default_rng(2024).bytes(300_007)  # odd length on purpose

#: longer streams for the tests whose defaults need more than DATA before every
#: result is a real statistic: bcfn's 6683 blocks of 16384 bits,
#: overlapping_serial's 100 expected per pattern of m = 16 bits,
#: bit_linear_complexity's 30 sequences of 4096 32-bit words,
#: fluhrer_mcgrew's 64 MiB (its MIN_BYTES), lagged_mod3's 64 windows, one
#: in every 131,072 32-bit words, affine_digraph's 65,536 pairs, 4,096 in
#: every 512 KiB, and conditional_walsh's 65,536 samples, one in 16 words
LONGER_STREAMS = {"bcfn": 13_686_784 + 7, "overlapping_serial": 819_200 + 7, "bit_linear_complexity": 30 * 16384 + 7,
                  "fluhrer_mcgrew": (64 << 20) + 7, "lagged_mod3": 4 * (63 * 131_072 + 81) + 7,
                  "affine_digraph": 15 * 524_288 + 8192 + 7, "conditional_walsh": 2_097_128 + 7}


@functools.cache
def stream_for(name: str) -> bytes:
    """DATA, or a longer stream (also of odd length) where the test's defaults need one."""
    return np.random.default_rng(2024).bytes(LONGER_STREAMS[name]) if name in LONGER_STREAMS else DATA


def assert_no_insufficient(results) -> None:
    """Every result is a real statistic: an invariance between two 'insufficient' results proves nothing."""
    assert [r.name for r in results if r.verdict == "insufficient"] == []


def one_pass(name: str):
    """The test's class, its stream, and an accumulator that saw the stream in one piece."""
    cls, data = accumulator_class(name), stream_for(name)
    whole = cls()
    whole.update(np.frombuffer(data, dtype=np.uint8))
    assert_no_insufficient(whole.finalize())
    return cls, data, whole


def json_results(acc) -> list[dict]:
    return [r.to_json() for r in acc.finalize()]


@pytest.mark.parametrize("name", available_tests())
def test_chunking_does_not_change_results(name):
    cls, data, whole = one_pass(name)
    rng = np.random.default_rng(5)
    pieces = cls()
    cuts = [1, 2, 3, 7, 4095, 4097, 65536, 100_001] + rng.integers(0, len(data), size=20).tolist()
    feed_in_pieces(pieces, data, cuts)
    assert json_results(pieces) == json_results(whole)


@pytest.mark.parametrize("name", available_tests())
def test_merge_equals_one_pass(name):
    cls, data, whole = one_pass(name)
    left, right = cls(), cls()
    split = (len(data) // 3) // left.alignment * left.alignment
    right.begin_at(split)  # placed where it starts, as a run's segments are
    feed_in_pieces(left, data[:split], [split // 2 + 1])
    feed_in_pieces(right, data[split:], [11])
    left.merge(right)
    assert json_results(left) == json_results(whole)


@pytest.mark.parametrize("name", available_tests())
def test_update_tasks_in_any_order_equal_update(name):
    # what --jobs runs in parallel threads: the tasks of one chunk, in any order
    cls, data, whole = one_pass(name)
    tasked = cls()
    for lo, hi in [(0, 70_001), (70_001, len(data))]:
        for task in reversed(tasked.update_tasks(np.frombuffer(data[lo:hi], dtype=np.uint8), 3)):
            task()
    assert json_results(tasked) == json_results(whole)


# --------------------------------------------------------------------------
# the strong tests with parameters of their own


STRONG_TESTS = [
    (BitLinearComplexity, dict(word_bits=32, bits=[0, 31], length=256, every=2)),
    (BitLinearComplexity, dict(word_bits=8, bits=[0, 5], length=128)),
    (Gap, dict(word_bytes=1, beta=0.5, max_gap=8)),
    (Gap, dict(word_bytes=2, alpha=0.25, beta=0.3, max_gap=20)),
    (Digraph, dict()),
    (Digraph, dict(position_mod=3)),
    (OverlappingSerial, dict(m=5)),
    (OverlappingSerial, dict(m=11)),
    (BCFN, dict(block_bits=[8, 24, 64], letters=5, tuple_length=3)),
]


@pytest.mark.parametrize("cls,params", STRONG_TESTS, ids=lambda x: getattr(x, "name", str(x)))
def test_results_do_not_depend_on_chunk_boundaries(cls, params) -> None:
    data = pcg64_array(400_003, seed=11)
    results = results_of(cls(**params), data)
    assert_no_insufficient(results)
    whole = summary(results)
    rng = np.random.default_rng(3)
    for _ in range(2):
        cuts = [int(c) for c in rng.integers(0, len(data), 7)] + [1, 2, 3]
        assert summary(results_of(cls(**params), data, cuts)) == whole


@pytest.mark.parametrize("cls,params", STRONG_TESTS, ids=lambda x: getattr(x, "name", str(x)))
def test_merge_equals_concatenation(cls, params) -> None:
    data = pcg64_array(400_000, seed=12)  # digraph[position_mod=3] needs 3 x 131,073 bytes
    results = results_of(cls(**params), data)
    assert_no_insufficient(results)
    whole = summary(results)
    left = cls(**params)
    split = (70_001 // left.alignment) * left.alignment
    left.update(data[:split])
    right = cls(**params)
    right.update(data[split:])
    left.merge(right)
    assert summary(left.finalize()) == whole


# --------------------------------------------------------------------------
# the NIST SP 800-22 tests, on the first bits of e


#: NIST SP 800-22 Rev 1a 2.2, 2.4, 2.5, 2.6, 2.9 and 2.10: tests of blocks and of the spectrum
NIST_BLOCK_AND_SPECTRAL_TESTS = [BlockFrequency, LongestRun, MatrixRank, DFT, Universal, LinearComplexity]
#: the same with block sizes that are not whole bytes (and one large matrix)
ODD_BLOCKS = [lambda: BlockFrequency(M=10), lambda: MatrixRank(rows=3, cols=3), lambda: LinearComplexity(M=13),
              lambda: MatrixRank(size=64)]
#: NIST SP 800-22 Rev 1a 2.7, 2.8 and 2.11-2.15: tests of bit patterns and of the random walk
NIST_PATTERN_AND_WALK_TESTS = [NonOverlappingTemplate, OverlappingTemplate, Serial, ApproximateEntropy, CumulativeSums,
                               RandomExcursions, RandomExcursionsVariant]


def test_registered_by_name():
    for cls in NIST_BLOCK_AND_SPECTRAL_TESTS + NIST_PATTERN_AND_WALK_TESTS:
        assert cls.name in available_tests() and accumulator_class(cls.name) is cls


@pytest.mark.parametrize("factory", NIST_BLOCK_AND_SPECTRAL_TESTS + ODD_BLOCKS, ids=lambda f: repr(f()))
def test_chunking_merge_and_tail_bits_do_not_change_results(factory, e):
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


@pytest.mark.parametrize("cls", NIST_PATTERN_AND_WALK_TESTS, ids=lambda c: c.name)
def test_chunking_and_a_merge_at_any_byte_do_not_change_results(cls, e):
    data = e[:60_001]  # an odd number of bytes
    whole = cls()
    whole.update(data)
    reference = whole.finalize()
    chunked = cls()
    feed_in_sizes(chunked, data)
    same_results(chunked.finalize(), reference)
    left, right = cls(), cls()
    left.update(data[:29_999])
    right.update(data[29_999:])
    left.merge(right)
    same_results(left.finalize(), reference)
    assert left.bytes_seen == len(data)


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


@pytest.mark.parametrize("cls", NIST_PATTERN_AND_WALK_TESTS, ids=lambda c: c.name)
def test_max_bits_off_a_byte_and_across_a_merge_tests_the_first_bits_and_says_so(cls, e):
    limit = 8 * 20_000 + 5  # not a byte multiple
    first = cls(max_bits=limit)
    bits = np.unpackbits(e[:20_001])[:limit]
    first.update(e[:20_000])
    first.update_tail_bits(bits[-5:])
    expected = first.finalize()
    capped = cls(max_bits=limit)
    capped.update(e[:15_000])
    right = cls(max_bits=limit)
    right.update(e[15_000:60_000])
    capped.merge(right)
    results = capped.finalize()
    for r in results:
        assert r.details["bits_seen"] == 8 * 60_000 and "first 160005" in r.details["note"]
        del r.details["bits_seen"], r.details["note"]
    same_results(results, expected)


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


def test_short_examples_are_insufficient_not_pass(e):
    for factory, data in [(CumulativeSums, "1011010111"), (lambda: Serial(m=3), "0011011101"),
                          (RandomExcursions, "0110110101"), (RandomExcursionsVariant, "0110110101")]:
        for result in results_for(factory, data, e).values():
            assert result.verdict == "insufficient" and result.needs and result.pvalue is not None


def test_block_and_spectral_tests_refuse_bad_parameters():
    for bad in [lambda: BlockFrequency(M=0), lambda: LongestRun(probabilities="old"), lambda: MatrixRank(size=1),
                lambda: MatrixRank(size=64, rows=64), lambda: Universal(L=17), lambda: Universal(Q=10),
                lambda: DFT(max_bits=0), lambda: LinearComplexity(M=3), lambda: LinearComplexity(probabilities="x")]:
        with pytest.raises(ValueError):
            bad()


def test_pattern_and_walk_tests_refuse_bad_parameters():
    with pytest.raises(ValueError, match="periodic"):
        NonOverlappingTemplate(m=3, templates=["010"])
    with pytest.raises(ValueError, match="m = 9"):
        NonOverlappingTemplate(templates=["001"])
    with pytest.raises(ValueError):
        OverlappingTemplate(probabilities="old")
    with pytest.raises(ValueError):
        Serial(m=1)
    with pytest.raises(ValueError):
        ApproximateEntropy(m=0)
    with pytest.raises(ValueError):
        CumulativeSums(max_bits=0)


def test_good_bits_pass_every_block_and_spectral_test():
    data = np.frombuffer(np.random.default_rng(12345).bytes(1 << 17), dtype=np.uint8)
    for cls in NIST_BLOCK_AND_SPECTRAL_TESTS:
        for r in run(cls(), data).values():
            assert r.verdict != "insufficient" and r.pvalue > 1e-6, r.name


def test_good_bits_pass_every_pattern_and_walk_test():
    data = np.frombuffer(np.random.default_rng(12345).bytes(1 << 17), dtype=np.uint8)
    for cls in NIST_PATTERN_AND_WALK_TESTS:
        for r in run(cls(), data).values():
            assert r.pvalue is None or r.pvalue > 1e-6, r.name


def test_seven_bit_text_is_caught():
    # bytes with the top bit always clear (7-bit ASCII-like): no run of nine
    # ones can start inside a byte and pattern frequencies are skewed
    data = np.random.default_rng(11).integers(0, 128, 131_072, dtype=np.uint8)
    for cls in (NonOverlappingTemplate, OverlappingTemplate, Serial, ApproximateEntropy):
        results = run(cls(), data)
        assert min(r.pvalue for r in results.values()) < 1e-6, cls.name
