"""Python reference generators the tests check randqa against, each written
from its published definition, and helpers that read randqa's own backends.

Streams are written as randqa's backends write them: 32-bit outputs as 4
little-endian bytes, rand() & 0xffff as 2 bytes, rand() & 0xff as 1 byte.
Long streams are vectorised with numpy (jump-ahead by doubling the step
map), so no Python loop runs per output.

- PCG64: numpy's own.
- LCGs: RANDU, MINSTD and MSVC rand() by one affine map (any modulus up to
  2^32); any modulus as Python integers; java.util.Random (the JDK's
  constants in java/util/Random.java: the seed is scrambled as
  (seed ^ 0x5DEECE66D) & (2^48 - 1), next(bits) steps
  seed = (seed * 0x5DEECE66D + 0xB) & (2^48 - 1) and returns
  (int)(seed >>> (48 - bits)); nextBytes writes each nextInt() least
  significant byte first); Knuth's MMIX (TAOCP vol. 2, 3.3.4, table 1,
  line 26), its high 32 bits.
- glibc rand() (TYPE_3 additive feedback) after srand().
- GF(2)-linear: xorshift32 and xorshift128 (Marsaglia 2003), L'Ecuyer's
  LFSR113 (four Tausworthe components, as Linux's prandom), the bit LFSR of
  the trinomial x^31 + x^28 + 1.
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


# --------------------------------------------------------------------------
# linear congruential generators


def affine_sequence(a: int, c: int, m: int, x0: int, count: int) -> np.ndarray:
    """x_1..x_count of x -> (a x + c) mod m (m <= 2^32), doubling the affine map each round."""
    out = np.empty(count, dtype=np.uint64)
    out[0] = (a * x0 + c) % m
    have, big_a, big_c = 1, a % m, c % m  # the map of `have` steps
    while have < count:
        take = min(have, count - have)
        out[have : have + take] = (np.uint64(big_a) * out[:take] + np.uint64(big_c)) % np.uint64(m)
        big_a, big_c = big_a * big_a % m, (big_a * big_c + big_c) % m
        have += take
    return out


def msvc_rand(count: int, seed: int = 1) -> np.ndarray:
    """MSVC rand(): x = x*214013 + 2531011 mod 2^32, output (x >> 16) & 0x7fff."""
    x = affine_sequence(214013, 2531011, 2**32, seed, count)
    return ((x >> np.uint64(16)) & np.uint64(0x7FFF)).astype(np.uint32)


def msvc_rand_low_bytes(n: int, seed: int = 1) -> bytes:
    """n bytes of MSVC rand()'s low byte."""
    return (msvc_rand(n, seed) & 0xFF).astype(np.uint8).tobytes()


def lcg_bytes(x0: int, a: int, c: int, m: int, count: int, word_bytes: int) -> bytes:
    """x_1 .. x_count of x = a x + c mod m, any modulus, as little-endian words."""
    x, out = x0, bytearray()
    for _ in range(count):
        x = (a * x + c) % m
        out += x.to_bytes(word_bytes, "little")
    return bytes(out)


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
# GF(2)-linear generators


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


def xorshift128_words(segments: int, words_per_segment: int, seed: int = 2024) -> np.ndarray:
    """Marsaglia's xorshift128 (2003), 32-bit outputs: ``segments`` runs of
    ``words_per_segment`` consecutive outputs from random starting states
    (all states lie on the generator's single cycle, so each run is a piece
    of the one stream).  The segments step together: one numpy operation
    per output position, none per value."""
    x, y, z, w = np.random.default_rng(seed).integers(1, 2**32, size=(4, segments), dtype=np.uint32)
    out = np.empty((words_per_segment, segments), dtype=np.uint32)
    for i in range(words_per_segment):
        t = x ^ (x << np.uint32(11))
        x, y, z = y, z, w
        w = w ^ (w >> np.uint32(19)) ^ t ^ (t >> np.uint32(8))
        out[i] = w
    return out.T.copy()


def lfsr_bits(nbits: int, taps: tuple[int, int] = (31, 28), seed: int = 99) -> np.ndarray:
    """s_t = s_(t-31) xor s_(t-28), the primitive trinomial x^31 + x^28 + 1,
    filled 28 bits per numpy step."""
    long_lag, short_lag = taps
    s = np.empty(nbits, dtype=np.uint8)
    s[:long_lag] = np.random.default_rng(seed).integers(0, 2, long_lag)
    s[0] = 1
    for t in range(long_lag, nbits, short_lag):
        stop = min(t + short_lag, nbits)
        s[t:stop] = s[t - long_lag : stop - long_lag] ^ s[t - short_lag : stop - short_lag]
    return s


# --------------------------------------------------------------------------
# streams by backend name


def reference_stream(name: str, nbytes: int, seed: int = 1) -> np.ndarray:
    """``nbytes`` of the named generator, as its randqa backend writes it (uint8)."""
    words32 = nbytes // 4 + 1
    if name == "randu":
        out = affine_sequence(65539, 0, 2**31, seed | 1, words32).astype("<u4")
    elif name == "minstd":
        out = affine_sequence(16807, 0, 2**31 - 1, seed, words32).astype("<u4")
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
