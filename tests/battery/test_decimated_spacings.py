"""decimated_spacings (SmokeRand's bspace4_8d_dec): the repeated spacings
of each field equal a plain numpy count on the kept words; the stream may be
cut and merged anywhere a part is placed, or at the phase when it is not;
a block is needed before anything is judged.  It catches the truncated
128-bit LCG in tests/suites/test_frontier.py."""

from __future__ import annotations

import numpy as np
import pytest

from accumulators import feed_in_pieces
from randqa.battery.decimated_spacings import DecimatedSpacings, reversal

rng = np.random.default_rng(20240611)
SMALL = dict(step=3, points=32, bits_per_word=5, dims=4)  # 20-bit points: n/k = 2^-15, lambda = 0.0078


def repeats(keys: np.ndarray) -> int:
    s = np.sort(keys)
    spacings = np.sort(np.append(np.diff(s), s[:1] - s[-1:]))  # the wrap-around spacing, modulo 2^64
    return int((spacings[1:] == spacings[:-1]).sum())


def reference_counts(data: bytes, word_bytes: int, step: int, points: int, bits_per_word: int, dims: int) -> list[int]:
    words = np.frombuffer(data[: len(data) // word_bytes * word_bytes], dtype=f"<u{word_bytes}").astype(np.uint64)
    kept = words[::step]
    per_block = points * dims
    kept = kept[: len(kept) // per_block * per_block].reshape(-1, points, dims)
    high = kept >> np.uint64(8 * word_bytes - bits_per_word)
    flipped = sum(((high >> np.uint64(b)) & np.uint64(1)) << np.uint64(bits_per_word - 1 - b) for b in range(bits_per_word))
    fields = (kept & np.uint64((1 << bits_per_word) - 1), high, flipped)
    cell_bits = bits_per_word * dims
    totals = []
    for values in fields:
        keys = sum(values[:, :, d] << np.uint64(bits_per_word * (dims - 1 - d)) for d in range(dims))
        # spacings modulo 2^cell_bits: keys placed in the top bits make the wrap-around right
        totals.append(sum(repeats(block << np.uint64(64 - cell_bits)) for block in keys))
    return totals


def test_reversal_table():
    assert reversal(4).tolist()[:9] == [0, 8, 4, 12, 2, 10, 6, 14, 1]
    assert all(reversal(9)[reversal(9)] == np.arange(512))


@pytest.mark.parametrize("word_bytes", [4, 8])
def test_counts_equal_numpy_on_the_kept_words(word_bytes):
    # crowded values (few distinct nibbles) so that spacings do repeat
    data = (rng.integers(0, 3, size=300_000, dtype=np.uint8) * 0x55).tobytes() + rng.bytes(200_000)
    acc = DecimatedSpacings(word_bytes=word_bytes, **SMALL)
    feed_in_pieces(acc, data, [1, 7, 4093, 100_003])
    expected = reference_counts(data, word_bytes, **SMALL)
    assert acc.collisions == expected and sum(expected) > 50
    assert acc.blocks == len(data) // word_bytes // 3 // (32 * 4)


def test_parts_placed_anywhere_or_unplaced_at_the_phase_merge_into_one_pass():
    data = np.frombuffer(rng.bytes(400_000), dtype=np.uint8)
    whole = DecimatedSpacings(**SMALL)
    whole.update(data)
    phase = whole.phase
    assert phase == 3 * 32 * 4 * 8
    for cuts in ([8, 24], [3000, 3008, 96_000], [phase, 2 * phase + 8 * 5], list(range(8 * 997, len(data), 8 * 997))):
        bounds = [0, *cuts, len(data)]
        parts = []
        for lo, hi in zip(bounds, bounds[1:]):
            part = DecimatedSpacings(**SMALL)
            part.begin_at(lo)
            part.load_state(part.state())  # a state sent between processes
            part.update(data[lo:hi])
            restored = DecimatedSpacings(**SMALL)
            restored.begin_at(lo)
            restored.load_state(part.state())
            parts.append(restored)
        merged = parts[0]
        for part in parts[1:]:
            merged.merge(part)
        assert [r.to_json() for r in merged.finalize()] == [r.to_json() for r in whole.finalize()], cuts
    left, unplaced = DecimatedSpacings(**SMALL), DecimatedSpacings(**SMALL)
    left.update(data[: 2 * phase])
    unplaced.update(data[2 * phase :])
    left.merge(unplaced)
    assert [r.to_json() for r in left.finalize()] == [r.to_json() for r in whole.finalize()]


def test_a_block_is_needed_and_results_are_named_by_field():
    acc = DecimatedSpacings(step=4096)
    acc.update(np.zeros(1 << 20, dtype=np.uint8))
    results = acc.finalize()
    assert [r.name for r in results] == ["decimated_spacings[low4/64,step=4096]", "decimated_spacings[high4/64,step=4096]",
                                         "decimated_spacings[high4/64,reversed,step=4096]"]
    assert all(r.verdict == "insufficient" and "at least 1 GiB" in r.needs for r in results)


@pytest.mark.parametrize("params", [dict(word_bytes=2), dict(step=0), dict(bits_per_word=17), dict(dims=17),
                                    dict(points=70_000), dict(points=1 << 16, bits_per_word=2)])
def test_bad_parameters_are_refused(params):
    with pytest.raises(ValueError):
        DecimatedSpacings(**params)
