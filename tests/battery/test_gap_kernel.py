"""gap's kernel (randqa/battery/_counts.c gap_scan) returns what a plain
reading of its contract gives, on each path: hit masks of bytes (SSE2), of
32-bit words (SSE2) and of other words; gaps by 8-word pieces when hits are
common, hit by hit otherwise; across calls that carry the open gap."""

from __future__ import annotations

import numpy as np
import pytest

from randqa.battery import _counts

rng = np.random.default_rng(91)


def reference_scan(data: np.ndarray, word_bytes: int, lo: int, hi: int, top: int, open_: int):
    """(first gap closed or -1, open after, histogram increments) of one call."""
    words = len(data) // word_bytes
    values = [int.from_bytes(data[i * word_bytes:(i + 1) * word_bytes].tobytes(), "little") for i in range(words)]
    hist = np.zeros(top + 1, dtype=np.int64)
    first = -1
    for value in values:
        if lo <= value < hi:
            if first < 0:
                first = open_
            else:
                hist[min(open_, top)] += 1
            open_ = 0
        else:
            open_ += 1
    return first, open_, hist


CASES = [  # word_bytes, lo, hi (as fractions of the word range), max_gap
    (1, 0.0, 0.5, 8), (1, 0.25, 0.5, 3), (1, 0.0, 0.9, 20), (1, 0.5, 0.5 + 1 / 256, 8), (1, 0.0, 1 / 64, 100),
    (2, 0.1, 0.5, 5), (2, 0.0, 0.01, 30), (4, 0.0, 0.0625, 32), (4, 0.3, 1.0, 8), (4, 0.0, 0.6, 2),
    (8, 0.0, 0.3, 12), (8, 0.0, 0.05, 40),
]


@pytest.mark.parametrize("word_bytes, alpha, beta, max_gap", CASES)
def test_gap_scan_equals_the_contract(word_bytes, alpha, beta, max_gap):
    values = 2 ** (8 * word_bytes)
    lo, hi = int(alpha * values), max(int(beta * values), int(alpha * values) + 1)
    data = rng.integers(0, 256, size=word_bytes * 3001, dtype=np.uint8)
    words = len(data) // word_bytes
    for cuts in ([], [1, 64, 65, 200, 1000], sorted({int(c) for c in rng.integers(0, words, 5)})):
        open_ = 7
        for a, b in zip([0, *cuts], [*cuts, words]):
            part = data[a * word_bytes:b * word_bytes]
            hist = np.zeros(max_gap + 1, dtype=np.int64)
            got = _counts.gap_scan(part, word_bytes, lo, hi, hist, open_)
            first, open_after, expected = reference_scan(part, word_bytes, lo, hi, max_gap, open_)
            assert got == (first, open_after) and np.array_equal(hist, expected), (cuts, a, b)
            open_ = open_after


@pytest.mark.parametrize("word_bytes", [1, 4])
@pytest.mark.parametrize("fill", ["all hits", "no hits", "alternating"])
def test_gap_scan_on_extreme_data(word_bytes, fill):
    n = 64 * 9 + 5
    values = 2 ** (8 * word_bytes)
    lo, hi = 0, values // 2
    words = {"all hits": np.zeros(n), "no hits": np.full(n, values - 1),
             "alternating": np.where(np.arange(n) % 2, values - 1, 0)}[fill].astype(f"<u{word_bytes}")
    data = np.frombuffer(words.tobytes(), dtype=np.uint8)
    hist = np.zeros(9, dtype=np.int64)
    got = _counts.gap_scan(data, word_bytes, lo, hi, hist, 3)
    first, open_after, expected = reference_scan(data, word_bytes, lo, hi, 8, 3)
    assert got == (first, open_after) and np.array_equal(hist, expected)
