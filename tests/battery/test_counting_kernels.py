"""The counting kernels (_counts.c: bit counts, byte and 16-bit histograms,
lag products; _spacings.c: birthday collisions) against plain numpy
computations of the same quantity, and their refusal of wrong output arrays.
"""

from __future__ import annotations

import numpy as np
import pytest

from randqa.battery import _counts, _spacings


rng = np.random.default_rng(11)
SAMPLES = {
    "random": rng.bytes(4096 * 8 * 20),
    "zeros": bytes(4096 * 8 * 2),
    "lattice": (np.arange(4096 * 16, dtype="<u4") * 65536).tobytes(),
    "few-values": rng.integers(0, 4, size=4096 * 8 * 3, dtype=np.uint8).tobytes(),
}


def birthday_reference(data: bytes, points: int, word_bytes: int, bits: int) -> list[int]:
    dtype = {1: "u1", 2: "<u2", 4: "<u4", 8: "<u8"}[word_bytes]
    words = np.frombuffer(data, dtype=dtype).astype(np.uint64) >> np.uint64(8 * word_bytes - bits)
    blocks = words[: len(words) // points * points].reshape(-1, points)
    s = np.sort(blocks, axis=1)
    wrap = s[:, 0] - s[:, -1]
    if bits < 64:
        wrap &= np.uint64((1 << bits) - 1)
    spacings = np.sort(np.concatenate([np.diff(s, axis=1), wrap[:, None]], axis=1), axis=1)
    return (spacings[:, 1:] == spacings[:, :-1]).sum(axis=1).tolist()


@pytest.mark.parametrize("sample", SAMPLES)
@pytest.mark.parametrize("word_bytes, bits", [(4, 32), (4, 24), (4, 13), (8, 64), (8, 40), (2, 16), (1, 8)])
def test_birthday_collisions_match_numpy(sample, word_bytes, bits):
    data = SAMPLES[sample]
    points = 4096 if word_bytes > 1 else 64
    expected = birthday_reference(data, points, word_bytes, bits)
    assert _spacings.birthday_collisions(data, points, word_bytes, bits, 1) == expected


def test_bit_counts_and_histograms_match_numpy():
    data = rng.bytes(100_003)
    bits = np.unpackbits(np.frombuffer(data, dtype=np.uint8))  # MSB first
    ones, transitions = _counts.bit_counts(data)
    assert ones == int(bits.sum())
    assert transitions == int(np.count_nonzero(np.diff(bits)))
    counts = np.zeros(256, dtype=np.int64)
    _counts.byte_histogram(data, counts)
    assert counts.tolist() == np.bincount(np.frombuffer(data, dtype=np.uint8), minlength=256).tolist()
    words = np.zeros(65536, dtype=np.int64)
    _counts.word16_histogram(data[:100_002], words)
    assert words.tolist() == np.bincount(np.frombuffer(data[:100_002], dtype="<u2"), minlength=65536).tolist()
    arr = np.frombuffer(data, dtype=np.uint8).astype(np.int64)
    for lag in (1, 2, 17):
        assert _counts.lag_product_sum(data, lag) == int(np.sum(arr[:-lag] * arr[lag:]))


def test_kernels_refuse_wrong_output_arrays():
    with pytest.raises(ValueError):
        _counts.byte_histogram(b"abc", np.zeros(255, dtype=np.int64))
    with pytest.raises(ValueError):
        _counts.byte_histogram(b"abc", np.zeros(256, dtype=np.int32))
    with pytest.raises(ValueError):
        _spacings.birthday_collisions(b"", 4096, 3, 24, 1)
