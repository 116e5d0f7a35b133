"""A test run on the low bits of each word (FoldedTest) gives the results of
the same test on the folded stream, under any chunking and across merges
at its alignment.
"""

from __future__ import annotations

import numpy as np
import pytest

from accumulators import results_of, summary
from randqa.battery._folding import FoldedTest
from randqa.battery.digraph import Digraph
from reference_generators import folded_low_bits, pcg64_array


def test_folded_test_streams_and_merges_like_the_folded_stream() -> None:
    data = pcg64_array(300_000, seed=70)
    folded_bytes = np.frombuffer(folded_low_bits(data.tobytes(), 4, 4), dtype=np.uint8)
    direct = summary(results_of(Digraph(position_mod=3), folded_bytes))
    expected = [(name + "[low4/32]", *rest) for name, *rest in direct]
    assert summary(results_of(FoldedTest(Digraph(position_mod=3), word_bits=32, low_bits=4), data, [5, 1001, 77_777])) == expected
    left = FoldedTest(Digraph(position_mod=3), word_bits=32, low_bits=4)
    assert left.alignment == 24  # 6 words: whole output bytes and whole position classes
    split = 100_008
    left.update(data[:split])
    right = FoldedTest(Digraph(position_mod=3), word_bits=32, low_bits=4)
    right.update(data[split:])
    left.merge(right)
    assert summary(left.finalize()) == expected


def _folded_entries() -> list:
    from randqa.battery.binary_rank import BinaryRank
    from randqa.battery.fpf import Fpf
    from randqa.battery.mod3 import Mod3

    return [FoldedTest(Digraph(position_mod=0), word_bits=32, low_bits=8),
            FoldedTest(BinaryRank(min_size=128, max_size=256), word_bits=32, low_bits=8),
            FoldedTest(Fpf(), word_bits=32, low_bits=8),
            FoldedTest(Mod3(levels=3), word_bits=32, low_bits=8),
            FoldedTest(Digraph(position_mod=0), word_bits=32, low_bits=4)]


def _run(accumulators: list, data: np.ndarray, cuts: list[int]) -> list:
    bounds = [0, *cuts, len(data)]
    for a, b in zip(bounds, bounds[1:]):
        for acc in accumulators:
            acc.update(data[a:b])
    return [summary(acc.finalize()) for acc in accumulators]


def test_entries_that_fold_alike_fold_each_chunk_once_with_the_results_of_folding_alone(monkeypatch) -> None:
    import pickle

    import randqa.battery._folding as folding_module
    from randqa.battery._folding import share_folds

    data = pcg64_array(400_000, seed=71)
    cuts = [4, 100_003, 200_000, 333_331]  # a word split across chunks: the carry is part of the key
    alone = _run(_folded_entries(), data, cuts)
    calls = []
    real = folding_module.fold_low_bits
    monkeypatch.setattr(folding_module, "fold_low_bits", lambda *a: calls.append(a[1:3]) or real(*a))
    shared = _folded_entries()
    share_folds(shared)
    assert shared[0].memo is shared[3].memo and shared[4].memo is None  # 32/4 has one entry
    assert _run(shared, data, cuts) == alone
    # one fold per chunk at 32/8 (and one for the single 32/4 entry), not four
    assert calls.count((4, 8)) == len(cuts) + 1 and calls.count((4, 4)) == len(cuts) + 1
    # a copy (a checkpoint, a worker) goes on folding for its own entries
    half = _folded_entries()
    share_folds(half)
    for acc in half:
        acc.update(data[:200_000])
    copy = pickle.loads(pickle.dumps(half))
    assert copy[0].memo is copy[1].memo is not half[0].memo
    for acc in copy:
        acc.update(data[200_000:])
    assert [summary(acc.finalize()) for acc in copy] == alone


def test_a_suites_memory_holds_one_fold_per_folding_that_entries_share() -> None:
    from randqa.battery.suites import TestSpec, fold_memo_bytes

    specs = [TestSpec("digraph", {}, None, (32, 8)), TestSpec("fpf", {}, None, (32, 8)),
             TestSpec("digraph", {}, None, (32, 4)), TestSpec("digraph", {}, None, None)]
    assert fold_memo_bytes(specs, 4 << 20) == (1 << 20) + 1  # 32/8 only: the 32/4 entry folds alone


@pytest.mark.parametrize("word_bits, low_bits", [(8, 1), (16, 1), (32, 4), (64, 4), (64, 16)])
def test_a_test_that_reads_part_of_its_stream_gets_the_same_counts_from_a_fold_of_that_part(
        word_bits, low_bits, monkeypatch) -> None:
    import randqa.battery._folding as folding_module
    from randqa.battery.binary_rank import BinaryRank

    data = pcg64_array(1_200_000, seed=72)
    folded_bytes = np.frombuffer(folded_low_bits(data.tobytes(), word_bits // 8, low_bits), dtype=np.uint8)
    # small matrices, one in 16 ranked: several ranked and skipped stretches per chunk
    make = lambda: BinaryRank(min_size=64, max_size=256, every=16)  # noqa: E731
    direct = make()
    direct.update(folded_bytes)
    expected = [(name + f"[low{low_bits}/{word_bits}]", *rest) for name, *rest in summary(direct.finalize())]
    folded_in = []
    real = folding_module.fold_low_bits
    monkeypatch.setattr(folding_module, "fold_low_bits", lambda *a: folded_in.append(len(a[0])) or real(*a))
    # cuts inside words and inside a group of words: the fold's carry, then folding everything again
    acc = FoldedTest(make(), word_bits=word_bits, low_bits=low_bits)
    assert summary(results_of(acc, data, [3, 100_003, 400_000, 777_777])) == expected
    assert [int(c.sum()) for c in (s.counts for s in acc.inner.sides)] == \
        [int(c.sum()) for c in (s.counts for s in direct.sides)]
    # a part placed at its alignment and merged
    left, right = FoldedTest(make(), word_bits=word_bits, low_bits=low_bits), FoldedTest(make(), word_bits=word_bits, low_bits=low_bits)
    split = 600_000 // left.alignment * left.alignment
    left.update(data[:split])
    right.begin_at(split)
    right.update(data[split:])
    left.merge(right)
    assert summary(left.finalize()) == expected
    folded_in.clear()
    FoldedTest(make(), word_bits=word_bits, low_bits=low_bits).update(data)
    assert sum(folded_in) < len(data) // 4  # about a sixth: the ranked matrices, and the cut words
