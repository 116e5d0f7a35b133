"""A sampled suite entry (SampledTest, ``sample_every``) gives the results of
its test on exactly the bytes it samples, under any chunking and across
merges at its alignment; suite files and run requests refuse samplings that
cannot be honoured.
"""

from __future__ import annotations

import numpy as np
import pytest

from accumulators import summary
from randqa.battery._sampling import SEGMENT_BYTES, SampledTest, sampled_bytes_before
from randqa.battery.frequency import Frequency
from randqa.battery.hamming_patterns import HammingPatterns
from randqa.battery.suites import TestSpec, parse_suite, spec_from_json
from randqa.engine.request import suite_from_json, suite_to_json
from randqa.errors import SuiteError
from reference_generators import pcg64_array

MiB = 1 << 20


def _sampled_mask(length: int, every: int, dense: int) -> np.ndarray:
    keep = np.zeros(length, dtype=bool)
    keep[:dense] = True
    for start in range(dense, length, every * SEGMENT_BYTES):
        keep[start : start + SEGMENT_BYTES] = True
    return keep


def _feed(acc, data: np.ndarray, cuts: list[int]):
    bounds = [0, *cuts, len(data)]
    for a, b in zip(bounds, bounds[1:]):
        acc.update(data[a:b])
    return acc


@pytest.mark.parametrize("every, dense_mib", [(2, 0), (3, 2)])
def test_a_sampled_entry_gives_its_test_on_the_sampled_bytes_in_any_pieces(every: int, dense_mib: int) -> None:
    data = pcg64_array(9 * MiB + 12_345, seed=80)
    spec = TestSpec("hamming_patterns", {"tuple_length": 6}, fold=(16, 4), sample=(every, dense_mib))
    keep = _sampled_mask(len(data), every, dense_mib * MiB)
    direct = TestSpec("hamming_patterns", {"tuple_length": 6}, fold=(16, 4)).build()
    direct.update(data[keep])
    expected = summary(direct.finalize())
    # pieces that cut segments, the dense head's end and words
    cuts = [1, 777_777, 2 * MiB - 3, 2 * MiB + 1, 5 * MiB + 999, 8 * MiB]
    sampled = _feed(spec.build(), data, cuts)
    assert summary(sampled.finalize()) == expected
    assert sampled.inner.bytes_seen == keep.sum() == sampled_bytes_before(len(data), every, dense_mib * MiB)
    assert sampled.finalize()[0].details["tested_bytes"] == keep.sum()


