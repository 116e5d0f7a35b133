"""The Berlekamp-Massey kernel of _linear.c against Massey's (1969) algorithm
in Python, on random sequences and LFSRs of random degree.
"""

from __future__ import annotations

import numpy as np

from randqa.battery import _linear
from reference_generators import berlekamp_massey


def _pack(bits: list[int]) -> bytes:
    words = np.zeros(len(bits) // 64, dtype=np.uint64)
    for k, bit in enumerate(bits):
        words[k >> 6] |= np.uint64(bit) << np.uint64(k & 63)
    return words.tobytes()


def test_berlekamp_massey_kernel_matches_the_reference() -> None:
    rng = np.random.default_rng(1)
    for trial in range(60):
        n = 64 * int(rng.integers(1, 5))
        if trial % 3 == 0:
            bits = [int(x) for x in rng.integers(0, 2, n)]
        else:  # an LFSR of random degree: complexity = degree for most taps
            degree = int(rng.integers(1, n // 2))
            taps = rng.integers(0, 2, degree)
            taps[-1] = 1
            bits = [int(x) for x in rng.integers(0, 2, degree)]
            while len(bits) < n:
                bits.append(int(np.bitwise_xor.reduce([taps[i] & bits[-1 - i] for i in range(degree)])))
        assert _linear.linear_complexity(_pack(bits), n) == berlekamp_massey(bits)[0]
    assert _linear.linear_complexity(_pack([0] * 128), 128) == 0
    assert _linear.linear_complexity(_pack([0] * 127 + [1]), 128) == 128
