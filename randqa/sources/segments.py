"""Opening a source at a byte offset, so that a long run can be cut into
contiguous segments and a worker given segment k gets exactly bytes
``[k*S, (k+1)*S)`` of the stream a one-process run reads.

How each source is split (:func:`split_method`):

- ``"pread"``: a regular file.  Each segment is read with ``pread``
  (:class:`PreadSource`), so readers share no file position.
- ``"jump"``: a generator whose state can be put ``N`` outputs ahead in
  O(log N) work.  The byte offset is cut into whole words, the generator
  jumps that many words, and the leading bytes of a split word are read and
  dropped.  How each one jumps:

  - numpy ``PCG64``, ``PCG64DXSM`` and randomgen ``AESCounter``,
    ``ThreeFry``, ``SPECK128``, ``Squares``, ``BlaBla``, ``MWC128X``,
    ``PCG32``: their own ``advance(n)``, which counts ``random_raw`` outputs;
  - numpy ``Philox``: ``advance(n)`` counts 4-word blocks, so it advances
    ``n // 4`` blocks and drops ``n % 4`` words;
  - randomgen ``ChaCha``: its counter (of 32-bit words) is set to the block
    holding the target, whose leading words are dropped;
  - ``msvc-rand-*``, ``ansi-c-rand``, ``randu``, ``minstd``, ``lcg64-prime``,
    ``splitmix64`` and ``splitmix:B`` (state + n * gamma) and ``lcg128-*`` (in
    Python integers):
    the closed-form LCG jump ``x -> A x + C``;
  - ``xorshift32`` and ``lfsr113`` (each of its four components): powers of
    the 32x32 bit matrix of one step;
  - ``mt19937``, ``mt19937-numpy`` and ``python-random`` (all MT19937),
    ``mt64`` (MT19937-64) and the randomgen ``xoshiro256``, ``xoshiro512``,
    ``xoroshiro128`` and ``xorshift1024``: ``x^n mod p(x)`` for the
    characteristic polynomial ``p`` of the state's recurrence, applied to the
    state by Horner's rule;
  - ``glibc-rand*``: its recurrence r[i] = r[i-3] + r[i-31] (mod 2^32)
    powered as ``x^n mod (x^31 - x^28 - 1)`` over Z/2^32.

  The arithmetic is in ``_jump.c``; tests/sources/test_segments.py checks
  every one against the sequential stream.
- ``"sequential"``: everything else (stdin, ``--format bits`` text, RC4 and
  its variants, siprand, lfib19937 (and -top32), sfc64, jsf, hc128, sfmt, lxm, romu, efiix64, tyche, a
  user's ``module:attr`` without a working ``advance``).  One producer must
  read or generate the stream in order and hand segments out.
- ``"independent"``: ``urandom``, ``getrandom``, ``openssl``.  No run of
  them can be repeated, so each worker may read its own.
"""

from __future__ import annotations

import os
import stat
from functools import lru_cache
from typing import Any, Callable, Literal

import numpy as np

from randqa.sources.base import Source, UnseededSource
from randqa.sources.compiled import PCG128_INCREMENT, PCG128_MULTIPLIER, PRIME64_MODULUS, PRIME64_MULTIPLIER

SplitMethod = Literal["jump", "pread", "sequential", "independent"]

#: every value split_method returns
SPLIT_METHODS: tuple[SplitMethod, ...] = ("jump", "pread", "sequential", "independent")


class NotSplittable(ValueError):
    """The source can only be read in order (its split method is "sequential")."""


# --------------------------------------------------------------------------
# Files


