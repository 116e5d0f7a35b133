"""Backends made from numpy/randomgen BitGenerators.

A BitGenerator's stream is its ``random_raw(n)`` words, written as
little-endian uint64 (8 bytes per word), or as little-endian uint32 for the
generators whose raw outputs are 32-bit (``mt19937-numpy``, ``pcg32``), so
no byte is constant.  Seeding is ``Class(seed)``, i.e. numpy's
``SeedSequence(seed)``.

Each BitGenerator class randqa can jump has its jump here
(:func:`bitgenerator_jump`): its own ``advance(n)`` where that counts raw
outputs, otherwise its state set to the one ``n`` outputs on.

A user's own generator is given as ``module:attribute`` (e.g.
``mypkg.gens:MyBitGenerator``): a BitGenerator class, or a callable
taking the seed and returning a BitGenerator instance (or a randqa Source).
randqa imports that module and runs its code.  What the code returns is
checked at every call: ``random_raw`` must give a non-empty array of integer
words, a Source's ``readinto`` a count from 0 to the buffer's length; an
exception or anything else ends the run with one InputError line instead of
a traceback, zeros from cast floats, or an endless loop.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

import numpy as np

from randqa.errors import InputError, UsageError
from randqa.sources.base import GeneratorSource, Source
from randqa.sources.user_code import USER_CODE_ERRORS, CheckedSource, exception_line
from randqa.sources.compiled import resolve_seed
from randqa.sources.jumps import f2_jump, mt19937_64_jump, mt19937_jump

#: words generated per random_raw call, bounding temporary memory
_MAX_WORDS_PER_CALL = 1 << 17

#: name -> (one-line summary, "module:Class", raw word bytes, keyword arguments)
BITGENERATORS: dict[str, tuple[str, str, int, dict[str, Any]]] = {
    "pcg64": ("numpy PCG64 (PCG XSL-RR 128/64), numpy's default: 64-bit words as 8 LE bytes", "numpy.random:PCG64", 8, {}),
    "pcg64dxsm": ("numpy PCG64DXSM (128-bit LCG, DXSM output): 64-bit words as 8 LE bytes", "numpy.random:PCG64DXSM", 8, {}),
    "philox": ("numpy Philox-4x64-10 counter-based (Random123): 64-bit words as 8 LE bytes", "numpy.random:Philox", 8, {}),
    "sfc64": ("numpy SFC64, small fast chaotic: 64-bit words as 8 LE bytes", "numpy.random:SFC64", 8, {}),
    "mt19937-numpy": ("numpy MT19937 seeded via SeedSequence (not init_genrand): 32-bit words as 4 LE bytes", "numpy.random:MT19937", 4, {}),
    "chacha": ("randomgen ChaCha20 in counter mode: 64-bit words as 8 LE bytes", "randomgen:ChaCha", 8, {"rounds": 20}),
    "aes-ctr": ("randomgen AESCounter, AES-128 in counter mode (AES-NI if present): 8 LE bytes per word", "randomgen:AESCounter", 8, {}),
    "xoshiro256": ("randomgen xoshiro256** (Blackman & Vigna): 64-bit words as 8 LE bytes", "randomgen:Xoshiro256", 8, {}),
    "xoshiro512": ("randomgen xoshiro512** (Blackman & Vigna): 64-bit words as 8 LE bytes", "randomgen:Xoshiro512", 8, {}),
    "xoroshiro128": ("randomgen xoroshiro128+ (low bits are weak): 64-bit words as 8 LE bytes", "randomgen:Xoroshiro128", 8, {}),
    "xorshift1024": ("randomgen xorshift1024*phi: 64-bit words as 8 LE bytes", "randomgen:Xorshift1024", 8, {}),
    "threefry": ("randomgen Threefry-4x64-20 counter-based: 64-bit words as 8 LE bytes", "randomgen:ThreeFry", 8, {}),
    "speck128": ("randomgen SPECK-128/256 in counter mode: 64-bit words as 8 LE bytes", "randomgen:SPECK128", 8, {}),
    "hc128": ("randomgen HC-128 stream cipher: 64-bit words as 8 LE bytes", "randomgen:HC128", 8, {}),
    "jsf": ("randomgen Jenkins small fast (64-bit): 8 LE bytes per word", "randomgen:JSF", 8, {}),
    "sfmt": ("randomgen SFMT19937 (SIMD-oriented Mersenne Twister): 64-bit words as 8 LE bytes", "randomgen:SFMT", 8, {}),
    "mt64": ("randomgen MT19937-64: 64-bit words as 8 LE bytes", "randomgen:MT64", 8, {}),
    "pcg32": ("randomgen PCG32 (XSH-RR 64/32): 32-bit words as 4 LE bytes", "randomgen:PCG32", 4, {}),
    "lxm": ("randomgen LXM (LCG + xorshift mix): 64-bit words as 8 LE bytes", "randomgen:LXM", 8, {}),
    "mwc128x": ("randomgen MWC128X (Vigna's multiply-with-carry): 64-bit words as 8 LE bytes", "randomgen:MWC128X", 8, {}),
    "romu": ("randomgen RomuQuad (nonlinear multiply-rotate): 64-bit words as 8 LE bytes", "randomgen:Romu", 8, {}),
    "efiix64": ("randomgen EFIIX64 (PractRand's efiix): 64-bit words as 8 LE bytes", "randomgen:EFIIX64", 8, {}),
    "tyche": ("randomgen Tyche (ChaCha-quarter-round based): 64-bit words as 8 LE bytes", "randomgen:Tyche", 8, {}),
    "squares": ("randomgen Squares (Widynski, counter-based): 64-bit words as 8 LE bytes", "randomgen:Squares", 8, {}),
    "blabla": ("randomgen BlaBla (BLAKE2-derived ChaCha variant): 64-bit words as 8 LE bytes", "randomgen:BlaBla", 8, {}),
}

_MODULE_ATTRIBUTE = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


def looks_like_module_attribute(spec: str) -> bool:
    """True for 'package.module:Attribute' specs (a user's BitGenerator)."""
    return bool(_MODULE_ATTRIBUTE.match(spec))


def _resolve(spec: str) -> Any:
    module_name, _, attribute = spec.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"cannot import module {module_name!r} for backend {spec!r} ({exc})") from None
    except USER_CODE_ERRORS as exc:  # noqa: BLE001 - the user's module failed while importing
        raise UsageError(f"backend {spec}: importing {module_name} raised {exception_line(exc)}") from None
    for part in attribute.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UsageError(f"module {module_name!r} has no attribute {attribute!r} (backend {spec!r})") from None
    return obj


