"""gap16 (gjrand's rda16, SmokeRand's "[0 ... value] gaps with value
inside"): the counts per distance from a zero word equal a plain Python
count, a stream cut into parts placed anywhere merges into the one-pass
counts (words before a part's first zero, more than it keeps included),
and it catches the
additive lagged Fibonacci (19937, 9842) whose lowest output bit is not
linear (its top 32 bits, which PractRand passes to 2 TiB per SmokeRand)
at 64 MiB, where PCG64 passes."""

from __future__ import annotations

import numpy as np
import pytest

from accumulators import feed_in_pieces
from randqa.battery.gap16 import Gap16
from reference_generators import backend_bytes, pcg64_array

rng = np.random.default_rng(20240611)


def reference_counts(words: list[int], max_distance: int) -> tuple[np.ndarray, np.ndarray]:
    total, inside = np.zeros(max_distance, dtype=np.int64), np.zeros(max_distance, dtype=np.int64)
    zero, since = None, set()
    for n, x in enumerate(words):
        if x == 0:
            zero, since = n, set()
            continue
        if zero is not None and n - zero < max_distance:
            total[n - zero] += 1
            inside[n - zero] += x in since
        since.add(x)
    return total, inside


def small_alphabet(count: int) -> np.ndarray:
    # few values and many zeros; a stretch without zeros longer than max_distance
    words = rng.integers(0, 12, size=count, dtype=np.uint16)
    words[3000:3600] = rng.integers(1, 12, size=600, dtype=np.uint16)
    return words.astype("<u2")


def test_counts_equal_python():
    words = small_alphabet(20_000)
    acc = Gap16(max_distance=128)
    feed_in_pieces(acc, words.view(np.uint8), [1, 3, 2000, 7001, 7002])
    total, inside = reference_counts(words.tolist(), 128)
    assert np.array_equal(acc.total, total) and np.array_equal(acc.inside, inside)


def test_parts_placed_anywhere_merge_into_one_pass():
    data = small_alphabet(20_000).view(np.uint8)
    whole = Gap16(max_distance=128)
    whole.update(data)
    for cuts in ([2], [6002, 6010, 7200], list(range(998, len(data), 998)), [5000, 6000, 7000]):
        bounds = [0, *cuts, len(data)]
        merged = None
        for lo, hi in zip(bounds, bounds[1:]):
            part = Gap16(max_distance=128)
            part.begin_at(lo)
            part.update(data[lo:hi])
            sent = Gap16(max_distance=128)
            sent.begin_at(lo)
            sent.load_state(part.state())
            merged = sent if merged is None else (merged.merge(sent) or merged)
        assert np.array_equal(merged.total, whole.total) and np.array_equal(merged.inside, whole.inside), cuts
        assert merged.finalize()[0].to_json() == whole.finalize()[0].to_json()


def test_catches_the_top_32_bits_of_a_lagged_fibonacci_at_64_mib_and_passes_pcg64():
    acc = Gap16()
    acc.update(backend_bytes("lfib19937-top32", 1, 64 << 20))
    (result,) = acc.finalize()
    assert result.pvalue < 1e-9 and result.details["distance"] == 2 * 19937  # two 16-bit words per output
    good = Gap16()
    good.update(pcg64_array(64 << 20, seed=1))
    assert good.finalize()[0].pvalue > 1e-3


def test_a_stream_without_zero_words_is_insufficient():
    acc = Gap16()
    acc.update(np.full(1 << 16, 7, dtype=np.uint8))
    assert acc.finalize()[0].verdict == "insufficient"
    with pytest.raises(ValueError):
        Gap16(max_distance=10)
