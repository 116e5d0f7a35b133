"""fold_low_bits (randqa/folding.py): the low bits of each little-endian word
packed into a bit stream, against a plain reference for any chunking and
word size, with the carry of an unfinished byte; bad sizes are refused.
The cases cover the kernel's loops for constant word sizes
(randqa/_folding.c: low bits 1, 2, 4 and 8 of 8- to 64-bit words) and its
general paths.
"""

from __future__ import annotations

import numpy as np
import pytest

from randqa.folding import fold_low_bits
from reference_generators import folded_low_bits, pcg64_array


CONSTANT_STRIDES = [(w, low) for w in (1, 2, 4, 8) for low in (1, 2, 4, 8) if low < 8 * w]
GENERAL = [(1, 3), (4, 13), (8, 16), (8, 33), (8, 64)]


@pytest.mark.parametrize("word_bytes,low_bits", CONSTANT_STRIDES + GENERAL)
def test_fold_low_bits_matches_reference_for_any_chunking(word_bytes: int, low_bits: int) -> None:
    data = pcg64_array(4_099, seed=60 + 8 * word_bytes + low_bits)
    expected = folded_low_bits(data.tobytes(), word_bytes, low_bits)
    rng = np.random.default_rng(low_bits)
    fixed = [[], [1], [3, 5, 17, 1000, 1001]]
    for cuts in fixed + [sorted(int(c) for c in rng.integers(0, len(data), 7)) for _ in range(3)]:
        carry, pieces = None, []
        for a, b in zip([0] + cuts, cuts + [len(data)]):
            packed, carry = fold_low_bits(data[a:b], word_bytes, low_bits, carry)
            pieces.append(packed.tobytes())
        assert b"".join(pieces) == expected


def test_fold_low_bits_examples() -> None:
    low1, _ = fold_low_bits(np.array([1, 0, 1, 1, 0, 0, 0, 1, 3], dtype=np.uint8), 1, 1, None)
    assert low1.tolist() == [0b10110001]
    low4, carry = fold_low_bits(np.frombuffer(np.array([0x1234567A, 0xFFFFFFF3, 7], dtype="<u4").tobytes(), dtype=np.uint8), 4, 4, None)
    assert low4.tolist() == [0xA3] and carry.bit_count == 4 and carry.bits == 7


@pytest.mark.parametrize("word_bytes,low_bits", [(3, 1), (1, 0), (1, 9), (2, 17)])
def test_fold_low_bits_refuses_bad_parameters(word_bytes: int, low_bits: int) -> None:
    with pytest.raises(ValueError):
        fold_low_bits(np.zeros(8, dtype=np.uint8), word_bytes, low_bits, None)
