"""bcfn's kernel (randqa/battery/_counts.c hamming_tuple_scan) counts the
overlapping tuples of block-weight letters as a plain numpy count does, on
every path: 16 bytes at a time for bytes with 4-letter tuples, 8 letters at
a time, one at a time; across calls; on data whose letters are extreme."""

from __future__ import annotations

import numpy as np
import pytest

from randqa.battery import _counts
from randqa.battery.bcfn import weight_letters

rng = np.random.default_rng(77)

DATA = {
    "random": rng.integers(0, 256, size=50_021, dtype=np.uint8),
    "zeros": np.zeros(4099, dtype=np.uint8),
    "ones": np.full(4099, 0xFF, dtype=np.uint8),
    "weights 0 and 8": rng.choice(np.array([0, 255], dtype=np.uint8), size=7001),
    "short": rng.integers(0, 256, size=21, dtype=np.uint8),
}


def reference_counts(data: np.ndarray, block_bytes: int, table: np.ndarray, letter_bits: int, t: int) -> np.ndarray:
    blocks = len(data) // block_bytes
    weights = np.unpackbits(data[: blocks * block_bytes]).reshape(blocks, 8 * block_bytes).sum(axis=1)
    letters = table[weights].astype(np.int64)
    counts = np.zeros(1 << (letter_bits * t), dtype=np.int64)
    if blocks >= t:
        index = np.zeros(blocks - t + 1, dtype=np.int64)
        for k in range(t):
            index = (index << letter_bits) | letters[k : blocks - t + 1 + k]
        np.add.at(counts, index, 1)
    return counts


@pytest.mark.parametrize("data_name", DATA)
@pytest.mark.parametrize("block_bytes, letters, t", [(1, 5, 4), (1, 9, 4), (1, 4, 3), (1, 3, 8), (1, 16, 5),
                                                     (2, 5, 4), (4, 5, 4), (4, 8, 6), (8, 5, 4), (32, 5, 4), (3, 6, 2)])
def test_tuple_counts_equal_numpy(data_name, block_bytes, letters, t):
    data = DATA[data_name]
    table, probs = weight_letters(8 * block_bytes, letters)
    letter_bits = max(1, (len(probs) - 1).bit_length())
    expected = reference_counts(data, block_bytes, table, letter_bits, t)
    blocks = len(data) // block_bytes
    for cuts in ([], [1, 2, 3, 17, 33, 2000], sorted({int(c) for c in rng.integers(0, blocks + 1, 4)})):
        counts = np.zeros(len(expected), dtype=np.int64)
        index, have = 0, 0
        for lo, hi in zip([0, *cuts], [*cuts, blocks]):
            run = data[lo * block_bytes : hi * block_bytes]
            index, have = _counts.hamming_tuple_scan(run, block_bytes, table.tobytes(), letter_bits, t, counts, index, have)
        assert np.array_equal(counts, expected), cuts


@pytest.mark.parametrize("letters, t, size", [(4, 8, 3_300_000), (5, 4, 60_000), (16, 4, 900_000), (2, 16, 2_300_000)])
def test_long_calls_count_as_numpy(letters, t, size):
    # calls long enough for the byte level's tables: (t + 1)-letter words at
    # every second byte in bit fields (4 letters, tuples of 8; 2 letters,
    # tuples of 16) or numbered base 5 (5 letters, tuples of 4), or two
    # 32-bit tables (9 letters, tuples of 4); the second call starts from the
    # first's letters
    data = np.random.default_rng(t).integers(0, 256, size=size, dtype=np.uint8)
    table, probs = weight_letters(8, letters)
    letter_bits = max(1, (len(probs) - 1).bit_length())
    counts = np.zeros(1 << (letter_bits * t), dtype=np.int64)
    index, have = 0, 0
    for run in (data[: size // 3], data[size // 3 :]):
        index, have = _counts.hamming_tuple_scan(run, 1, table.tobytes(), letter_bits, t, counts, index, have)
    assert np.array_equal(counts, reference_counts(data, 1, table, letter_bits, t))