class PreadSource(Source):
    """Bytes ``[offset, offset + length)`` of a regular file (to its end when
    ``length`` is None), read with ``pread``: no file position is shared, so
    any number of readers can use one file side by side."""

    def __init__(self, path: str, offset: int = 0, length: int | None = None) -> None:
        from randqa.sources.streams import _open_input

        if offset < 0 or (length is not None and length < 0):
            raise ValueError("offset and length must be >= 0")
        self.fd, _owned, self.name = _open_input(path)
        if not _owned or not stat.S_ISREG(os.fstat(self.fd).st_mode):
            self.close()
            raise NotSplittable(f"{path}: not a regular file, so it can only be read in order")
        self.position = offset
        self.end = None if length is None else offset + length

    def readinto(self, buffer: memoryview) -> int:
        want = len(buffer) if self.end is None else max(0, min(len(buffer), self.end - self.position))
        if want == 0:
            return 0
        got = _pread_into(self.fd, memoryview(buffer)[:want], self.position)
        self.position += got
        return got

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _pread_into(fd: int, view: memoryview, offset: int) -> int:
    if hasattr(os, "preadv"):
        return os.preadv(fd, [view], offset)
    data = os.pread(fd, len(view), offset)
    view[: len(data)] = data
    return len(data)


# --------------------------------------------------------------------------
# Jumps.  Each jumper advances a source that has not been read from by a
# whole number of its words, in place.

Jumper = Callable[[Any, int], None]


@lru_cache(maxsize=1)
def _mt_poly() -> np.ndarray:
    from randqa.sources import _jump

    poly = np.zeros(_jump.MT_POLY_WORDS, dtype=np.uint64)
    _jump.mt19937_charpoly(poly)
    poly.setflags(write=False)
    return poly


def mt19937_jump(key: np.ndarray, pos: int, n: int) -> np.ndarray:
    """MT19937's mt[] (624 words) and index ``pos`` -> the mt[] whose outputs,
    from index 0, are the stream from ``n`` outputs on."""
    from randqa.sources import _jump

    out = np.empty(624, dtype=np.uint32)
    _jump.mt19937(np.ascontiguousarray(key, dtype=np.uint32), int(pos), int(n), _mt_poly(), out)
    return out


# -- randqa's compiled generators -------------------------------------------
# Generator.state() is the C union's raw bytes; each generator's struct
# starts at offset 0 (see _generators.c): glibc hist[31] uint32; LCG15 x, a, c
# uint32; u32 x; u64 x; MT mt[624] uint32 then int idx; LFSR113 s1..s4 uint32.


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


def _replace_generator(source: Any, made: Any, expected_state: np.ndarray, dtype: str) -> None:
    check = _state_words(made, dtype, len(expected_state))
    if not np.array_equal(check, expected_state):  # the seeding routine altered the state it was given
        raise RuntimeError(f"{source.name}: the jumped state did not survive being set")
    source.generator = _Repositioned(made, source.generator.algorithm)


def _compiled_lcg(a: int, c: int, modulus: int, dtype: str, remake: Callable[[int, int], Any]) -> Jumper:
    def jump(source: Any, words: int) -> None:
        from randqa.sources import _jump

        x = int(_state_words(source.generator, dtype, 1)[0])
        x = _jump.lcg(x, a, c, modulus, words)
        expected = np.array([x], dtype=dtype)
        _replace_generator(source, remake(x, source.generator.word_bytes), expected, dtype)

    return jump


def _compiled_xorshift32(source: Any, words: int) -> None:
    from randqa.sources import _generators, _jump

    x = _jump.xorshift32(int(_state_words(source.generator, "=u4", 1)[0]), words)
    _replace_generator(source, _generators.xorshift32(x), np.array([x], dtype="=u4"), "=u4")


def _compiled_lfsr113(source: Any, words: int) -> None:
    from randqa.sources import _generators, _jump

    s = _jump.lfsr113(*(int(v) for v in _state_words(source.generator, "=u4", 4)), words)
    _replace_generator(source, _generators.lfsr113_raw(*s), np.array(s, dtype="=u4"), "=u4")


def _compiled_mt19937(source: Any, words: int) -> None:
    from randqa.sources import _generators

    raw = source.generator.state()
    key = np.frombuffer(raw, dtype="=u4", count=624)
    pos = int(np.frombuffer(raw, dtype="=i4", count=1, offset=4 * 624)[0])
    out = mt19937_jump(key, pos, words)
    _replace_generator(source, _generators.mt19937_raw(out.tolist(), 0), out, "=u4")


