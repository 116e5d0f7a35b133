"""Reference streams, written from the generators' published definitions,
for generators randqa has no backend for (yet), and a plain Berlekamp-
Massey to check the compiled one against.

- java.util.Random: the JDK's constants (java/util/Random.java): the seed is
  scrambled as (seed ^ 0x5DEECE66D) & (2^48 - 1); next(bits) steps
  seed = (seed * 0x5DEECE66D + 0xB) & (2^48 - 1) and returns
  (int)(seed >>> (48 - bits)); nextInt() = next(32).  Random.nextBytes
  writes each nextInt() least significant byte first, so the stream is
  4 little-endian bytes per nextInt().
- MMIX: Knuth's LCG (TAOCP vol. 2, 3.3.4, table 1, line 26: a =
  6364136223846793005, c = 1442695040888963407, m = 2^64); the stream is its
  high 32 bits, 4 little-endian bytes per step.
- A full-output LCG with any a, c, m, as little-endian words.
"""

from __future__ import annotations

import numpy as np

JAVA_MULTIPLIER = 0x5DEECE66D
JAVA_ADDEND = 0xB
JAVA_MASK = (1 << 48) - 1


def java_random_ints(seed: int, count: int) -> np.ndarray:
    """The first ``count`` nextInt() values of new java.util.Random(seed), as uint32."""
    s = (seed ^ JAVA_MULTIPLIER) & JAVA_MASK
    out = np.empty(count, dtype=np.uint32)
    for i in range(count):
        s = (s * JAVA_MULTIPLIER + JAVA_ADDEND) & JAVA_MASK
        out[i] = s >> 16
    return out


def java_random_bytes(seed: int, nbytes: int) -> bytes:
    """new java.util.Random(seed).nextBytes(new byte[nbytes]) (nbytes a multiple of 4)."""
    return java_random_ints(seed, nbytes // 4).astype("<u4").tobytes()


def mmix_high_bytes(seed: int, nbytes: int) -> bytes:
    """Knuth's MMIX LCG from state ``seed``: the high 32 bits of each next state, 4 LE bytes each."""
    a, c, m = 6364136223846793005, 1442695040888963407, 1 << 64
    x = seed
    out = np.empty(nbytes // 4, dtype=np.uint32)
    for i in range(len(out)):
        x = (a * x + c) % m
        out[i] = x >> 32
    return out.astype("<u4").tobytes()


def lcg_bytes(x0: int, a: int, c: int, m: int, count: int, word_bytes: int) -> bytes:
    """x_1 .. x_count of x = a x + c mod m as little-endian words."""
    x, out = x0, bytearray()
    for _ in range(count):
        x = (a * x + c) % m
        out += x.to_bytes(word_bytes, "little")
    return bytes(out)


def berlekamp_massey(bits: list[int]) -> tuple[int, list[int]]:
    """Massey 1969, one bit at a time: (L, [c_0 = 1, c_1, ..., c_L])."""
    c, b = [1], [1]
    length, m = 0, 1
    for n, s in enumerate(bits):
        d = s
        for i in range(1, length + 1):
            d ^= c[i] & bits[n - i] if i < len(c) else 0
        if d == 0:
            m += 1
            continue
        t = list(c)
        shifted = [0] * m + b
        c = [x ^ y for x, y in zip(c + [0] * (len(shifted) - len(c)), shifted + [0] * (len(c) - len(shifted)))]
        if 2 * length <= n:
            length, b, m = n + 1 - length, t, 1
        else:
            m += 1
    return length, (c + [0] * (length + 1))[: length + 1]


def backend_bytes(name: str, seed: int, nbytes: int) -> np.ndarray:
    """``nbytes`` of randqa backend ``name`` seeded with ``seed``, as uint8."""
    from randqa.sources import open_source, read_full

    buffer = bytearray(nbytes)
    with open_source(name, seed=seed) as source:
        read_full(source, memoryview(buffer))
    return np.frombuffer(buffer, dtype=np.uint8)
