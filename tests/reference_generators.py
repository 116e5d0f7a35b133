"""Python reference generators the tests check randqa against, each written
from its published definition once, and helpers that read randqa's own
backends.

Streams are written as randqa's backends write them: 32-bit outputs as 4
little-endian bytes, rand() & 0xffff as 2 bytes, rand() & 0xff as 1 byte.
Long streams are vectorised with numpy (jump-ahead by doubling the step
map, or many states stepped together), so no Python loop runs per output;
the endless ``*_blocks`` generators yield blocks of bytes, so a test reads
only what it needs.

- PCG64: numpy's own; pairs of PCG64 (or PCG64DXSM) streams that share
  their increment and the low bits of their state (numpy's
  "upgrading-pcg64" note), as a ``--stream-seeds module:attr`` scheme.
- LCGs: any modulus in Python integers; power-of-two moduli vectorised
  (RANDU, MSVC rand(), MMIX and relatives); MINSTD; java.util.Random (the
  JDK's documentation of Random: setSeed scrambles (seed ^ 0x5DEECE66D)
  mod 2^48, next(32) steps x = 0x5DEECE66D x + 0xB mod 2^48 and returns
  (int)(x >>> 16); nextBytes writes each nextInt() least significant byte
  first); Knuth's MMIX (TAOCP vol. 2, 3rd ed., 3.3.4), its high 32 bits.
- V8's Math.random() (xorshift128 behind a 64-double cache), and the
  runtimes' packing of b-bit values.
- glibc rand() (TYPE_3 additive feedback) after srand().
- GF(2)-linear: xorshift32 and xorshift128 (Marsaglia 2003), L'Ecuyer's
  LFSR113 (four Tausworthe components, as Linux's prandom), bit-serial
  LFSRs of trinomials, GFSR, MT19937 as words of any width, MT19937-64,
  xorshift1024's linear engine, xoshiro256+, WELL512a.
- libdnet's RC4 keying, and Linux's SipHash-based siprand.
- Berlekamp-Massey (Massey 1969), the linear complexity of a bit sequence.
- The low bits of each word packed into a bit stream, as folding reads them.
"""

from __future__ import annotations

import numpy as np

MASK32 = (1 << 32) - 1
M64 = (1 << 64) - 1


# --------------------------------------------------------------------------
# PCG64


def pcg64_bytes(n: int, seed: int) -> bytes:
    """n bytes of numpy's PCG64 seeded with ``seed``."""
    return np.random.Generator(np.random.PCG64(seed)).bytes(n)


def pcg64_array(n: int, seed: int) -> np.ndarray:
    """pcg64_bytes as a uint8 array."""
    return np.frombuffer(pcg64_bytes(n, seed), dtype=np.uint8)


def pcg_pair(cls: type, seed: int, shared_low_bits: int) -> list:
    """Two ``cls`` (numpy PCG64 or PCG64DXSM) streams with one increment whose
    states are 2^shared_low_bits apart: Class(seed) and a copy of it with
    2^shared_low_bits added to its 128-bit state.  An LCG step multiplies the
    difference by the odd multiplier, so the states keep sharing their low
    ``shared_low_bits`` bits forever."""
    first, second = cls(seed), cls(seed)
    state = first.state
    state["state"] = dict(state["state"], state=(state["state"]["state"] + (1 << shared_low_bits)) % (1 << 128))
    second.state = state
    return [first, second]


def pcg64_sharing_63_bits(seed: int, k: int) -> list:
    """``--stream-seeds reference_generators:pcg64_sharing_63_bits``: the pair of pcg_pair(PCG64, seed, 63)."""
    assert k == 2, "a pair"
    return pcg_pair(np.random.PCG64, seed, 63)


# --------------------------------------------------------------------------
# linear congruential generators