def _checked_words(name: str, raw: Any, count: int) -> np.ndarray:
    """``raw`` as random_raw(count) returned it, if it is a non-empty array of
    integer words; InputError otherwise."""
    if not isinstance(raw, np.ndarray):
        raise InputError(f"backend {name}: random_raw({count}) returned {type(raw).__name__}, "
                         "not a numpy array of unsigned integer words")
    if raw.dtype.kind not in "ui":
        raise InputError(f"backend {name}: random_raw({count}) returned {raw.dtype} values, not unsigned integer "
                         "words (randqa tests the raw output bits, which floats do not carry)")
    if raw.size == 0:
        raise InputError(f"backend {name}: random_raw({count}) returned no words; a generator must not run dry")
    return raw.reshape(-1)


class _PendingBytes:
    """Whole words from a generator, with a split word's remainder kept."""

    def __init__(self) -> None:
        self.pending = b""

    def fill(self, buffer: memoryview, word_bytes: int, produce: Callable[[int], bytes | np.ndarray]) -> int:
        out = np.frombuffer(buffer, dtype=np.uint8)
        n = len(out)
        pos = min(n, len(self.pending))
        out[:pos] = np.frombuffer(self.pending[:pos], dtype=np.uint8)
        self.pending = self.pending[pos:]
        while pos < n:
            words = min(-(-(n - pos) // word_bytes), _MAX_WORDS_PER_CALL)
            data = produce(words)
            raw = np.frombuffer(data, dtype=np.uint8) if isinstance(data, bytes) else data.view(np.uint8)
            take = min(n - pos, len(raw))
            out[pos:pos + take] = raw[:take]
            pos += take
            if take < len(raw):
                self.pending = raw[take:].tobytes()
        return n


@dataclass(eq=False, repr=False)
class BitGeneratorSource(GeneratorSource):
    """The ``random_raw`` words of a numpy BitGenerator as little-endian bytes."""

    # field(): no default, though GeneratorSource's class attributes give one
    name: str = field()
    seed: int | None = field()
    bitgen: Any
    word_bytes: int = field()
    seeding: str = field(kw_only=True)

    def __post_init__(self) -> None:
        if not hasattr(self.bitgen, "random_raw"):
            raise UsageError(f"backend {self.name}: {type(self.bitgen).__name__} has no random_raw(); "
                             "need a numpy BitGenerator")
        self._buffer = _PendingBytes()
        self._dtype = np.dtype("<u8") if self.word_bytes == 8 else np.dtype("<u4")

    def _words(self, count: int) -> np.ndarray:
        try:
            raw = self.bitgen.random_raw(count)
        except USER_CODE_ERRORS as exc:  # noqa: BLE001 - the user's generator failed mid-stream
            raise InputError(f"backend {self.name}: random_raw({count}) raised {exception_line(exc)}") from None
        return _checked_words(self.name, raw, count).astype(self._dtype, copy=False)

    def readinto(self, buffer: memoryview) -> int:
        return self._buffer.fill(buffer, self.word_bytes, self._words)

    @property
    def can_jump(self) -> bool:
        return self._own_jump() is not None

    def _jump(self, words: int) -> None:
        jump = self._own_jump()
        assert jump is not None
        jump(self.bitgen, words)

    def _own_jump(self) -> BitGenJump | None:
        # looked up once: a user's generator is probed by running its code
        if not hasattr(self, "_jump_of_class"):
            self._jump_of_class = bitgenerator_jump(self.bitgen, self.name, self.seed)
        return self._jump_of_class

    def describe(self) -> dict[str, Any]:
        data = super().describe()
        cls = type(self.bitgen)
        data.update(reproducible=self.seed is not None, algorithm=f"{cls.__module__}.{cls.__qualname__}",
                    output=f"random_raw() words as {self.word_bytes} little-endian bytes", seeding=self.seeding)
        return data



def _any_size_seed(name: str, seed: int | None) -> int:
    """The seed to use for a generator that takes a seed of any size (64 bits drawn when none is given)."""
    return resolve_seed(name, seed, 1 << 16, "any size", 64)

def open_bitgenerator(name: str, seed: int | None) -> BitGeneratorSource:
    """One of :data:`BITGENERATORS`, seeded through SeedSequence(seed)."""
    summary, spec, word_bytes, kwargs = BITGENERATORS[name]
    cls = _resolve(spec)
    s = _any_size_seed(name, seed)
    return BitGeneratorSource(name, s, cls(s, **kwargs), word_bytes, seeding=f"{spec.replace(':', '.')}(seed) via SeedSequence")


def open_user_bitgenerator(spec: str, seed: int | None) -> Source:
    """``module:attribute``: a BitGenerator class or a callable seed -> BitGenerator (or Source)."""
    obj = _resolve(spec)
    if isinstance(obj, np.random.BitGenerator):
        raise UsageError(f"{spec} is a BitGenerator instance; give its class or a factory so --seed can apply")
    return open_bitgenerator_factory(spec, obj, seed)


def open_bitgenerator_factory(name: str, factory: Any, seed: int | None) -> Source:
    """A BitGenerator class, or a callable seed -> BitGenerator (or Source),
    called with ``seed`` (64 bits drawn when None); ``name`` names it in
    reports.  What the user's code returns is checked, at every call."""
    s = _any_size_seed(name, seed)
    if not callable(factory):
        raise UsageError(f"{name} is not a BitGenerator class or a callable")
    made = _construct(name, factory, s)
    if isinstance(made, Source):
        checked = CheckedSource(made)
        checked.name = name if made.name == Source.name else made.name
        checked.seed = s if made.seed is None else made.seed
        return checked
    if not hasattr(made, "random_raw"):
        raise UsageError(f"{name}({s}) returned {type(made).__name__}, not a BitGenerator or randqa Source")
    try:
        raw = made.random_raw(256)
    except USER_CODE_ERRORS as exc:  # noqa: BLE001
        raise UsageError(f"backend {name}: random_raw(256) raised {exception_line(exc)}") from None
    try:
        raw = _checked_words(name, raw, 256)
    except InputError as exc:
        raise UsageError(str(exc)) from None
    made = _construct(name, factory, s)  # fresh, so the stream starts at its beginning
    return BitGeneratorSource(name, s, made, raw_word_bytes(raw), seeding=f"{name}({s})")


def raw_word_bytes(raw: np.ndarray) -> int:
    """Bytes per word of a generator whose ``random_raw`` gave ``raw``: 32-bit
    generators return words below 2**32, written as 4 bytes so no byte is constant."""
    return 4 if int(np.max(raw.astype(np.uint64))) < 1 << 32 else 8


def _construct(spec: str, factory: Callable[[int], Any], seed: int) -> Any:
    try:
        return factory(seed)
    except USER_CODE_ERRORS as exc:  # noqa: BLE001 - the user's constructor failed
        raise UsageError(f"backend {spec}: {spec}({seed}) raised {exception_line(exc)}") from None


# --------------------------------------------------------------------------
# Jumps: each takes a BitGenerator that has not been read inside a word and
# moves it ``words`` raw outputs ahead.

BitGenJump = Callable[[Any, int], None]


def _advance_by(unit: int) -> BitGenJump:
    """``advance(n)`` counting blocks of ``unit`` raw outputs; the rest are drawn and dropped."""

    def jump(bitgen: Any, words: int) -> None:
        blocks, rest = divmod(words, unit)
        if blocks:
            bitgen.advance(blocks)
        if rest:
            bitgen.random_raw(rest)

    return jump


def _philox(bitgen: Any, words: int) -> None:
    # advance(n) moves the counter n blocks of 4 words and drops the buffered
    # rest of the current block, so finish that block by drawing first
    left_in_block = 4 - int(bitgen.state["buffer_pos"])
    first = min(words, left_in_block % 4)
    if first:
        bitgen.random_raw(first)
    _advance_by(4)(bitgen, words - first)


def _numpy_mt19937(bitgen: Any, words: int) -> None:
    state = bitgen.state
    inner = state["state"]
    key = mt19937_jump(inner["key"], int(inner["pos"]), words)
    bitgen.state = dict(state, state={"key": key, "pos": 0})


def _xoshiro(kind: str) -> BitGenJump:
    def jump(bitgen: Any, words: int) -> None:
        state = bitgen.state
        bitgen.state = dict(state, s=f2_jump(kind, state["s"], words), has_uint32=0, uinteger=0)

    return jump


def _xoroshiro128(bitgen: Any, words: int) -> None:
    state = bitgen.state
    kind = "xoroshiro128pp" if state.get("plusplus") else "xoroshiro128"
    bitgen.state = dict(state, s=f2_jump(kind, state["s"], words), has_uint32=0, uinteger=0)


def _xorshift1024(bitgen: Any, words: int) -> None:
    # the next output comes from s[p], s[p+1]: jump the window that starts at p
    state = bitgen.state
    inner = state["state"]
    window = np.roll(np.asarray(inner["s"], dtype=np.uint64), -int(inner["p"]))
    s = f2_jump("xorshift1024", window, words)
    bitgen.state = dict(state, state={"s": s, "p": 0}, has_uint32=0, uinteger=0)


def _mt64(bitgen: Any, words: int) -> None:
    state = bitgen.state
    inner = state["state"]
    key = mt19937_64_jump(inner["key"], int(inner["pos"]), words)
    bitgen.state = dict(state, state={"key": key, "pos": 0}, has_uint32=0, uinteger=0)


#: ChaCha computes a block of 16 32-bit words when its counter reaches a multiple of 16
_CHACHA_BLOCK_WORDS32 = 16


def _chacha(bitgen: Any, words: int) -> None:
    # ctr counts 32-bit words over 128 bits: place ctr at the target's block
    # and drop the target's leading words in it
    from randqa.sources.base import NotSplittable

    state = bitgen.state
    inner = state["state"]
    ctr = int(inner["ctr"][0]) | int(inner["ctr"][1]) << 64
    if ctr % 2:
        raise NotSplittable("ChaCha's counter is inside a 64-bit word")
    target = (ctr + 2 * words) % (1 << 128)
    block_start = target - target % _CHACHA_BLOCK_WORDS32
    new_ctr = np.array([block_start & (2**64 - 1), block_start >> 64], dtype=np.uint64)
    bitgen.state = dict(state, state=dict(inner, ctr=new_ctr))
    drop = (target - block_start) // 2
    if drop:
        bitgen.random_raw(drop)


#: "module:Class" -> its jump; a package that is missing simply has none
_JUMPS: dict[str, BitGenJump] = {
    "numpy.random:PCG64": _advance_by(1), "numpy.random:PCG64DXSM": _advance_by(1),
    "numpy.random:Philox": _philox, "numpy.random:MT19937": _numpy_mt19937,
    **{f"randomgen:{name}": _advance_by(1)
       for name in ("AESCounter", "ThreeFry", "SPECK128", "Squares", "BlaBla", "MWC128X", "PCG32")},
    "randomgen:Xoshiro256": _xoshiro("xoshiro256"), "randomgen:Xoshiro512": _xoshiro("xoshiro512"),
    "randomgen:Xoroshiro128": _xoroshiro128, "randomgen:Xorshift1024": _xorshift1024,
    "randomgen:MT64": _mt64, "randomgen:ChaCha": _chacha,
}


@lru_cache(maxsize=1)
def _jumps_by_class() -> dict[type, BitGenJump]:
    table: dict[type, BitGenJump] = {}
    for spec, jump in _JUMPS.items():
        module_name, _, attribute = spec.partition(":")
        try:
            cls = getattr(importlib.import_module(module_name), attribute, None)
        except ImportError:
            continue
        if cls is not None:
            table[cls] = jump
    return table


def _advance_counts_outputs(spec: str, seed: int | None) -> bool:
    """Whether a user's BitGenerator's ``advance(n)`` skips exactly n ``random_raw``
    outputs, checked on fresh generators rather than assumed."""
    def fresh() -> Any:
        source = open_user_bitgenerator(spec, seed)
        return source.bitgen if isinstance(source, BitGeneratorSource) else None

    reference = fresh().random_raw(48)
    for n in (3, 37):
        probe = fresh()
        probe.advance(n)
        if not np.array_equal(probe.random_raw(8), reference[n:n + 8]):
            return False
    return True


def bitgenerator_jump(bitgen: Any, name: str, seed: int | None) -> BitGenJump | None:
    """How ``bitgen`` jumps, or None: a class randqa knows, or a user's
    ``module:attr`` (``name``) whose ``advance`` is checked to count outputs."""
    known = _jumps_by_class().get(type(bitgen))
    if known is not None:
        return known
    if (hasattr(bitgen, "advance") and looks_like_module_attribute(name)
            and _advance_counts_outputs(name, seed)):
        return _advance_by(1)
    return None
