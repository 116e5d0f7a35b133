"""birthday_spacings with ``every`` = k tests the first block of every k:
the same result as testing those blocks alone, whatever the chunking, the
merges (at the test's alignment) and the threads."""

from __future__ import annotations

import numpy as np
import pytest

from randqa.battery.birthday_spacings import BirthdaySpacings

rng = np.random.default_rng(33)
POINTS = 512  # 2 KiB blocks of 32-bit points
BLOCK = 4 * POINTS


def lattice_stream(blocks: int) -> np.ndarray:
    """Random blocks, with every third block made of LCG outputs (many repeated spacings)."""
    data = rng.integers(0, 256, size=blocks * BLOCK, dtype=np.uint8)
    lcg = (np.arange(POINTS, dtype=np.uint64) * 69069 + 1) & 0xFFFFFFFF
    for b in range(0, blocks, 3):
        data[b * BLOCK:(b + 1) * BLOCK] = np.frombuffer(lcg.astype("<u4").tobytes(), dtype=np.uint8)
    return data


def summary(acc):
    (r,) = acc.finalize()
    return r.statistic, r.pvalue, r.pvalue_low, r.details.get("blocks")


@pytest.mark.parametrize("every", [1, 2, 3, 5])
def test_every_k_equals_the_chosen_blocks_alone(every):
    data = lattice_stream(40)
    tail = rng.integers(0, 256, size=BLOCK - 7, dtype=np.uint8)  # an unfinished block at the end
    chosen = np.concatenate([data[b * BLOCK:(b + 1) * BLOCK] for b in range(0, 40, every)])
    alone = BirthdaySpacings(points=POINTS)
    alone.update(chosen)
    sampled = BirthdaySpacings(points=POINTS, every=every)
    for lo, hi in [(0, 1), (1, 3000), (3000, 9001), (9001, len(data))]:
        sampled.update(data[lo:hi])
    sampled.update(tail)
    assert summary(sampled)[:3] == summary(alone)[:3]
    assert summary(sampled)[3] == len(range(0, 40, every))


@pytest.mark.parametrize("every", [2, 3])
def test_merges_and_threads_keep_the_result(every):
    data = lattice_stream(36)
    whole = BirthdaySpacings(points=POINTS, every=every)
    whole.update(data)
    left, right = BirthdaySpacings(points=POINTS, every=every), BirthdaySpacings(points=POINTS, every=every)
    split = 2 * left.alignment
    left.update(data[:split])
    for task in right.update_tasks(data[split:], 3):
        task()
    left.merge(right)
    assert summary(left) == summary(whole)
    misaligned = BirthdaySpacings(points=POINTS, every=every)
    misaligned.update(data[:BLOCK])
    with pytest.raises(ValueError, match="boundary"):
        misaligned.merge(BirthdaySpacings(points=POINTS, every=every))


def test_every_must_be_a_positive_integer():
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="every"):
            BirthdaySpacings(every=bad)


def test_kernel_stride_skips_the_bytes_between_blocks():
    from randqa.battery import _spacings

    data = lattice_stream(11)
    for stride_blocks in (1, 2, 3):
        stride = stride_blocks * BLOCK
        picked = np.concatenate([data[b * BLOCK:(b + 1) * BLOCK] for b in range(0, 11, stride_blocks)])
        expected = np.empty(len(picked) // BLOCK, dtype=np.int64)
        _spacings.spacing_collisions(picked, POINTS, 4, 32, 1, expected)
        got = np.empty(len(expected), dtype=np.int64)
        _spacings.spacing_collisions(data[: (len(expected) - 1) * stride + BLOCK], POINTS, 4, 32, 1, got, stride)
        assert np.array_equal(got, expected)
    with pytest.raises(ValueError, match="stride"):
        _spacings.spacing_collisions(data, POINTS, 4, 32, 1, np.empty(11, dtype=np.int64), BLOCK - 4)