def _compiled_glibc(source: Any, words: int) -> None:
    from randqa.sources import _generators, _jump

    hist = _state_words(source.generator, "=u4", 31)
    out = np.empty(31, dtype=np.uint32)
    _jump.glibc_additive(hist, words, out)
    mode = {4: 0, 1: 1, 2: 2}[source.generator.word_bytes]
    _replace_generator(source, _generators.glibc_rand_raw(out.tolist(), mode), out, "=u4")


def _compiled_lcg128(source: Any, words: int) -> None:
    from randqa.sources import _generators

    lo, hi = (int(w) for w in _state_words(source.generator, "=u8", 2)[::-1])  # the struct is hi, lo
    x = lcg_jump((hi << 64) | lo, PCG128_MULTIPLIER, PCG128_INCREMENT, 1 << 128, words)
    top_bits = 8 * source.generator.word_bytes
    expected = np.array([x >> 64, x & ((1 << 64) - 1)], dtype="=u8")
    _replace_generator(source, _generators.lcg128_raw(x & ((1 << 64) - 1), x >> 64, top_bits), expected, "=u8")


def lcg_jump(x: int, a: int, c: int, modulus: int, n: int) -> int:
    """x after n steps of x -> a x + c (mod ``modulus``), in Python integers
    (for moduli beyond _jump.lcg's 64 bits): the step map squared per bit of n."""
    big_a, big_c = 1, 0  # the map of the steps taken so far: x -> A x + C
    while n:
        if n & 1:
            big_a, big_c = big_a * a % modulus, (big_c * a + c) % modulus
        a, c = a * a % modulus, c * (a + 1) % modulus
        n >>= 1
    return (big_a * x + big_c) % modulus


def _remake(factory_name: str) -> Callable[[int, int], Any]:
    def remake(x: int, word_bytes: int) -> Any:
        from randqa.sources import _generators

        factory = getattr(_generators, factory_name)
        return factory(x, word_bytes) if factory_name in ("msvc_rand", "ansi_c_rand") else factory(x)

    return remake


@lru_cache(maxsize=None)
def _narrow_splitmix_jumper(bits: int) -> Jumper:
    gamma = (0x9E3779B97F4A7C15 >> (64 - bits)) | 1  # the counter's step, as _generators.c narrow_splitmix_seed

    def remake(x: int, word_bytes: int) -> Any:
        from randqa.sources import _generators

        return _generators.narrow_splitmix(x, bits)

    return _compiled_lcg(1, gamma, 1 << bits, "=u8", remake)


#: compiled backend name -> jumper
_COMPILED_JUMPERS: dict[str, Jumper] = {
    "glibc-rand": _compiled_glibc,
    "glibc-rand-byte": _compiled_glibc,
    "glibc-rand-short": _compiled_glibc,
    "msvc-rand-byte": _compiled_lcg(214013, 2531011, 1 << 32, "=u4", _remake("msvc_rand")),
    "msvc-rand-short": _compiled_lcg(214013, 2531011, 1 << 32, "=u4", _remake("msvc_rand")),
    "ansi-c-rand": _compiled_lcg(1103515245, 12345, 1 << 32, "=u4", _remake("ansi_c_rand")),
    "randu": _compiled_lcg(65539, 0, 1 << 31, "=u4", _remake("randu")),
    "minstd": _compiled_lcg(16807, 0, (1 << 31) - 1, "=u4", _remake("minstd")),
    "splitmix64": _compiled_lcg(1, 0x9E3779B97F4A7C15, 1 << 64, "=u8", _remake("splitmix64")),
    "lcg64-prime": _compiled_lcg(PRIME64_MULTIPLIER, 0, PRIME64_MODULUS, "=u8", _remake("lcg64_prime")),
    "lcg128-top64": _compiled_lcg128,
    "lcg128-top32": _compiled_lcg128,
    "xorshift32": _compiled_xorshift32,
    "lfsr113": _compiled_lfsr113,
    "mt19937": _compiled_mt19937,
}


