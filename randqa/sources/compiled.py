"""Backends whose generators run in randqa's own C code (``_generators.c``).

Each backend's ``--seed N`` goes through the original's seeding routine
(glibc ``srand``, MSVC ``srand``, ``init_genrand``, the kernel's
``prandom_seed_state``...), so the bytes equal the C original's; the
``output`` and ``seeding`` strings below are what ``randqa list`` and the
JSON report say about each.
"""

from __future__ import annotations

import os
from typing import Any, Callable

import numpy as np

from randqa.errors import UsageError
from randqa.sources import _generators, _jump
from randqa.sources.base import GeneratorSource, Source
from randqa.sources.jumps import lcg_jump, mt19937_jump

#: arc4-drop's default: the 3072 bytes RFC 4345 and Mironov's analysis suggest
DEFAULT_ARC4_DROP = 3072


def draw_seed(bits: int) -> int:
    """A fresh seed of ``bits`` bits from the OS, to be recorded."""
    return int.from_bytes(os.urandom((bits + 7) // 8), "little") & ((1 << bits) - 1)


def resolve_seed(name: str, seed: int | None, bits: int, why: str, draw_bits: int = 64) -> int:
    """``seed`` checked against the routine's width (``bits``), or, when None,
    ``min(bits, draw_bits)`` bits drawn from the OS."""
    if seed is None:
        return draw_seed(min(bits, draw_bits))
    if seed < 0 or seed >= 1 << bits:
        raise UsageError(f"--seed for {name} must be in [0, 2**{bits}) ({why})")
    return seed


def key_from_seed(seed: int) -> bytes:
    """RC4 key bytes for a seed: little-endian, at least 8 bytes (seed 1 -> 01 00 .. 00)."""
    return seed.to_bytes(max(8, (seed.bit_length() + 7) // 8), "little")


#: moves a compiled source, not read inside a word, that many words ahead
Jumper = Callable[["CompiledSource", int], None]


class CompiledSource(GeneratorSource):
    """A Source reading a compiled ``_generators.Generator``; ``jumper``
    (None: it cannot jump) is its generator's own jump."""

    def __init__(self, name: str, seed: int, generator: Any, *, output: str, seeding: str,
                 params: dict[str, Any] | None = None, jumper: Jumper | None = None) -> None:
        self.name = name
        self.seed = seed
        self.generator = generator
        self.output = output
        self.seeding = seeding
        self.params = dict(params or {})
        self.jumper = jumper
        self.word_bytes = int(generator.word_bytes)

    @property
    def can_jump(self) -> bool:
        return self.jumper is not None

    def _jump(self, words: int) -> None:
        assert self.jumper is not None
        self.jumper(self, words)

    def readinto(self, buffer: memoryview) -> int:
        self.generator.fill(buffer)
        return len(buffer)

    def describe(self) -> dict[str, Any]:
        data = super().describe()
        data.update(reproducible=True, algorithm=self.generator.algorithm, output=self.output,
                    seeding=self.seeding, **self.params)
        return data


Opener = Callable[[int | None, str | None], Source]


def _simple(name: str, bits: int, why: str, make: Callable[[int], Any], output: str, seeding: str,
            draw_bits: int = 64, jump: Jumper | None = None) -> Opener:
    def open_(seed: int | None, param: str | None) -> Source:
        s = resolve_seed(name, seed, bits, why, draw_bits)
        return CompiledSource(name, s, make(s), output=output, seeding=seeding, jumper=jump)

    return open_


# --------------------------------------------------------------------------
# Jumps.  Generator.state() is the C union's raw bytes; each generator's
# struct starts at offset 0 (see _generators.c): glibc hist[31] uint32; LCG15
# x, a, c uint32; u32 x; u64 x; MT mt[624] uint32 then int idx; LFSR113
# s1..s4 uint32; lcg128 hi, lo uint64.


def _state_words(generator: Any, dtype: str, count: int) -> np.ndarray:
    return np.frombuffer(generator.state(), dtype=np.dtype(dtype), count=count).copy()


class _Repositioned:
    """A generator made from a jumped state, reporting the original's algorithm
    so the source's report is the same whichever way it was reached."""

    def __init__(self, generator: Any, algorithm: str) -> None:
        self._generator = generator
        self.fill = generator.fill
        self.state = generator.state
        self.word_bytes = generator.word_bytes
        self.algorithm = algorithm


def _replace_generator(source: CompiledSource, made: Any, expected_state: np.ndarray, dtype: str) -> None:
    check = _state_words(made, dtype, len(expected_state))
    if not np.array_equal(check, expected_state):  # the seeding routine altered the state it was given
        raise RuntimeError(f"{source.name}: the jumped state did not survive being set")
    source.generator = _Repositioned(made, source.generator.algorithm)


def _lcg(constants: tuple[int, int, int], dtype: str, remake: Callable[[int, int], Any]) -> Jumper:
    """The closed-form jump of an LCG whose one state word is its value; ``remake(x, word_bytes)`` starts it at x."""
    a, c, modulus = constants

    def jump(source: CompiledSource, words: int) -> None:
        x = lcg_jump(int(_state_words(source.generator, dtype, 1)[0]), a, c, modulus, words)
        _replace_generator(source, remake(x, source.generator.word_bytes), np.array([x], dtype=dtype), dtype)

    return jump


def _xorshift32(source: CompiledSource, words: int) -> None:
    x = _jump.xorshift32(int(_state_words(source.generator, "=u4", 1)[0]), words)
    _replace_generator(source, _generators.xorshift32(x), np.array([x], dtype="=u4"), "=u4")


def _lfsr113(source: CompiledSource, words: int) -> None:
    s = _jump.lfsr113(*(int(v) for v in _state_words(source.generator, "=u4", 4)), words)
    _replace_generator(source, _generators.lfsr113_raw(*s), np.array(s, dtype="=u4"), "=u4")


def _mt19937(source: CompiledSource, words: int) -> None:
    raw = source.generator.state()
    key = np.frombuffer(raw, dtype="=u4", count=624)
    pos = int(np.frombuffer(raw, dtype="=i4", count=1, offset=4 * 624)[0])
    out = mt19937_jump(key, pos, words)
    _replace_generator(source, _generators.mt19937_raw(out.tolist(), 0), out, "=u4")


def _glibc(source: CompiledSource, words: int) -> None:
    hist = _state_words(source.generator, "=u4", 31)
    out = np.empty(31, dtype=np.uint32)
    _jump.glibc_additive(hist, words, out)
    mode = {4: 0, 1: 1, 2: 2}[source.generator.word_bytes]
    _replace_generator(source, _generators.glibc_rand_raw(out.tolist(), mode), out, "=u4")


def _pcg128_constants() -> tuple[int, int, int]:
    mul_hi, mul_lo, inc_hi, inc_lo = _generators.LCG_PCG128_WORDS
    return (mul_hi << 64) | mul_lo, (inc_hi << 64) | inc_lo, 1 << 128


#: PCG's 128-bit LCG (pcg_variants.h PCG_DEFAULT_MULTIPLIER_128, PCG_DEFAULT_INCREMENT_128), from _generators.c
PCG128_MULTIPLIER, PCG128_INCREMENT, _ = _pcg128_constants()


def _lcg128(source: CompiledSource, words: int) -> None:
    hi, lo = (int(w) for w in _state_words(source.generator, "=u8", 2))
    x = lcg_jump((hi << 64) | lo, *_pcg128_constants(), words)
    top_bits = 8 * source.generator.word_bytes
    expected = np.array([x >> 64, x & ((1 << 64) - 1)], dtype="=u8")
    _replace_generator(source, _generators.lcg128_raw(x & ((1 << 64) - 1), x >> 64, top_bits), expected, "=u8")


def _one_word(factory: Callable[[int], Any]) -> Callable[[int, int], Any]:
    return lambda x, word_bytes: factory(x)


#: splitmix:B without B
DEFAULT_SPLITMIX_BITS = 48


def _narrow_splitmix(seed: int | None, param: str | None) -> Source:
    bits = DEFAULT_SPLITMIX_BITS
    if param is not None:
        try:
            bits = int(param)
        except ValueError:
            raise UsageError(f"splitmix:B needs a whole number of state bits, not {param!r}") from None
        if not 16 <= bits <= 64:
            raise UsageError(f"splitmix:B needs 16 <= B <= 64, not {bits}")
    s = resolve_seed("splitmix", seed, bits, f"the state is {bits} bits")
    gamma = (_generators.SPLITMIX64_GAMMA >> (64 - bits)) | 1  # the counter's step, as _generators.c narrow_splitmix_seed
    jump = _lcg((1, gamma, 1 << bits), "=u8", lambda x, word_bytes: _generators.narrow_splitmix(x, bits))
    return CompiledSource("splitmix" if param is None else f"splitmix:{bits}", s, _generators.narrow_splitmix(s, bits),
                          output=f"{bits}-bit outputs, each as 8 little-endian bytes",
                          seeding="state = seed", params={"bits": bits}, jumper=jump)


def _arc4_drop(seed: int | None, param: str | None) -> Source:
    if param is None:
        drop = DEFAULT_ARC4_DROP
    else:
        try:
            drop = int(param)
        except ValueError:
            raise UsageError(f"arc4-drop:N needs a whole number of bytes to drop, not {param!r}") from None
        if not 0 <= drop < 1 << 40:
            raise UsageError(f"arc4-drop:N needs 0 <= N < 2**40, not {drop}")
    s = resolve_seed("arc4-drop", seed, 2048, "RC4 keys are at most 256 bytes")
    name = "arc4-drop" if param is None else f"arc4-drop:{drop}"
    return CompiledSource(name, s, _generators.rc4(key_from_seed(s), drop),
                          output="RC4 keystream bytes after the first N", seeding="RC4 key = seed as >= 8 little-endian bytes",
                          params={"drop": drop})


LE4 = "each output as 4 little-endian bytes"
#: PCG's seeding of its 128-bit LCG (pcg_variants.h, pcg_oneseq_128_srandom_r)
PCG128_SEEDING = ("pcg_oneseq_128_srandom_r(seed): state = 0, one step, state += seed, one step "
                  f"(multiplier 0x{PCG128_MULTIPLIER:032X}, increment 0x{PCG128_INCREMENT:032X})")
GLIBC_SEEDING = "glibc srand(seed) (0 acts as 1), 310 outputs discarded"
MSVC_SEEDING = "MSVC srand(seed): state = seed"
_MSVC_JUMP = _lcg(_generators.LCG_MSVC, "=u4", _generators.msvc_rand)
BYTE_PER_CALL = "rand() & 0xff, one call per byte"
SHORT15_PER_CALL = "rand() (15 bits) as 2 little-endian bytes per call; bit 15 is always 0"


def _c_rand(name: str, rand: Callable[[int, int], Any], mode: int, output: str, seeding: str, jump: Jumper) -> Opener:
    """A C library's rand() after srand(seed), seed an unsigned int; ``mode``, the kernel's second
    argument, says what a call writes (1: its low byte, 2: two little-endian bytes; glibc's 0: the value as 4)."""
    return _simple(name, 32, "srand takes an unsigned int", lambda s: rand(s, mode), output, seeding, jump=jump)


#: name -> (one-line summary, opener); the order is the order of `randqa list`
COMPILED: dict[str, tuple[str, Opener]] = {
    "glibc-rand": (
        "glibc rand() (TYPE_3 additive feedback, srand discards 310): 31-bit outputs as 4 LE bytes, bit 31 always 0",
        _c_rand("glibc-rand", _generators.glibc_rand, 0, f"31-bit rand() values, {LE4}", GLIBC_SEEDING, _glibc)),
    "glibc-rand-byte": (
        "glibc rand() & 0xff, one call per byte (nmap's Windows-style rand_byte)",
        _c_rand("glibc-rand-byte", _generators.glibc_rand, 1, BYTE_PER_CALL, GLIBC_SEEDING, _glibc)),
    "glibc-rand-short": (
        "glibc rand() & 0xffff as 2 LE bytes per call (nmap's *nix-style rand_short)",
        _c_rand("glibc-rand-short", _generators.glibc_rand, 2, "rand() & 0xffff as 2 little-endian bytes per call",
                GLIBC_SEEDING, _glibc)),
    "msvc-rand-byte": (
        "MSVC rand() (x = 214013x + 2531011, 15-bit outputs) & 0xff, one call per byte",
        _c_rand("msvc-rand-byte", _generators.msvc_rand, 1, BYTE_PER_CALL, MSVC_SEEDING, _MSVC_JUMP)),
    "msvc-rand-short": (
        "MSVC rand() as 2 LE bytes per call: 15-bit values, so bit 15 of every short is 0",
        _c_rand("msvc-rand-short", _generators.msvc_rand, 2, SHORT15_PER_CALL, MSVC_SEEDING, _MSVC_JUMP)),
    "ansi-c-rand": (
        "the C standard's example rand() (x = 1103515245x + 12345, 15 bits) as 2 LE bytes per call",
        _c_rand("ansi-c-rand", _generators.ansi_c_rand, 2, SHORT15_PER_CALL, "srand(seed): next = seed",
                _lcg(_generators.LCG_ANSI_C, "=u4", _generators.ansi_c_rand))),
    "randu": (
        "IBM RANDU x = 65539x mod 2^31, the infamous bad LCG: 31-bit outputs as 4 LE bytes",
        _simple("randu", 32, "the state is 31 bits", _generators.randu,
                f"31-bit values, {LE4}", "x0 = (seed mod 2^31) | 1 (RANDU needs an odd state)", jump=_lcg(_generators.LCG_RANDU, "=u4", _one_word(_generators.randu)))),
    "minstd": (
        "MINSTD, Park-Miller x = 16807x mod (2^31-1): outputs in [1, 2^31-2] as 4 LE bytes",
        _simple("minstd", 32, "the state is below 2^31", _generators.minstd,
                f"values in [1, 2^31-2], {LE4}", "x0 = seed mod (2^31-1), 0 -> 1 (as C++ minstd_rand)", jump=_lcg(_generators.LCG_MINSTD, "=u4", _one_word(_generators.minstd)))),
    "mt19937": (
        "Mersenne Twister MT19937 seeded by init_genrand(seed): 32-bit outputs as 4 LE bytes",
        _simple("mt19937", 32, "init_genrand takes a 32-bit seed", _generators.mt19937,
                LE4, "init_genrand(seed)", jump=_mt19937)),
    "xorshift32": (
        "Marsaglia's xorshift32 (13, 17, 5): 32-bit outputs as 4 LE bytes",
        _simple("xorshift32", 32, "the state is 32 bits", _generators.xorshift32,
                LE4, "x0 = seed; 0 (the fixed point) -> 2463534242", jump=_xorshift32)),
    "mmix-lcg": (
        "Knuth's MMIX LCG mod 2^64 (6364136223846793005, 1442695040888963407): top 32 bits as 4 LE bytes",
        _simple("mmix-lcg", 64, "the state is 64 bits", _generators.mmix_lcg,
                f"bits 63..32 of each new state, {LE4}", "state = seed")),
    "splitmix64": (
        "Vigna's SplitMix64: 64-bit outputs as 8 LE bytes",
        _simple("splitmix64", 64, "the state is 64 bits", _generators.splitmix64,
                "each output as 8 little-endian bytes", "state = seed", jump=_lcg((1, _generators.SPLITMIX64_GAMMA, 1 << 64), "=u8", _one_word(_generators.splitmix64)))),
    "lcg64-prime": (
        "multiplicative LCG mod 2^64-59 (L'Ecuyer's a = 13891176665706064842): full 64-bit outputs as 8 LE bytes",
        _simple("lcg64-prime", 64, "the state is below 2^64", _generators.lcg64_prime,
                "each new state, a value in [1, 2^64-60], as 8 little-endian bytes", "x0 = seed mod (2^64-59), 0 -> 1", jump=_lcg(_generators.LCG_PRIME64, "=u8", _one_word(_generators.lcg64_prime)))),
    "lcg128-top64": (
        "PCG's 128-bit LCG without its output permutation: the top 64 bits of each state as 8 LE bytes",
        _simple("lcg128-top64", 128, "pcg_oneseq_128_srandom_r takes a 128-bit initstate",
                lambda s: _generators.lcg128(s & (2**64 - 1), s >> 64, 64),
                "bits 127..64 of each new state, as 8 little-endian bytes", PCG128_SEEDING, draw_bits=128, jump=_lcg128)),
    "lcg128-top32": (
        "PCG's 128-bit LCG without its output permutation: the top 32 bits of each state as 4 LE bytes",
        _simple("lcg128-top32", 128, "pcg_oneseq_128_srandom_r takes a 128-bit initstate",
                lambda s: _generators.lcg128(s & (2**64 - 1), s >> 64, 32),
                f"bits 127..96 of each new state, {LE4}", PCG128_SEEDING, draw_bits=128, jump=_lcg128)),
    "lfib19937": (
        "additive lagged Fibonacci LFib(19937, 9842, +) mod 2^64: 64-bit outputs as 8 LE bytes",
        _simple("lfib19937", 64, "SplitMix64 takes a 64-bit seed", _generators.lfib19937,
                "each output as 8 little-endian bytes",
                "the 19937 lagged values are SplitMix64(seed)'s first outputs, the lowest bit of the oldest set")),
    "lfib19937-top32": (
        "the same lagged Fibonacci's top 32 bits as 4 LE bytes: its lowest output bit is not linear",
        _simple("lfib19937-top32", 64, "SplitMix64 takes a 64-bit seed", lambda s: _generators.lfib19937(s, 32),
                f"bits 63..32 of each output, {LE4}",
                "the 19937 lagged values are SplitMix64(seed)'s first outputs, the lowest bit of the oldest set")),
    "splitmix": (
        f"SplitMix64's algorithm on a B-bit state (splitmix:B, 16 <= B <= 64; default B = {DEFAULT_SPLITMIX_BITS}): "
        "its outputs never repeat within 2^B, the decimated collision test's scale model",
        _narrow_splitmix),
    "dnet-arc4": (
        "libdnet rand.c's ARC4 variant as nmap used it (rand_set keying twice, no bytes dropped)",
        _simple("dnet-arc4", 2048, "keys are at most 256 bytes", lambda s: _generators.dnet_arc4(key_from_seed(s)),
                "keystream bytes in rand_get() order (= rand_uint32() words written big-endian)",
                "rand_set(key): identity state, key mixed in twice; key = seed as >= 8 little-endian bytes")),
    "arc4": (
        "plain RC4 keystream, nothing dropped",
        _simple("arc4", 2048, "RC4 keys are at most 256 bytes", lambda s: _generators.rc4(key_from_seed(s), 0),
                "RC4 keystream bytes", "RC4 key = seed as >= 8 little-endian bytes")),
    "arc4-drop": (
        f"RC4 keystream after dropping the first N bytes (arc4-drop:N; default N = {DEFAULT_ARC4_DROP})",
        _arc4_drop),
    "lfsr113": (
        "Linux prandom_u32_state: L'Ecuyer LFSR113 with the kernel's minimum-seed fix-ups and warm-up",
        _simple("lfsr113", 64, "prandom_seed_state takes a u64", _generators.lfsr113,
                LE4, "prandom_seed_state(seed) (s1..s4 from one 32-bit fold, __seed minimums) + prandom_warmup "
                "(10 outputs, as the kernel's own seeders do; 5.10's prandom_seed_state alone has no warm-up)", jump=_lfsr113)),
    "siprand": (
        "Linux 5.10 siprand_u32: two SipRounds per output, returns v1+v3 (32 bits as 4 LE bytes)",
        _simple("siprand", 128, "the kernel keys it with two 64-bit words", lambda s: _generators.siprand(s & (2**64 - 1), s >> 64),
                LE4, "prandom_reseed: v0 = seed mod 2^64, v1 = seed >> 64, v2 = v0^K0, v3 = v1^K1, zero words -> ~0; noise 0",
                draw_bits=128)),
}
