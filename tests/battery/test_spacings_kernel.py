"""The birthday-spacings kernel (randqa/battery/_spacings.c) against a plain
numpy count of repeated spacings and against its two-radix-sort reference
(birthday_collisions), on inputs that take each of its paths:
bucketed points with few or many per bucket, a bucket too full (radix
fallback), spacings that mostly repeat (sorted instead of filtered), zero
spacings, 64-bit points, tiny blocks, and the accumulator cut into chunks."""

from __future__ import annotations

import numpy as np
import pytest

from randqa.battery import _spacings
from randqa.battery.birthday_spacings import BirthdaySpacings

rng = np.random.default_rng(20240611)


def repeated_spacings_reference(data: bytes, points: int, word_bytes: int, bits: int, dims: int) -> list[int]:
    """Per complete block: sort the points, take the circular spacings, count
    the spacings equal to their predecessor once sorted (Knuth 3.3.2 J)."""
    dtype = {1: "u1", 2: "<u2", 4: "<u4", 8: "<u8"}[word_bytes]
    whole = len(data) // word_bytes * word_bytes
    words = np.frombuffer(data[:whole], dtype=dtype).astype(np.uint64) >> np.uint64(8 * word_bytes - bits)
    per_block = points * dims
    words = words[: len(words) // per_block * per_block].reshape(-1, points, dims)
    keys = np.zeros(words.shape[:2], dtype=np.uint64)
    for d in range(dims):  # the first word of a point is its most significant part
        keys = (keys << np.uint64(bits if bits < 64 else 0)) | words[:, :, d]
    cells_mask = np.uint64((1 << (bits * dims)) - 1) if bits * dims < 64 else np.uint64(2**64 - 1)
    s = np.sort(keys, axis=1)
    wrap = (s[:, 0] - s[:, -1]) & cells_mask
    spacings = np.sort(np.concatenate([np.diff(s, axis=1), wrap[:, None]], axis=1), axis=1)
    return (spacings[:, 1:] == spacings[:, :-1]).sum(axis=1).tolist()


def kernel(data: bytes, points: int, word_bytes: int, bits: int, dims: int = 1) -> list[int]:
    counts = np.empty(len(data) // (points * word_bytes * dims), dtype=np.int64)
    _spacings.spacing_collisions(data, points, word_bytes, bits, dims, counts)
    return counts.tolist()


def u32(values: np.ndarray) -> bytes:
    return values.astype("<u4").tobytes()


N = 4096
SAMPLES = {
    "random": rng.bytes(N * 8 * 12),
    # top bits confined to 1/8 of the buckets: about 16 points per bucket, many odd-even rounds
    "crowded": u32(rng.integers(0, 1 << 29, size=N * 6)),
    # 128 points per bucket: too many, radix-sorted
    "very crowded": u32(rng.integers(0, 1 << 26, size=N * 4)),
    # every spacing equal: nearly all spacings pass both filters, sorted instead
    "lattice": u32(np.arange(N * 4) * 65536 + 12345),
    # a lattice with a few random points: repeated spacings of several values
    "lattice plus noise": u32(np.where(rng.random(N * 4) < 0.05, rng.integers(0, 2**32, size=N * 4), np.arange(N * 4) * 1048576)),
    # repeated points: zero spacings
    "few values": rng.integers(0, 4, size=N * 8 * 3, dtype=np.uint8).tobytes(),
    "zeros": bytes(N * 8 * 2),
}


@pytest.mark.parametrize("sample", SAMPLES)
@pytest.mark.parametrize("word_bytes, bits, dims, points", [
    (4, 32, 1, 4096), (4, 24, 1, 4096), (4, 13, 1, 4096), (4, 9, 1, 512), (8, 64, 1, 4096), (8, 40, 1, 4096),
    (2, 16, 1, 4096), (1, 8, 1, 64), (1, 8, 3, 512), (4, 9, 7, 1024), (2, 16, 3, 4096), (4, 32, 2, 2048),
    (4, 32, 1, 2), (4, 32, 1, 3), (8, 64, 1, 5), (4, 32, 1, 1000),
])
def test_repeated_spacings_match_numpy(sample, word_bytes, bits, dims, points):
    data = SAMPLES[sample]
    expected = repeated_spacings_reference(data, points, word_bytes, bits, dims)
    assert kernel(data, points, word_bytes, bits, dims) == expected
    assert _spacings.birthday_collisions(data, points, word_bytes, bits, dims) == expected


def test_many_random_blocks_match_the_radix_sorts():
    # 4096 blocks: rare events (a bucket of 10, a spacing repeated 3 times) happen
    data = rng.bytes(N * 4 * 4096)
    fast = kernel(data, N, 4, 32)
    assert fast == _spacings.birthday_collisions(data, N, 4, 32, 1)
    assert abs(np.mean(fast) - 3.9946) < 0.15  # mu for 4096 32-bit points


LARGE = 100_000  # points per block over 65,536: wide points take the spread-sort path


def u64(values: np.ndarray) -> bytes:
    return values.astype("<u8").tobytes()


LARGE_SAMPLES = {
    "random": rng.bytes(LARGE * 8 * 2),
    # every point in one first-level bucket (more than it may hold): radix sorts
    "one bucket": u64(rng.integers(0, 1 << 52, size=LARGE * 2, dtype=np.uint64)),
    # spread over the first-level buckets (top 5 bits here) but two values in
    # the next 12: a bucket's slots overfull, so each bucket is radix-sorted
    "crowded slots": u64(rng.integers(0, 32, size=LARGE * 2, dtype=np.uint64) << np.uint64(59)
                         | rng.integers(0, 2, size=LARGE * 2, dtype=np.uint64) << np.uint64(50)
                         | rng.integers(0, 1 << 47, size=LARGE * 2, dtype=np.uint64)),
    # every spacing equal: they all land in one spacing bucket
    "lattice": u64(np.arange(LARGE * 2, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15 >> 20)),
    # a lattice with random points: spacings of a few values, repeated many times
    "lattice plus noise": u64(np.where(rng.random(LARGE * 2) < 0.3, rng.integers(0, 2**63, size=LARGE * 2),
                                       np.arange(LARGE * 2) * (1 << 40))),
    "few values": u64(rng.integers(0, 5, size=LARGE * 2, dtype=np.uint64) << np.uint64(61)),
}


@pytest.mark.parametrize("sample", LARGE_SAMPLES)
@pytest.mark.parametrize("word_bytes, bits, dims, points", [
    (8, 64, 1, LARGE), (8, 48, 1, LARGE), (8, 64, 1, LARGE - 3), (4, 24, 2, LARGE // 2), (8, 36, 1, 70_001)])
def test_large_blocks_of_wide_points_match_numpy(sample, word_bytes, bits, dims, points):
    data = LARGE_SAMPLES[sample]
    expected = repeated_spacings_reference(data, points, word_bytes, bits, dims)
    assert kernel(data, points, word_bytes, bits, dims) == expected


def test_unaligned_and_shifted_words():
    data = rng.bytes(N * 4 * 3 + 1)
    shifted = data[1:]  # a bytes object starting one byte later: words read unaligned
    view = np.frombuffer(data, dtype=np.uint8)[1:]
    for bits in (32, 20):
        expected = repeated_spacings_reference(shifted, N, 4, bits, 1)
        assert kernel(view, N, 4, bits) == expected


def test_accumulator_results_do_not_depend_on_chunking():
    data = np.frombuffer(rng.bytes(N * 4 * 40 + 777), dtype=np.uint8)
    whole = BirthdaySpacings()
    whole.update(data)
    expected = sum(repeated_spacings_reference(data.tobytes(), N, 4, 32, 1))
    assert (whole.blocks, whole.collisions) == (40, expected)
    for cuts in ([1], [16383, 16385], [5000, 70000, 70001, 300000], list(range(9999, len(data), 9999))):
        acc = BirthdaySpacings()
        bounds = [0, *cuts, len(data)]
        for lo, hi in zip(bounds, bounds[1:]):
            acc.update(data[lo:hi])
        assert (acc.blocks, acc.collisions) == (whole.blocks, whole.collisions)
    parts = BirthdaySpacings()
    for task in parts.update_tasks(data, 3):  # --jobs: parts of one chunk counted apart
        task()
    assert (parts.blocks, parts.collisions) == (whole.blocks, whole.collisions)


def test_kernel_refuses_bad_input():
    data = rng.bytes(N * 4 * 2)
    with pytest.raises(ValueError, match="one per complete block"):
        _spacings.spacing_collisions(data, N, 4, 32, 1, np.empty(3, dtype=np.int64))
    with pytest.raises(ValueError, match="one per complete block"):
        _spacings.spacing_collisions(data, N, 4, 32, 1, np.empty(2, dtype=np.int32))
    with pytest.raises(ValueError, match="invalid birthday spacings"):
        _spacings.spacing_collisions(data, N, 3, 24, 1, np.empty(2, dtype=np.int64))
    with pytest.raises(ValueError, match="invalid birthday spacings"):
        _spacings.spacing_collisions(data, 1, 4, 32, 1, np.empty(2, dtype=np.int64))
    with pytest.raises(ValueError, match="invalid birthday spacings"):
        _spacings.spacing_collisions(data, N, 4, 32, 3, np.empty(0, dtype=np.int64))
    empty = np.empty(0, dtype=np.int64)
    _spacings.spacing_collisions(data[:100], N, 4, 32, 1, empty)  # no complete block: nothing to write