# -- numpy / randomgen BitGenerators ---------------------------------------


def _advance_by(unit: int) -> Jumper:
    """``advance(n)`` counting blocks of ``unit`` raw outputs; the rest are drawn and dropped."""

    def jump(source: Any, words: int) -> None:
        blocks, rest = divmod(words, unit)
        if blocks:
            source.bitgen.advance(blocks)
        if rest:
            source.bitgen.random_raw(rest)

    return jump


def _numpy_philox(source: Any, words: int) -> None:
    # advance(n) moves the counter n blocks of 4 words and drops the buffered
    # rest of the current block, so finish that block by drawing first
    left_in_block = 4 - int(source.bitgen.state["buffer_pos"])
    first = min(words, left_in_block % 4)
    if first:
        source.bitgen.random_raw(first)
    _advance_by(4)(source, words - first)


def _numpy_mt19937(source: Any, words: int) -> None:
    state = source.bitgen.state
    inner = state["state"]
    key = mt19937_jump(inner["key"], int(inner["pos"]), words)
    source.bitgen.state = dict(state, state={"key": key, "pos": 0})


@lru_cache(maxsize=None)
def _f2_poly(kind: str) -> np.ndarray:
    from randqa.sources import _jump

    poly = np.zeros(_jump.F2_KINDS[kind][1], dtype=np.uint64)
    _jump.f2_charpoly(kind, poly)
    poly.setflags(write=False)
    return poly


def f2_jump(kind: str, state: np.ndarray, n: int) -> np.ndarray:
    """The state (uint64 words) of a GF(2)-linear generator of ``_jump.F2_KINDS``, ``n`` steps on."""
    from randqa.sources import _jump

    out = np.empty(_jump.F2_KINDS[kind][0], dtype=np.uint64)
    _jump.f2_jump(kind, np.ascontiguousarray(state, dtype=np.uint64), int(n), _f2_poly(kind), out)
    return out


def _randomgen_xoshiro(kind: str) -> Jumper:
    def jump(source: Any, words: int) -> None:
        state = source.bitgen.state
        s = f2_jump(kind, state["s"], words)
        source.bitgen.state = dict(state, s=s, has_uint32=0, uinteger=0)

    return jump


def _randomgen_xoroshiro128(source: Any, words: int) -> None:
    state = source.bitgen.state
    kind = "xoroshiro128pp" if state.get("plusplus") else "xoroshiro128"
    source.bitgen.state = dict(state, s=f2_jump(kind, state["s"], words), has_uint32=0, uinteger=0)


def _randomgen_xorshift1024(source: Any, words: int) -> None:
    # the next output comes from s[p], s[p+1]: jump the window that starts at p
    state = source.bitgen.state
    inner = state["state"]
    window = np.roll(np.asarray(inner["s"], dtype=np.uint64), -int(inner["p"]))
    s = f2_jump("xorshift1024", window, words)
    source.bitgen.state = dict(state, state={"s": s, "p": 0}, has_uint32=0, uinteger=0)


def _randomgen_mt64(source: Any, words: int) -> None:
    from randqa.sources import _jump

    state = source.bitgen.state
    inner = state["state"]
    window = np.empty(312, dtype=np.uint64)
    _jump.mt19937_64_window(np.ascontiguousarray(inner["key"], dtype=np.uint64), int(inner["pos"]), window)
    key = f2_jump("mt19937-64", window, words)
    source.bitgen.state = dict(state, state={"key": key, "pos": 0}, has_uint32=0, uinteger=0)


_CHACHA_BLOCK_WORDS32 = 16


