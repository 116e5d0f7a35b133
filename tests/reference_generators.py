"""Plain-Python transcriptions of generators, written from their published
definitions, to check randqa's compiled backends and to build test streams."""

from __future__ import annotations

JAVA_MULTIPLIER = 0x5DEECE66D
JAVA_INCREMENT = 0xB
MMIX_MULTIPLIER = 6364136223846793005
MMIX_INCREMENT = 1442695040888963407


def java_random_next_ints(seed: int, count: int) -> list[int]:
    """``new java.util.Random(seed)`` then ``count`` calls of ``nextInt()``
    (signed 32-bit), as the JDK's documentation of ``Random`` specifies:
    setSeed scrambles (seed ^ 0x5DEECE66D) mod 2^48, next(32) steps
    x = 0x5DEECE66D x + 0xB mod 2^48 and returns (int)(x >>> 16)."""
    mask = (1 << 48) - 1
    x = (seed ^ JAVA_MULTIPLIER) & mask
    out = []
    for _ in range(count):
        x = (JAVA_MULTIPLIER * x + JAVA_INCREMENT) & mask
        value = x >> 16
        out.append(value - (1 << 32) if value >= 1 << 31 else value)
    return out


def mmix_lcg_top32(seed: int, count: int) -> list[int]:
    """Knuth's MMIX LCG, x = 6364136223846793005 x + 1442695040888963407
    mod 2^64 (the multiplier from TAOCP vol. 2, 3rd ed., section 3.3.4, the
    increment Knuth chose for MMIX), from x = seed: each new state's bits
    63..32."""
    mask = (1 << 64) - 1
    x = seed & mask
    out = []
    for _ in range(count):
        x = (MMIX_MULTIPLIER * x + MMIX_INCREMENT) & mask
        out.append(x >> 32)
    return out


def truncated_lcg_bytes(state_bits: int, a: int, c: int, shift: int, word_bits: int, count: int,
                        seed: int = 12345) -> bytes:
    """``count`` outputs of x = a x + c mod 2^state_bits (state_bits <= 64),
    each (x >> shift) mod 2^word_bits written as a little-endian word of
    word_bits bits.  Vectorised: 4096 consecutive states step together by
    the LCG's 4096-step jump x -> A x + C."""
    import numpy as np

    mask = (1 << state_bits) - 1
    lanes = 4096
    first = []
    x = seed & mask
    for _ in range(lanes):
        x = (a * x + c) & mask
        first.append(x)
    jump_a, jump_c = 1, 0
    for _ in range(lanes):
        jump_a, jump_c = (jump_a * a) & mask, (jump_c * a + c) & mask
    rows = -(-count // lanes)
    states = np.empty((rows, lanes), dtype=np.uint64)
    states[0] = np.array(first, dtype=np.uint64)
    for r in range(1, rows):  # uint64 products wrap mod 2^64, then the mask reduces mod 2^state_bits
        states[r] = (states[r - 1] * np.uint64(jump_a) + np.uint64(jump_c)) & np.uint64(mask)
    out = (states.ravel()[:count] >> np.uint64(shift)) & np.uint64((1 << word_bits) - 1 if word_bits < 64 else mask)
    return out.astype(f"<u{word_bits // 8}").tobytes()
