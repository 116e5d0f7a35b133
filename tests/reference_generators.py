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


# --------------------------------------------------------------------------
# Generators whose output bits are linear over GF(2) in their state.  Each
# yields blocks of bytes (little-endian words) without end, so a test reads
# only what it needs.

M64 = (1 << 64) - 1


def mt19937_64_values(seed: int = 5489):
    """MT19937-64 (Nishimura 2000; mt19937-64.c): init_genrand64(seed), then
    blocks of 312 tempered 64-bit outputs (uint64 arrays).  The twist is vectorised in two
    halves: outputs 0..155 read only old words, 156..310 the new 0..154."""
    import numpy as np

    nn, mm = 312, 156
    matrix_a = np.uint64(0xB5026F5AA96619E9)
    upper, lower = np.uint64(0xFFFFFFFF80000000), np.uint64(0x7FFFFFFF)
    words = [seed & M64]
    for i in range(1, nn):
        words.append((6364136223846793005 * (words[-1] ^ (words[-1] >> 62)) + i) & M64)
    mt = np.array(words, dtype=np.uint64)
    one, zero = np.uint64(1), np.uint64(0)

    def mix(hi, lo, far):
        x = (hi & upper) | (lo & lower)
        return far ^ (x >> one) ^ np.where(x & one, matrix_a, zero)

    while True:
        new = np.empty_like(mt)
        new[:mm] = mix(mt[:mm], mt[1:mm + 1], mt[mm:])
        new[mm:nn - 1] = mix(mt[mm:nn - 1], mt[mm + 1:], new[:nn - 1 - mm])
        new[nn - 1] = mix(mt[nn - 1:], new[:1], new[mm - 1:mm])[0]
        mt = new
        y = mt.copy()
        y ^= (y >> np.uint64(29)) & np.uint64(0x5555555555555555)
        y ^= (y << np.uint64(17)) & np.uint64(0x71D67FFFEDA60000)
        y ^= (y << np.uint64(37)) & np.uint64(0xFFF7EEE000000000)
        y ^= y >> np.uint64(43)
        yield y


def mt19937_blocks(seed: int, word_bits: int):
    """numpy's MT19937 (32-bit outputs) written as ``word_bits``-bit words:
    64 packs two outputs, the first in the high half (as a 64-bit value
    built from two calls); 32 as they are; 16 and 8 keep each output's low
    16 or 8 bits."""
    import numpy as np

    bitgen = np.random.MT19937(seed)
    while True:
        out = bitgen.random_raw(1 << 16)
        if word_bits == 64:
            yield ((out[0::2] << np.uint64(32)) | out[1::2]).astype("<u8").tobytes()
        else:
            yield out.astype(f"<u{word_bits // 8}").tobytes()


def xorshift1024_blocks(seed: int = 1):
    """The linear engine of Vigna's xorshift1024* (shifts 31, 11, 30) without
    its multiplication: 16 64-bit words of state, 64-bit outputs."""
    import numpy as np

    s, x = [], seed
    for _ in range(16):  # SplitMix64 fills the state, as Vigna suggests
        x = (x + 0x9E3779B97F4A7C15) & M64
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        s.append(z ^ (z >> 31))
    p = 0
    while True:
        out = []
        for _ in range(4096):
            s0 = s[p]
            p = (p + 1) & 15
            s1 = s[p]
            s1 ^= (s1 << 31) & M64
            s[p] = s1 ^ s0 ^ (s1 >> 11) ^ (s0 >> 30)
            out.append(s[p])
        yield np.array(out, dtype="<u8").tobytes()