def _randomgen_chacha(source: Any, words: int) -> None:
    # ctr counts 32-bit words over 128 bits; a block of 16 is computed when
    # ctr reaches a multiple of 16, so place ctr at the target's block and
    # drop the target's leading words in it
    state = source.bitgen.state
    inner = state["state"]
    ctr = int(inner["ctr"][0]) | int(inner["ctr"][1]) << 64
    if ctr % 2:
        raise NotSplittable("ChaCha's counter is inside a 64-bit word")
    target = (ctr + 2 * words) % (1 << 128)
    block_start = target - target % _CHACHA_BLOCK_WORDS32
    new_ctr = np.array([block_start & (2**64 - 1), block_start >> 64], dtype=np.uint64)
    source.bitgen.state = dict(state, state=dict(inner, ctr=new_ctr))
    drop = (target - block_start) // 2
    if drop:
        source.bitgen.random_raw(drop)


def _bitgen_jumpers() -> dict[type, Jumper]:
    import randomgen

    table: dict[type, Jumper] = {
        np.random.PCG64: _advance_by(1),
        np.random.PCG64DXSM: _advance_by(1),
        np.random.Philox: _numpy_philox,
        np.random.MT19937: _numpy_mt19937,
    }
    for name in ("AESCounter", "ThreeFry", "SPECK128", "Squares", "BlaBla", "MWC128X", "PCG32"):
        cls = getattr(randomgen, name, None)
        if cls is not None:
            table[cls] = _advance_by(1)
    for name, jumper in (("Xoshiro256", _randomgen_xoshiro("xoshiro256")),
                         ("Xoshiro512", _randomgen_xoshiro("xoshiro512")),
                         ("Xoroshiro128", _randomgen_xoroshiro128), ("Xorshift1024", _randomgen_xorshift1024),
                         ("MT64", _randomgen_mt64)):
        cls = getattr(randomgen, name, None)
        if cls is not None:
            table[cls] = jumper
    chacha = getattr(randomgen, "ChaCha", None)
    if chacha is not None:
        table[chacha] = _randomgen_chacha
    return table


@lru_cache(maxsize=1)
def _known_bitgen_jumpers() -> dict[type, Jumper]:
    try:
        return _bitgen_jumpers()
    except ImportError:  # randomgen missing: numpy's own still jump
        return {np.random.PCG64: _advance_by(1), np.random.PCG64DXSM: _advance_by(1),
                np.random.Philox: _numpy_philox, np.random.MT19937: _numpy_mt19937}


def _advance_counts_outputs(spec: str, seed: int | None) -> bool:
    """Whether a user's BitGenerator's ``advance(n)`` skips exactly n ``random_raw``
    outputs, checked on fresh generators rather than assumed."""
    from randqa.sources.numpy_backends import open_user_bitgenerator

    reference = open_user_bitgenerator(spec, seed).bitgen.random_raw(48)
    for n in (3, 37):
        probe = open_user_bitgenerator(spec, seed).bitgen
        probe.advance(n)
        if not np.array_equal(probe.random_raw(8), reference[n:n + 8]):
            return False
    return True


def _python_random(source: Any, words: int) -> None:
    version, internal, gauss = source._rng.getstate()
    key = mt19937_jump(np.array(internal[:624], dtype=np.uint32), internal[624], words)
    source._rng.setstate((version, tuple(int(v) for v in key) + (0,), gauss))


# --------------------------------------------------------------------------
# Dispatch


def _jumper(source: Source) -> Jumper | None:
    from randqa.sources.compiled import CompiledSource
    from randqa.sources.numpy_backends import BitGeneratorSource, PythonRandomSource, looks_like_module_attribute

    if isinstance(source, CompiledSource):
        if "bits" in source.params:  # splitmix:B
            return _narrow_splitmix_jumper(source.params["bits"])
        return _COMPILED_JUMPERS.get(source.name)
    if isinstance(source, PythonRandomSource):
        return _python_random
    if isinstance(source, BitGeneratorSource):
        known = _known_bitgen_jumpers().get(type(source.bitgen))
        if known is not None:
            return known
        if (hasattr(source.bitgen, "advance") and looks_like_module_attribute(source.name)
                and _advance_counts_outputs(source.name, source.seed)):
            return _advance_by(1)
    return None