def lcg_bytes(x0: int, a: int, c: int, m: int, count: int, word_bytes: int) -> bytes:
    """x_1 .. x_count of x = a x + c mod m, any modulus, as little-endian words."""
    x, out = x0, bytearray()
    for _ in range(count):
        x = (a * x + c) % m
        out += x.to_bytes(word_bytes, "little")
    return bytes(out)


def truncated_lcg_bytes(state_bits: int, a: int, c: int, shift: int, word_bits: int, count: int,
                        seed: int = 12345) -> bytes:
    """``count`` outputs of x = a x + c mod 2^state_bits (state_bits <= 64),
    each (x >> shift) mod 2^word_bits written as a little-endian word of
    word_bits bits.  Vectorised: 4096 consecutive states step together by
    the LCG's 4096-step jump x -> A x + C."""
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


#: a 128-bit LCG's multiplier and increment (PCG's 128-bit defaults)
LCG128_MULTIPLIER, LCG128_INCREMENT = 0x2360ED051FC65DA44385DF649FCCF645, 0x5851F42D4C957F2D14057B7EF767814F


def wide_lcg_blocks(state_bits: int, out_bits: int, a: int = LCG128_MULTIPLIER, c: int = LCG128_INCREMENT,
                    outputs: int = 4096, seed: int = 1):
    """Endless blocks of ``outputs`` outputs of x = a x + c mod 2^state_bits
    (any width: Python integers), each its top out_bits bits as a
    little-endian word; x starts at ``seed``."""
    mask, x = (1 << state_bits) - 1, seed
    while True:
        out = []
        for _ in range(outputs):
            x = (a * x + c) & mask
            out.append(x >> (state_bits - out_bits))
        yield np.array(out, dtype=f"<u{out_bits // 8}").tobytes()


def msvc_rand(count: int, seed: int = 1) -> np.ndarray:
    """MSVC rand(): x = x*214013 + 2531011 mod 2^32, output (x >> 16) & 0x7fff."""
    words = np.frombuffer(truncated_lcg_bytes(32, 214013, 2531011, 16, 16, count, seed), dtype="<u2")
    return (words & 0x7FFF).astype(np.uint32)


def msvc_rand_low_bytes(n: int, seed: int = 1) -> bytes:
    """n bytes of MSVC rand()'s low byte."""
    return truncated_lcg_bytes(32, 214013, 2531011, 16, 8, n, seed)


JAVA_MULTIPLIER = 0x5DEECE66D
JAVA_INCREMENT = 0xB
JAVA_MASK = (1 << 48) - 1


def java_random_next_ints(seed: int, count: int) -> list[int]:
    """``new java.util.Random(seed)`` then ``count`` calls of ``nextInt()``
    (signed 32-bit), as the JDK's documentation of ``Random`` specifies:
    setSeed scrambles (seed ^ 0x5DEECE66D) mod 2^48, next(32) steps
    x = 0x5DEECE66D x + 0xB mod 2^48 and returns (int)(x >>> 16)."""
    x = (seed ^ JAVA_MULTIPLIER) & JAVA_MASK
    out = []
    for _ in range(count):
        x = (JAVA_MULTIPLIER * x + JAVA_INCREMENT) & JAVA_MASK
        value = x >> 16
        out.append(value - (1 << 32) if value >= 1 << 31 else value)
    return out