def xoshiro256plus_blocks(seed: int = 1):
    """Blackman and Vigna's xoshiro256+: 64-bit outputs s0 + s3, whose
    lowest bit (no carry reaches it) is linear in the 256-bit state."""
    import numpy as np

    s = [(seed * 0x9E3779B97F4A7C15 + k * 0xBF58476D1CE4E5B9) & M64 | 1 for k in range(4)]
    while True:
        out = []
        for _ in range(4096):
            out.append((s[0] + s[3]) & M64)
            t = (s[1] << 17) & M64
            s[2] ^= s[0]
            s[3] ^= s[1]
            s[1] ^= s[2]
            s[0] ^= s[3]
            s[2] ^= t
            s[3] = ((s[3] << 45) | (s[3] >> 19)) & M64
        yield np.array(out, dtype="<u8").tobytes()


def xorshift128_blocks(seed: int = 1):
    """Marsaglia's xorshift128 (11, 8, 19): 128 bits of state, 32-bit outputs."""
    import numpy as np

    m32 = (1 << 32) - 1
    x, y, z, w = 123456789 ^ seed, 362436069, 521288629, 88675123
    while True:
        out = []
        for _ in range(8192):
            t = x ^ ((x << 11) & m32)
            x, y, z = y, z, w
            w = w ^ (w >> 19) ^ t ^ (t >> 8)
            out.append(w)
        yield np.array(out, dtype="<u4").tobytes()


def well512a_blocks(seed: int = 1):
    """WELL512a (Panneton, L'Ecuyer and Matsumoto, ACM TOMS 32 (2006); their
    WELL512a.c): 16 32-bit words of state, 32-bit outputs."""
    import numpy as np

    m32 = (1 << 32) - 1
    state = [(seed * 2654435761 + k * 40503 + 1) & m32 for k in range(16)]
    i = 0
    while True:
        out = []
        for _ in range(8192):
            z0 = state[(i + 15) & 15]
            v0, vm1, vm2 = state[i], state[(i + 13) & 15], state[(i + 9) & 15]
            z1 = (v0 ^ (v0 << 16)) ^ (vm1 ^ (vm1 << 15))
            z1 &= m32
            z2 = vm2 ^ (vm2 >> 11)
            new1 = z1 ^ z2
            state[i] = new1
            new0 = (z0 ^ (z0 << 2)) ^ (z1 ^ (z1 << 18)) ^ (z2 << 28) ^ (new1 ^ ((new1 << 5) & 0xDA442D24))
            state[(i + 15) & 15] = new0 & m32
            i = (i + 15) & 15
            out.append(state[i])
        yield np.array(out, dtype="<u4").tobytes()


def lfsr_bit_blocks(degree: int, tap: int, seed: int = 1):
    """A bit-serial Fibonacci LFSR s(n + degree) = s(n + tap) ^ s(n)
    (feedback polynomial x^degree + x^tap + 1, tap < degree), its bits packed
    eight to a byte, first bit most significant.  Vectorised: the next
    degree - tap bits depend only on bits already made."""
    import numpy as np

    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2, size=degree, dtype=np.uint8)
    step = degree - tap
    block_bits = 8 * 65536
    pending = bits
    while True:
        out = np.empty(degree + block_bits, dtype=np.uint8)
        out[:degree] = pending[-degree:]
        for m in range(degree, degree + block_bits, step):
            b = min(step, degree + block_bits - m)
            out[m:m + b] = out[m - degree + tap:m - degree + tap + b] ^ out[m - degree:m - degree + b]
        pending = out[-degree:]
        yield np.packbits(out[degree:]).tobytes()


def gfsr_blocks(lag: int, tap: int, seed: int = 1):
    """Lewis and Payne's GFSR w(n) = w(n - lag) ^ w(n - tap) on 32-bit words
    (every bit position an LFSR of degree ``lag``; 32 x lag bits of state)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    words = rng.integers(0, 1 << 32, size=lag, dtype=np.uint64).astype(np.uint32)
    while True:
        out = np.empty(lag + 65536, dtype=np.uint32)
        out[:lag] = words
        for m in range(lag, lag + 65536, tap):
            b = min(tap, lag + 65536 - m)
            out[m:m + b] = out[m - lag:m - lag + b] ^ out[m - tap:m - tap + b]
        words = out[-lag:]
        yield out[lag:].astype("<u4").tobytes()
