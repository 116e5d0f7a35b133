"""Suite entries that share a statistic (randqa/battery/_shared.py, wired
by randqa/battery/_sharing.py) give
exactly the results they give counting on their own: over any chunking,
with a bit stream's final bits, merged as lists, pickled as a list, with
threads, and folded, whether they share the byte-pair table or the smaller
byte counts; and a list pulled apart refuses to finalise."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import numpy as np
import pytest

from randqa.battery import _counts, base
from randqa.battery._shared import ByteCounts, BytePairs, FoldedStatistic
from randqa.battery._sharing import declared_statistic, share_statistics
from randqa.battery.suites import load_suite, suite_from_document
from randqa.engine import feed
from randqa.sources.streams import ByteStream

rng = np.random.default_rng(2024)

#: the entries that need no more than ByteCounts
BYTE_COUNT_ENTRIES = [
    {"test": "frequency"},
    {"test": "runs"},
    {"test": "chi_square", "bits": 8},
    {"test": "serial_correlation", "lags": [1]},
]


def folded(word_bits: int, low_bits: int, *entries: dict) -> list[dict]:
    """``entries`` read through one folding."""
    return [{**entry, "fold_word_bits": word_bits, "fold_low_bits": low_bits} for entry in entries]


PAIR_SUITE = {"name": "pairs", "tests": [
    *BYTE_COUNT_ENTRIES,
    {"test": "chi_square", "bits": 16},
    {"test": "serial_correlation", "lags": [1, 2]},
    {"test": "digraph"},
    *({"test": "overlapping_serial", "m": m} for m in (8, 3, 12)),
    # same folding: one fold and one pair table for the three
    *folded(32, 8, {"test": "digraph"}, {"test": "overlapping_serial", "m": 8}, {"test": "frequency"}),
    # another folding, alone: counts on its own
    *folded(8, 1, {"test": "overlapping_serial", "m": 8}),
]}

#: only tests that need no more than ByteCounts: they share that, not the pair table
COUNT_SUITE = {"name": "counts", "tests": [
    *BYTE_COUNT_ENTRIES,
    *folded(16, 4, {"test": "runs"}, {"test": "chi_square"}),
]}

SUITES = {"pairs": PAIR_SUITE, "counts": COUNT_SUITE}


def pair_suite():
    return suite_from_document(PAIR_SUITE, "pairs.toml")


def unshared(suite):
    return [spec.build() for spec in suite.tests]


def results_of(accumulators):
    return [(r.name, r.statistic, r.pvalue, r.pvalue_low, r.verdict, r.details)
            for acc in accumulators for r in acc.finalize()]


def feed_in_pieces(accumulators, data: np.ndarray, cuts: list[int], tail: np.ndarray | None = None):
    bounds = [0, *cuts, len(data)]
    for lo, hi in zip(bounds, bounds[1:]):
        for acc in accumulators:
            acc.update(data[lo:hi])
    if tail is not None:
        for acc in accumulators:
            acc.update_tail_bits(tail)
    return accumulators


def lcg_bytes(n: int) -> np.ndarray:
    x = (np.arange(n, dtype=np.uint64) * 1103515245 + 12345) & 0xFFFFFFFF
    return (x >> np.uint64(16)).astype(np.uint8)


SAMPLES = {
    "random": rng.integers(0, 256, size=300_007, dtype=np.uint8),
    "lcg": lcg_bytes(200_003),
    "zeros": np.zeros(70_001, dtype=np.uint8),
    "short": rng.integers(0, 256, size=37, dtype=np.uint8),
    "three bytes": np.array([0x80, 0x01, 0xFF], dtype=np.uint8),
    "one byte": np.array([0xA5], dtype=np.uint8),
}


def test_the_first_entry_of_each_group_owns_the_statistic():
    accs = pair_suite().build()
    names = [repr(a) for a in accs]
    shared = {i: a.shared for i, a in enumerate(accs) if a.shared is not None}
    # byte pairs: frequency, runs, chi_square 8, serial_correlation [1], digraph, overlapping_serial m=8 and m=3
    assert sorted(shared) == [0, 1, 2, 3, 6, 7, 8, 10, 11, 12], names
    pairs = {shared[i] for i in (0, 1, 2, 3, 6, 7, 8)}
    folded = {shared[i] for i in (10, 11, 12)}
    assert len(pairs) == 1 and isinstance(next(iter(pairs)), BytePairs)
    assert len(folded) == 1 and isinstance(next(iter(folded)), FoldedStatistic)
    owners = [i for i in shared if accs[i]._feeds_shared]
    assert owners == [0, 10]
    # the inner tests of the folded entries finalise from the folded pair table, fed by the fold
    assert accs[11].inner.shared is next(iter(folded)).inner and not accs[11].inner._feeds_shared


def test_the_standard_suite_fills_one_pair_table_for_six_entries():
    accs = load_suite("standard").build()
    tables = {id(a.shared) for a in accs if isinstance(getattr(a, "shared", None), BytePairs)}
    sharing = [a.name for a in accs if isinstance(getattr(a, "shared", None), BytePairs)]
    assert len(tables) == 1
    assert sharing == ["frequency", "runs", "chi_square", "serial_correlation", "digraph", "overlapping_serial"]


def test_tests_that_need_less_share_byte_counts():
    for accs in (suite_from_document(COUNT_SUITE, "c.toml").build(), load_suite("quick").build()):
        statistics = {id(a.shared): a.shared for a in accs if getattr(a, "shared", None) is not None}
        kinds = sorted(type(s).__name__ for s in statistics.values())
        assert kinds == (["ByteCounts", "FoldedStatistic"] if len(accs) == 6 else ["ByteCounts"])
        assert [a._feeds_shared for a in accs if getattr(a, "shared", None) is not None][:4] == [True, False, False, False]
    folded = suite_from_document(COUNT_SUITE, "c.toml").build()[4].shared
    assert isinstance(folded.inner, ByteCounts)


@pytest.mark.parametrize("sample", SAMPLES)
def test_byte_counts_equal_what_the_pair_table_gives(sample):
    data = SAMPLES[sample]
    counts, pairs = ByteCounts(), BytePairs()
    for lo, hi in [(0, 1), (1, 2), (2, 3000), (3000, len(data))]:
        counts.update(data[lo:hi])
        pairs.update(data[lo:hi])
    assert np.array_equal(counts.histogram(), pairs.histogram())
    assert counts.ones_and_transitions() == pairs.ones_and_transitions()
    assert counts.lag1_products() == pairs.lag1_products()
    assert (counts.first_byte, counts.last_byte) == (pairs.first_byte, pairs.last_byte)


def test_byte_counts_kernel_equals_python():
    rng_local = np.random.default_rng(8)
    for n in (1, 2, 16, 17, 18, 33, 16383, 16384, 16385, 40_000):
        data = rng_local.integers(0, 256, size=n, dtype=np.uint8)
        hist = np.zeros(256, dtype=np.int64)
        xs = [200, *map(int, data)]
        expected = (sum(a * b for a, b in zip(xs, xs[1:])), sum((a & 1) != (b >> 7) for a, b in zip(xs, xs[1:])))
        assert _counts.byte_counts(data, 200, hist) == expected
        assert np.array_equal(hist, np.bincount(data, minlength=256))


@pytest.mark.parametrize("suite_name", SUITES)
@pytest.mark.parametrize("sample", SAMPLES)
@pytest.mark.parametrize("tail", [None, np.array([1, 0, 1, 1, 0], dtype=np.uint8)])
def test_shared_results_equal_unshared_ones(suite_name, sample, tail):
    data = SAMPLES[sample]
    suite = suite_from_document(SUITES[suite_name], "s.toml")
    alone = feed_in_pieces(unshared(suite), data, [], tail)
    cuts = sorted({c for c in (1, 2, 5, 4099, 70_000) if c < len(data)})
    together = feed_in_pieces(suite.build(), data, cuts, tail)
    assert results_of(together) == results_of(alone)


def test_a_bit_stream_shorter_than_a_byte():
    suite = pair_suite()
    tail = np.array([1, 1, 0], dtype=np.uint8)
    together = feed_in_pieces(suite.build(), np.zeros(0, dtype=np.uint8), [], tail)
    assert results_of(together) == results_of(feed_in_pieces(unshared(suite), np.zeros(0, dtype=np.uint8), [], tail))


@pytest.mark.parametrize("suite_name", SUITES)
@pytest.mark.parametrize("split", [8, 16, 65_536, 299_992])  # whole words of every folding
def test_lists_merged_element_by_element_equal_the_whole(suite_name, split):
    data = SAMPLES["random"]
    suite = suite_from_document(SUITES[suite_name], "s.toml")
    whole = feed_in_pieces(suite.build(), data, [])
    left = feed_in_pieces(suite.build(), data[:split], [split // 3])
    right = feed_in_pieces(suite.build(), data[split:], [7])
    for a, b in zip(left, right):
        a.merge(b)
    assert results_of(left) == results_of(whole)


def test_an_empty_right_part_merges_too():
    data = SAMPLES["lcg"][:200_000]  # whole words of every folding
    suite = pair_suite()
    left = feed_in_pieces(suite.build(), data, [1000])
    for a, b in zip(left, suite.build()):
        a.merge(b)
    assert results_of(left) == results_of(feed_in_pieces(unshared(suite), data, []))


def test_a_list_pickled_as_one_object_keeps_sharing():
    data = SAMPLES["random"]
    suite = pair_suite()
    accs = feed_in_pieces(suite.build(), data[:100_000], [])
    restored = pickle.loads(pickle.dumps(accs))
    assert restored[1].shared is restored[0].shared
    feed_in_pieces(restored, data[100_000:], [])
    assert results_of(restored) == results_of(feed_in_pieces(unshared(suite), data, []))


def test_a_list_pulled_apart_refuses_to_finalise():
    data = SAMPLES["random"]
    suite = pair_suite()
    left = [pickle.loads(pickle.dumps(acc)) for acc in feed_in_pieces(suite.build(), data[:1000], [])]
    right = [pickle.loads(pickle.dumps(acc)) for acc in feed_in_pieces(suite.build(), data[1000:], [])]
    for a, b in zip(left, right):
        a.merge(b)
    left[0].finalize()  # the owner merged its own copy
    with pytest.raises(RuntimeError, match="one list"):
        left[1].finalize()
    with pytest.raises(RuntimeError, match="one list"):
        left[11].finalize()


def test_shared_and_unshared_parts_do_not_merge():
    data = SAMPLES["short"]
    suite = pair_suite()
    shared = feed_in_pieces(suite.build(), data, [])
    alone = feed_in_pieces(unshared(suite), data, [])
    with pytest.raises(ValueError, match="shares a statistic"):
        shared[1].merge(alone[1])


def test_only_a_fresh_accumulator_starts_sharing():
    accs = unshared(pair_suite())
    accs[1].update(SAMPLES["short"])
    with pytest.raises(ValueError, match="fresh"):
        share_statistics(accs)


def test_a_test_that_reads_no_statistic_is_left_alone():
    birthday = load_suite("quick").tests[-1].build()
    assert declared_statistic(birthday) is None
    share_statistics([birthday, load_suite("quick").tests[-1].build()])
    assert getattr(birthday, "shared", None) is None


def test_a_statistic_a_test_cannot_read_is_refused():
    chi16 = suite_from_document(PAIR_SUITE, "pairs.toml").tests[4].build()
    assert chi16.bits == 16 and declared_statistic(chi16) is None
    with pytest.raises(ValueError, match="cannot finalise from"):
        chi16.use_shared_statistic(BytePairs(), owner=True)


@pytest.mark.parametrize("jobs", [1, 2])
def test_threads_give_the_same_results(jobs, tmp_path):
    data = rng.integers(0, 256, size=(3 << 20) + 5, dtype=np.uint8)
    path = tmp_path / "data.bin"
    path.write_bytes(data.tobytes())
    suite = load_suite("standard")
    accs = suite.build()
    with ByteStream(str(path)) as source:
        feed(source, accs, chunk_bytes=1 << 20, jobs=jobs)
    assert results_of(accs) == results_of(feed_in_pieces(unshared(suite), data, []))


def test_the_accumulator_protocol_knows_nothing_of_sharing():
    # sharing is wired from outside (_sharing.py): base imports neither module
    imported = [node.module for node in ast.walk(ast.parse(Path(base.__file__).read_text()))
                if isinstance(node, ast.ImportFrom)]
    assert not [m for m in imported if m and m.startswith("randqa.battery._shar")], imported
    assert not hasattr(base.Accumulator, "shared_statistic") and not hasattr(base.Accumulator, "use_shared_statistic")