def java_random_bytes(seed: int, nbytes: int) -> bytes:
    """new java.util.Random(seed).nextBytes(new byte[nbytes]) (nbytes a multiple of 4)."""
    return np.array(java_random_next_ints(seed, nbytes // 4), dtype="<i4").tobytes()


MMIX_MULTIPLIER = 6364136223846793005
MMIX_INCREMENT = 1442695040888963407


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


def mmix_high_bytes(seed: int, nbytes: int) -> bytes:
    """mmix_lcg_top32 as 4 little-endian bytes each."""
    return np.array(mmix_lcg_top32(seed, nbytes // 4), dtype="<u4").tobytes()


PRIME64_MODULUS = 2**64 - 59
PRIME64_MULTIPLIER = 13891176665706064842


def lcg64_prime(x0: int, count: int) -> list[int]:
    """x = 13891176665706064842 x mod 2^64 - 59 (L'Ecuyer, Math. Comp. 68
    (1999), table 4) from x0: each new state."""
    x, out = x0, []
    for _ in range(count):
        x = PRIME64_MULTIPLIER * x % PRIME64_MODULUS
        out.append(x)
    return out


PCG128_MULTIPLIER = 0x2360ED051FC65DA44385DF649FCCF645
PCG128_INCREMENT = 0x5851F42D4C957F2D14057B7EF767814F


def pcg128_lcg_states(seed: int, count: int) -> list[int]:
    """PCG's 128-bit LCG (pcg_variants.h's default multiplier and increment)
    after pcg_oneseq_128_srandom_r(seed) (state = 0, step, state += seed,
    step): the next ``count`` states."""
    def step(x: int) -> int:
        return (PCG128_MULTIPLIER * x + PCG128_INCREMENT) % 2**128

    x = step((step(0) + seed) % 2**128)
    out = []
    for _ in range(count):
        x = step(x)
        out.append(x)
    return out


def splitmix64_values(seed: int, count: int) -> list[int]:
    """Vigna's SplitMix64 from state ``seed``."""
    out = []
    for _ in range(count):
        seed = (seed + 0x9E3779B97F4A7C15) & M64
        z = seed
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        out.append(z ^ (z >> 31))
    return out


def lagged_fibonacci_19937(seed: int, count: int) -> list[int]:
    """X_n = X_{n-19937} + X_{n-9842} mod 2^64 from X_0..X_19936 =
    SplitMix64(seed)'s first outputs with X_0's lowest bit set: X_19937 on."""
    x = splitmix64_values(seed, 19937)
    x[0] |= 1
    for _ in range(count):
        x.append((x[-19937] + x[-9842]) & M64)
    return x[19937:]


# --------------------------------------------------------------------------
# V8's Math.random()


def _fmix64(h: int) -> int:
    h ^= h >> 33
    h = (h * 0xFF51AFD7ED558CCD) & M64
    h ^= h >> 33
    h = (h * 0xC4CEB9FE1A85EC53) & M64
    return h ^ (h >> 33)


def v8_math_random_values(seed: int, count: int) -> list[int]:
    """``count`` Math.random() * 2^52 of ``node --random-seed=seed`` (V8 11.3:
    state0 = MurmurHash3's fmix64(seed), state1 = fmix64(~seed); each refill
    runs 64 xorshift128 steps into a cache read from its end; a double is
    state0 >> 12 over 2^52)."""
    s0, s1 = _fmix64(seed & M64), _fmix64(~seed & M64)
    out: list[int] = []
    while len(out) < count:
        cache = []
        for _ in range(64):
            x, y = s0, s1
            s0 = y
            x ^= (x << 23) & M64
            x ^= x >> 17
            x ^= y
            x ^= y >> 26
            s1 = x
            cache.append(s0 >> 12)
        out.extend(reversed(cache))
    return out[:count]


def packed_values(values: list[int], bits: int) -> bytes:
    """Values of ``bits`` bits packed least significant bit first, as the
    runtime backends write them (a last partial byte padded with zeros)."""
    words = np.array(values, dtype="<u8").view(np.uint8).reshape(-1, 8)
    stream = np.unpackbits(words, axis=1, bitorder="little")[:, :bits].ravel()
    return np.packbits(stream, bitorder="little").tobytes()


# --------------------------------------------------------------------------
# glibc rand()


def glibc_rand(count: int, seed: int = 1) -> np.ndarray:
    """glibc rand() (TYPE_3): r[i] = r[i-3] + r[i-31] mod 2^32 after srand's
    initialisation, output r >> 1 from the 345th value on."""
    r = [seed]
    for _ in range(30):
        hi, lo = divmod(r[-1], 127773)
        word = 16807 * lo - 2836 * hi
        r.append(word + 2147483647 if word < 0 else word)
    r += r[:3]
    total = count + 344
    u = np.empty(total, dtype=np.uint64)  # u[j] = r[j + 3] obeys u_j = u_{j-3} + u_{j-31}
    u[:31] = r[3:34]
    have = 31
    while have < total:
        take = min(max(have - 30, 1), total - have)
        acc = np.zeros(take, dtype=np.uint64)
        for j, cj in enumerate(_x_power_mod(have)):  # u[k + have] = sum_j c_j u[k + j]
            if cj:
                acc += np.uint64(cj) * u[j : j + take]
        u[have : have + take] = acc & np.uint64(MASK32)
        have += take
    return (u[341 : 341 + count] >> np.uint64(1)).astype(np.uint32)


def _x_power_mod(e: int) -> list[int]:
    """x^e mod (x^31 - x^28 - 1) over Z/2^32, lowest coefficient first."""

    def mulmod(a: list[int], b: list[int]) -> list[int]:
        prod = [0] * 61
        for i, ai in enumerate(a):
            if ai:
                for j, bj in enumerate(b):
                    prod[i + j] = (prod[i + j] + ai * bj) & MASK32
        for k in range(60, 30, -1):
            prod[k - 3] = (prod[k - 3] + prod[k]) & MASK32
            prod[k - 31] = (prod[k - 31] + prod[k]) & MASK32
        return prod[:31]

    result, base = [1] + [0] * 30, [0, 1] + [0] * 29
    while e:
        if e & 1:
            result = mulmod(result, base)
        base = mulmod(base, base)
        e >>= 1
    return result


# --------------------------------------------------------------------------
# GF(2)-linear generators: their output bits are linear over GF(2) in their state


def _apply_gf2(columns: np.ndarray, values: np.ndarray) -> np.ndarray:
    out = np.zeros_like(values)
    for j in range(32):
        out ^= ((values >> np.uint32(j)) & np.uint32(1)) * columns[j]
    return out


def gf2_sequence(step, x0: int, count: int) -> np.ndarray:
    """x_1..x_count of a GF(2)-linear map on 32-bit words."""
    columns = step(np.array([1 << j for j in range(32)], dtype=np.uint32))
    out = np.empty(count, dtype=np.uint32)
    out[0] = step(np.array([x0], dtype=np.uint32))[0]
    have = 1
    while have < count:
        take = min(have, count - have)
        out[have : have + take] = _apply_gf2(columns, out[:take])
        columns = _apply_gf2(columns, columns)
        have += take
    return out


def xorshift32_step(x: np.ndarray) -> np.ndarray:
    x = x ^ (x << np.uint32(13))
    x = x ^ (x >> np.uint32(17))
    return x ^ (x << np.uint32(5))


def tausworthe(s1: int, mask: int, s2: int, s3: int):
    """One Tausworthe component: z -> ((z & mask) << s3) ^ (((z << s1) ^ z) >> s2)."""

    def step(z: np.ndarray) -> np.ndarray:
        return ((z & np.uint32(mask)) << np.uint32(s3)) ^ (((z << np.uint32(s1)) ^ z) >> np.uint32(s2))

    return step


#: LFSR113's four components and the least state each needs
LFSR113 = [(tausworthe(6, 4294967294, 13, 18), 2), (tausworthe(2, 4294967288, 27, 2), 8),
           (tausworthe(13, 4294967280, 21, 7), 16), (tausworthe(3, 4294967168, 12, 13), 128)]


def lfsr113_words(states: list[int], count: int) -> np.ndarray:
    """x_1..x_count of LFSR113 from the four component states (each at least its minimum)."""
    out = np.zeros(count, dtype=np.uint32)
    for (step, _), z0 in zip(LFSR113, states):
        out ^= gf2_sequence(step, z0, count)
    return out


def lfsr113_reference(seed: int, count: int) -> list[int]:
    """Linux's prandom_seed_state(seed) + prandom_warmup, then prandom_u32_state."""
    i = ((seed >> 32) ^ (seed << 10) ^ seed) & MASK32
    states = [i + minimum if i < minimum else i for _, minimum in LFSR113]
    return lfsr113_words(states, 10 + count)[10:].tolist()


def xorshift128_next(x, y, z, w):
    """One step of Marsaglia's xorshift128 (11, 8, 19), on Python integers or
    uint32 arrays: the new state, whose last word is the output."""
    t = (x ^ (x << 11)) & MASK32
    return y, z, w, w ^ (w >> 19) ^ t ^ (t >> 8)


def xorshift128_words(segments: int, words_per_segment: int, seed: int = 2024) -> np.ndarray:
    """xorshift128's 32-bit outputs: ``segments`` runs of ``words_per_segment``
    consecutive outputs from random starting states (all states lie on the
    generator's single cycle, so each run is a piece of the one stream).  The
    segments step together: one numpy operation per output position, none
    per value."""
    x, y, z, w = np.random.default_rng(seed).integers(1, 2**32, size=(4, segments), dtype=np.uint32)
    out = np.empty((words_per_segment, segments), dtype=np.uint32)
    for i in range(words_per_segment):
        x, y, z, w = xorshift128_next(x, y, z, w)
        out[i] = w
    return out.T.copy()


def xorshift128_blocks(seed: int = 1):
    """xorshift128 from Marsaglia's starting state (x xor seed), 32-bit outputs."""
    x, y, z, w = 123456789 ^ seed, 362436069, 521288629, 88675123
    while True:
        out = []
        for _ in range(8192):
            x, y, z, w = xorshift128_next(x, y, z, w)
            out.append(w)
        yield np.array(out, dtype="<u4").tobytes()


def lfsr_continue(first: np.ndarray, total: int, tap: int) -> np.ndarray:
    """The bit-serial Fibonacci LFSR s(n + degree) = s(n + tap) ^ s(n)
    (feedback polynomial x^degree + x^tap + 1, tap < degree, degree =
    len(first)) from its first bits to ``total`` bits (uint8 0/1).
    Vectorised: the next degree - tap bits depend only on bits already made."""
    degree = len(first)
    step = degree - tap
    s = np.empty(total, dtype=np.uint8)
    s[:degree] = first
    for m in range(degree, total, step):
        b = min(step, total - m)
        s[m:m + b] = s[m - degree + tap:m - degree + tap + b] ^ s[m - degree:m - degree + b]
    return s


def lfsr_bits(nbits: int, degree: int = 31, tap: int = 3, seed: int = 99) -> np.ndarray:
    """``nbits`` bits of the LFSR of x^degree + x^tap + 1 (by default the
    primitive trinomial x^31 + x^3 + 1: s_t = s_(t-31) xor s_(t-28)) from
    random first bits, the very first set."""
    first = np.random.default_rng(seed).integers(0, 2, degree).astype(np.uint8)
    first[0] = 1
    return lfsr_continue(first, nbits, tap)


def lfsr_bit_blocks(degree: int, tap: int, seed: int = 1):
    """The LFSR of x^degree + x^tap + 1 from random first bits, its bits
    packed eight to a byte, first bit most significant."""
    pending = np.random.default_rng(seed).integers(0, 2, size=degree, dtype=np.uint8)
    block_bits = 8 * 65536
    while True:
        out = lfsr_continue(pending[-degree:], degree + block_bits, tap)
        pending = out[-degree:]
        yield np.packbits(out[degree:]).tobytes()


def gfsr_blocks(lag: int, tap: int, seed: int = 1):
    """Lewis and Payne's GFSR w(n) = w(n - lag) ^ w(n - tap) on 32-bit words
    (every bit position an LFSR of degree ``lag``; 32 x lag bits of state)."""
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


def mt19937_64_values(seed: int = 5489):
    """MT19937-64 (Nishimura 2000; mt19937-64.c): init_genrand64(seed), then
    blocks of 312 tempered 64-bit outputs (uint64 arrays).  The twist is vectorised in two
    halves: outputs 0..155 read only old words, 156..310 the new 0..154."""
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


def well512a_blocks(seed: int = 1):
    """WELL512a (Panneton, L'Ecuyer and Matsumoto, ACM TOMS 32 (2006); their
    WELL512a.c): 16 32-bit words of state, 32-bit outputs."""
    state = [(seed * 2654435761 + k * 40503 + 1) & MASK32 for k in range(16)]
    i = 0
    while True:
        out = []
        for _ in range(8192):
            z0 = state[(i + 15) & 15]
            v0, vm1, vm2 = state[i], state[(i + 13) & 15], state[(i + 9) & 15]
            z1 = (v0 ^ (v0 << 16)) ^ (vm1 ^ (vm1 << 15))
            z1 &= MASK32
            z2 = vm2 ^ (vm2 >> 11)
            new1 = z1 ^ z2
            state[i] = new1
            new0 = (z0 ^ (z0 << 2)) ^ (z1 ^ (z1 << 18)) ^ (z2 << 28) ^ (new1 ^ ((new1 << 5) & 0xDA442D24))
            state[(i + 15) & 15] = new0 & MASK32
            i = (i + 15) & 15
            out.append(state[i])
        yield np.array(out, dtype="<u4").tobytes()


# --------------------------------------------------------------------------
# streams by backend name


def reference_stream(name: str, nbytes: int, seed: int = 1) -> np.ndarray:
    """``nbytes`` of the named generator, as its randqa backend writes it (uint8)."""
    words32 = nbytes // 4 + 1
    if name == "randu":
        out = np.frombuffer(truncated_lcg_bytes(31, 65539, 0, 0, 32, words32, seed | 1), dtype="<u4")
    elif name == "minstd":
        out = np.frombuffer(lcg_bytes(seed, 16807, 0, 2**31 - 1, words32, 4), dtype="<u4")
    elif name == "xorshift32":
        out = gf2_sequence(xorshift32_step, 2463534242, words32).astype("<u4")
    elif name == "lfsr113":
        states = []
        for k, (_, minimum) in enumerate(LFSR113):
            z0 = (seed * (k + 1) * 2654435761) & MASK32
            states.append(z0 if z0 >= minimum else z0 + minimum)
        out = lfsr113_words(states, words32).astype("<u4")
    elif name == "glibc-rand-short":
        out = (glibc_rand(nbytes // 2 + 1, seed) & 0xFFFF).astype("<u2")
    elif name == "glibc-rand-byte":
        out = (glibc_rand(nbytes, seed) & 0xFF).astype(np.uint8)
    elif name == "msvc-rand-short":
        out = msvc_rand(nbytes // 2 + 1, seed).astype("<u2")
    elif name == "msvc-rand-byte":
        out = (msvc_rand(nbytes, seed) & 0xFF).astype(np.uint8)
    else:
        raise KeyError(name)
    return np.frombuffer(out.tobytes()[:nbytes], dtype=np.uint8)


# --------------------------------------------------------------------------
# RC4 as libdnet keys it


def dnet_reference(key: bytes, n: int) -> bytes:
    """libdnet rand.c, transcribed: rand_set = init + two addrandom passes, then rand_get."""
    s = list(range(256))
    i = j = 0
    for _ in range(2):  # rand_addrandom: continues from i, j; ends with j = i
        i = (i - 1) & 0xFF
        for k in range(256):
            i = (i + 1) & 0xFF
            si = s[i]
            j = (j + si + key[k % len(key)]) & 0xFF
            s[i] = s[j]
            s[j] = si
        j = i
    out = bytearray()
    for _ in range(n):
        i = (i + 1) & 0xFF
        si = s[i]
        j = (j + si) & 0xFF
        sj = s[j]
        s[i], s[j] = sj, si
        out.append(s[(si + sj) & 0xFF])
    return bytes(out)


# --------------------------------------------------------------------------
# SipHash and Linux's siprand


def sipround(v: list[int]) -> list[int]:
    """PRND_SIPROUND (64-bit), transcribed from include/linux/prandom.h."""
    def rol(x: int, r: int) -> int:
        return ((x << r) | (x >> (64 - r))) & M64

    v0, v1, v2, v3 = v
    v0 = (v0 + v1) & M64; v1 = rol(v1, 13); v2 = (v2 + v3) & M64; v3 = rol(v3, 16)  # noqa: E702
    v1 ^= v0; v0 = rol(v0, 32); v3 ^= v2  # noqa: E702
    v0 = (v0 + v3) & M64; v3 = rol(v3, 21); v2 = (v2 + v1) & M64; v1 = rol(v1, 17)  # noqa: E702
    v3 ^= v0; v1 ^= v2; v2 = rol(v2, 32)  # noqa: E702
    return [v0, v1, v2, v3]


def siphash24(key: bytes, message: bytes) -> int:
    k0, k1 = int.from_bytes(key[:8], "little"), int.from_bytes(key[8:], "little")
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D, k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]
    whole = len(message) // 8 * 8
    blocks = [int.from_bytes(message[i:i + 8], "little") for i in range(0, whole, 8)]
    blocks.append((len(message) << 56) | int.from_bytes(message[whole:], "little"))
    for m in blocks:
        v[3] ^= m
        v = sipround(sipround(v))
        v[0] ^= m
    v[2] ^= 0xFF
    for _ in range(4):
        v = sipround(v)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


K0 = 0x736F6D6570736575 ^ 0x6C7967656E657261
K1 = 0x646F72616E646F6D ^ 0x7465646279746573


def siprand_reference(seed: int, count: int) -> list[int]:
    """Linux 5.10 siprand_u32 with net_rand_noise = 0, keyed as prandom_reseed."""
    lo, hi = seed & M64, seed >> 64
    v = [w if w else M64 for w in (lo, hi, lo ^ K0, hi ^ K1)]
    out = []
    for _ in range(count):
        v = sipround(sipround(v))
        out.append((v[1] + v[3]) & 0xFFFFFFFF)
    return out


# --------------------------------------------------------------------------
# linear complexity and folding


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


def folded_low_bits(data: bytes, word_bytes: int, low_bits: int) -> bytes:
    """The ``low_bits`` lowest bits of each little-endian word, most significant
    first, packed into bytes (whole bytes only)."""
    words = [int.from_bytes(data[i : i + word_bytes], "little") for i in range(0, len(data) - len(data) % word_bytes, word_bytes)]
    bits = "".join(format(w & ((1 << low_bits) - 1), f"0{low_bits}b") for w in words)
    return bytes(int(bits[i : i + 8], 2) for i in range(0, len(bits) - len(bits) % 8, 8))


# --------------------------------------------------------------------------
# randqa's own backends


def backend_bytes(name: str, seed: int | None, nbytes: int) -> np.ndarray:
    """``nbytes`` of randqa backend ``name`` seeded with ``seed``, read to the end, as uint8."""
    from randqa.sources.backends import open_backend
    from randqa.sources.base import read_full

    buffer = bytearray(nbytes)
    with open_backend(name, seed) as source:
        assert read_full(source, memoryview(buffer)) == nbytes
    return np.frombuffer(buffer, dtype=np.uint8)


def backend_stream(name: str, seed: int | None, nbytes: int) -> bytes:
    """backend_bytes as bytes."""
    return backend_bytes(name, seed, nbytes).tobytes()