def split_method(source: Source) -> SplitMethod:
    """How segments of ``source``'s stream can be produced: "pread" (a regular
    file), "jump" (a generator that can be placed at any offset), "independent"
    (not reproducible: each worker may read its own) or "sequential" (only in
    order, by one producer)."""
    from randqa.sources.folded import FoldedSource
    from randqa.sources.streams import ByteStream

    from randqa.sources.multistream import MultiStreamSource

    if isinstance(source, FoldedSource):
        return split_method(source.inner)
    if isinstance(source, MultiStreamSource):
        # a segment needs every stream at its place
        return "jump" if all(split_method(m) == "jump" for m in source.members) else "sequential"
    if isinstance(source, UnseededSource):
        return "independent"
    if isinstance(source, ByteStream):
        reader = source._reader
        if reader._owned and reader.fd >= 0 and stat.S_ISREG(os.fstat(reader.fd).st_mode):
            return "pread"
        return "sequential"
    if source.endless and _jumper(source) is not None:
        return "jump"
    return "sequential"


def can_jump(source: Source) -> bool:
    """Whether randqa can move generator ``source`` ahead in O(log N) (advance_words)."""
    return _jumper(source) is not None


def advance_words(source: Source, words: int) -> None:
    """Move a generator source ``words`` of its words ahead, in place, in
    O(log words) work.  The source must be between words (not inside one)."""
    if words < 0:
        raise ValueError("words must be >= 0")
    jumper = _jumper(source)
    if jumper is None:
        raise NotSplittable(f"{source.name} cannot jump: it can only be generated in order")
    if words:
        jumper(source, words)


def word_bytes(source: Source) -> int:
    """Bytes per output word of a generator source."""
    generator = getattr(source, "generator", None)
    if generator is not None:
        return int(generator.word_bytes)
    return int(getattr(source, "word_bytes", 4))  # BitGeneratorSource; python-random writes 4


def open_at(spec: str, seed: int | None, offset: int, *, fmt: str = "bytes",
            length: int | None = None, streams: dict[str, Any] | None = None) -> Source:
    """A fresh source reading the stream of ``spec`` (with ``seed``, the seed
    the one-process run recorded) from byte ``offset`` on.

    A file is read with pread (at most ``length`` bytes when given); a
    generator that can jump is placed there; an independent source (urandom,
    ...) is simply opened afresh, since no run of it can be repeated.  A
    sequential source raises :class:`NotSplittable`.  With ``streams`` (a
    StreamLayout's JSON, the interleave resolved) it is the interleaved
    stream of that many streams of ``spec``, each jumped to its place.
    """
    from randqa.sources import is_data_spec, open_source

    if offset < 0:
        raise ValueError("offset must be >= 0")
    if streams is not None:
        from randqa.sources.multistream import StreamLayout, open_streams

        if seed is None:
            raise ValueError("open_at needs the seed the run recorded: without one each worker would draw its own")
        return open_streams(spec, seed, StreamLayout.from_json(streams), offset)
    if is_data_spec(spec):
        if fmt != "bytes" or spec == "-":
            raise NotSplittable(f"{'stdin' if spec == '-' else spec}: can only be read in order")
        return PreadSource(spec, offset, length)
    source = open_source(spec, fmt=fmt, seed=seed)
    method = split_method(source)
    if method == "independent":
        return source
    if method != "jump":
        source.close()
        raise NotSplittable(f"{source.name} cannot jump: it can only be generated in order")
    if seed is None:
        source.close()
        raise ValueError("open_at needs the seed the run recorded: without one each worker would draw its own")
    words, skip = divmod(offset, word_bytes(source))
    advance_words(source, words)
    if skip:
        scratch = bytearray(skip)
        source.readinto(memoryview(scratch))
    return source