def test_parts_placed_at_their_positions_merge_into_the_one_pass() -> None:
    data = pcg64_array(11 * MiB, seed=81)
    spec = TestSpec("hamming_patterns", {}, sample=(4, 1))
    whole = _feed(spec.build(), data, [])
    for split in (MiB // 2, 3 * MiB, 6 * MiB + 4096):  # in the head, at a segment, between segments
        left, right = spec.build(), spec.build()
        right.begin_at(split)
        left.update(data[:split])
        right.update(data[split:])
        left.merge(right)
        assert summary(left.finalize()) == summary(whole.finalize())


def test_a_right_part_not_placed_does_not_merge_after_a_dense_head() -> None:
    left, right = (SampledTest(HammingPatterns(), every=2, dense_bytes=MiB) for _ in range(2))
    left.update(pcg64_array(MiB, seed=82))
    right.update(pcg64_array(MiB, seed=83))
    with pytest.raises(ValueError, match="boundary"):
        left.merge(right)


@pytest.mark.parametrize("length, tested", [(SEGMENT_BYTES // 2, True), (3 * SEGMENT_BYTES // 2, False),
                                            (2 * SEGMENT_BYTES, True), (2 * SEGMENT_BYTES + 5, True)])
def test_a_bit_stream_s_final_bits_are_tested_where_their_byte_is(length: int, tested: bool) -> None:
    """The final 1-7 bits of a bit stream go to the inner test when the byte
    they start falls in a tested segment, and only then."""
    sampled = SampledTest(Frequency(), every=2, dense_bytes=0)
    sampled.update(pcg64_array(length, 3))
    bits_before = sampled.inner.bits
    sampled.update_tail_bits(np.array([1, 1, 0], dtype=np.uint8))
    assert sampled.inner.bits - bits_before == (3 if tested else 0)
    assert sampled.inner.bits == 8 * sampled_bytes_before(length, 2, 0) + (3 if tested else 0)


def test_a_weak_stream_sampled_still_fails_and_a_good_one_passes() -> None:
    # bytes whose Hamming weights alternate light and heavy: the tuples of
    # weights fail on the sampled MiBs as on the whole
    good = pcg64_array(6 * MiB, seed=84)
    weak = good.copy()
    weak[::2] &= 0x0F
    for data, fails in ((good, False), (weak, True)):
        acc = _feed(TestSpec("hamming_patterns", {}, sample=(3, 0)).build(), data, [MiB + 5])
        smallest = min(r.pvalue for r in acc.finalize() if r.pvalue is not None)
        assert (smallest < 1e-20) == fails, smallest


SUITE = 'name = "s"\n[[tests]]\ntest = "hamming_patterns"\n'


@pytest.mark.parametrize("keys, message", [
    ("sample_every = 1\n", "sample_every must be a whole number from 2 to 1024, not 1"),
    ("sample_every = 2.5\n", "sample_every must be a whole number"),
    ("sample_every = 4096\n", "from 2 to 1024"),
    ("sample_dense_mib = 4\n", "sample_every must be a whole number from 2 to 1024, not None"),
    ("sample_every = 2\nsample_dense_mib = -1\n", "sample_dense_mib must be a whole number from 0"),
    ("sample_every = 2\nsample_dense_mib = true\n", "sample_dense_mib must be a whole number"),
])
def test_a_suite_file_refuses_a_bad_sampling_in_one_line(keys: str, message: str) -> None:
    with pytest.raises(SuiteError, match=message) as caught:
        parse_suite((SUITE + keys).encode(), "s.toml")
    assert "\n" not in str(caught.value) and "entry 1 (hamming_patterns)" in str(caught.value)


def test_a_suite_file_refuses_to_sample_a_test_whose_blocks_exceed_a_segment() -> None:
    text = 'name = "s"\n[[tests]]\ntest = "binary_rank"\nmin_size = 128\nmax_size = 8192\nsample_every = 2\n'
    with pytest.raises(SuiteError, match="blocks divide 1 MiB"):
        parse_suite(text.encode(), "s.toml")


def test_a_sampled_entry_survives_its_json_forms() -> None:
    suite = parse_suite((SUITE + "sample_every = 4\nsample_dense_mib = 64\nfold_word_bits = 32\nfold_low_bits = 8\n")
                        .encode(), "s.toml")
    spec = suite.tests[0]
    assert spec.sample == (4, 64) and spec.fold == (32, 8)
    assert spec_from_json(spec.to_json()).sample == (4, 64)
    again = suite_from_json(suite_to_json(suite))
    assert again.tests[0].sample == (4, 64)
    acc = again.build()[0]
    assert isinstance(acc, SampledTest) and acc.every == 4 and acc.dense_bytes == 64 * MiB


def test_entries_that_sample_and_fold_alike_share_one_fold_with_the_results_of_each_alone() -> None:
    from randqa.battery._folding import share_folds

    data = pcg64_array(5 * MiB + 3, seed=85)
    specs = [TestSpec("hamming_patterns", {}, fold=(32, 1), sample=(2, 1)),
             TestSpec("fpf", {"bit_order": "msb"}, fold=(32, 1), sample=(2, 1)),
             TestSpec("fpf", {"bit_order": "msb"}, fold=(32, 1), sample=(3, 1)),  # samples other bytes
             TestSpec("fpf", {"bit_order": "msb"}, fold=(32, 1))]
    alone = [summary(_feed(spec.build(), data, [MiB + 7, 3 * MiB]).finalize()) for spec in specs]
    together = [spec.build() for spec in specs]
    share_folds(together)
    assert together[0].inner.memo is together[1].inner.memo is not None
    assert together[2].inner.memo is None and together[3].memo is None
    bounds = [0, MiB + 7, 3 * MiB, len(data)]
    for a, b in zip(bounds, bounds[1:]):  # as a suite feeds them: each piece to every entry
        for acc in together:
            acc.update(data[a:b])
    assert [summary(acc.finalize()) for acc in together] == alone
