"""A test run on the low bits of each word (FoldedTest) gives the results of
the same test on the folded stream, under any chunking and across merges
at its alignment.
"""

from __future__ import annotations

import numpy as np

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
