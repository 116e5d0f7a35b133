"""The folding kernel's loops for constant word sizes (randqa/_folding.c:
low_bits 1, 2, 4 and 8 of 8-, 16-, 32- and 64-bit words) give the bits a
plain bit-by-bit reading gives, whatever the chunking and pending bits."""

from __future__ import annotations

import numpy as np
import pytest

from randqa.folding import fold_low_bits


def folded_by_bits(data: bytes, word_bytes: int, low_bits: int) -> bytes:
    whole = len(data) - len(data) % word_bytes
    words = [int.from_bytes(data[i:i + word_bytes], "little") for i in range(0, whole, word_bytes)]
    bits = "".join(format(w & ((1 << low_bits) - 1), f"0{low_bits}b") for w in words)
    return bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits) - len(bits) % 8, 8))


CASES = [(w, low) for w in (1, 2, 4, 8) for low in (1, 2, 4, 8) if low < 8 * w]


@pytest.mark.parametrize("word_bytes, low_bits", CASES)
def test_fast_paths_equal_the_bit_by_bit_folding(word_bytes, low_bits):
    rng = np.random.default_rng(100 * word_bytes + low_bits)
    data = rng.integers(0, 256, size=4099, dtype=np.uint8)
    expected = folded_by_bits(data.tobytes(), word_bytes, low_bits)
    for cuts in ([], [1], [3, 5, 17, 1000, 1001], sorted(int(c) for c in rng.integers(0, len(data), 7))):
        carry, pieces = None, []
        for lo, hi in zip([0, *cuts], [*cuts, len(data)]):
            packed, carry = fold_low_bits(data[lo:hi], word_bytes, low_bits, carry)
            pieces.append(packed.tobytes())
        assert b"".join(pieces) == expected, cuts
