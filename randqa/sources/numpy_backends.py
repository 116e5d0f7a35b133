"""Backends made from numpy/randomgen BitGenerators and from Python's random.

A BitGenerator's stream is its ``random_raw(n)`` words, written as
little-endian uint64 (8 bytes per word), or as little-endian uint32 for the
generators whose raw outputs are 32-bit (``mt19937-numpy``, ``pcg32``), so
no byte is constant.  Seeding is ``Class(seed)``, i.e. numpy's
``SeedSequence(seed)``.

``python-random`` is CPython's ``random.Random(seed)``: MT19937 seeded by
``init_by_array`` with the 32-bit limbs of ``abs(seed)``, least significant
first.  Its bytes are ``getrandbits(32*k).to_bytes(4*k, "little")``, which
is each 32-bit output as 4 little-endian bytes, in order (CPython fills
getrandbits' words from the least significant end).

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
import random
import re
from typing import Any, Callable

import numpy as np

from randqa.errors import InputError, UsageError, one_line
from randqa.sources.base import Source
from randqa.sources.compiled import resolve_seed

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

#: what the user's code may raise that ends the run with one line (exit 2):
#: any exception, and sys.exit() too, which is the code's failure, not randqa's exit
USER_CODE_ERRORS = (Exception, SystemExit)

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
        raise UsageError(f"backend {spec}: importing {module_name} raised {_exception_line(exc)}") from None
    for part in attribute.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UsageError(f"module {module_name!r} has no attribute {attribute!r} (backend {spec!r})") from None
    return obj


def _exception_line(exc: BaseException) -> str:
    """``Type: message`` on one line, shortened."""
    message = one_line(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


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


class BitGeneratorSource(Source):
    """The ``random_raw`` words of a numpy BitGenerator as little-endian bytes."""

    endless = True

    def __init__(self, name: str, seed: int | None, bitgen: Any, word_bytes: int, *, seeding: str) -> None:
        if not hasattr(bitgen, "random_raw"):
            raise UsageError(f"backend {name}: {type(bitgen).__name__} has no random_raw(); need a numpy BitGenerator")
        self.name = name
        self.seed = seed
        self.bitgen = bitgen
        self.word_bytes = word_bytes
        self.seeding = seeding
        self._buffer = _PendingBytes()
        self._dtype = np.dtype("<u8") if word_bytes == 8 else np.dtype("<u4")

    def _words(self, count: int) -> np.ndarray:
        try:
            raw = self.bitgen.random_raw(count)
        except USER_CODE_ERRORS as exc:  # noqa: BLE001 - the user's generator failed mid-stream
            raise InputError(f"backend {self.name}: random_raw({count}) raised {_exception_line(exc)}") from None
        return _checked_words(self.name, raw, count).astype(self._dtype, copy=False)

    def readinto(self, buffer: memoryview) -> int:
        return self._buffer.fill(buffer, self.word_bytes, self._words)

    def describe(self) -> dict[str, Any]:
        data = super().describe()
        cls = type(self.bitgen)
        data.update(reproducible=self.seed is not None, algorithm=f"{cls.__module__}.{cls.__qualname__}",
                    output=f"random_raw() words as {self.word_bytes} little-endian bytes", seeding=self.seeding)
        return data



def _any_size_seed(name: str, seed: int | None) -> int:
    """The seed to use for a generator that takes a seed of any size (64 bits drawn when none is given)."""
    return resolve_seed(name, seed, 1 << 16, "any size", 64)

def open_bitgenerator(name: str, seed: int | None) -> Source:
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
        raise UsageError(f"backend {name}: random_raw(256) raised {_exception_line(exc)}") from None
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
        raise UsageError(f"backend {spec}: {spec}({seed}) raised {_exception_line(exc)}") from None


class CheckedSource(Source):
    """A user's Source, with what its code returns checked at every call:
    ``readinto`` must return a whole number from 0 to the buffer's length
    (anything else, an exception included, is an InputError), so a broken
    plugin ends the run with one line instead of looping or a traceback."""

    def __init__(self, inner: Source) -> None:
        self.inner = inner
        self.name = inner.name
        self.seed = inner.seed
        self.unit_bits = inner.unit_bits
        self.endless = inner.endless

    def readinto(self, buffer: memoryview) -> int:
        try:
            got = self.inner.readinto(buffer)
        except USER_CODE_ERRORS as exc:  # noqa: BLE001 - the user's code failed mid-stream
            raise InputError(f"backend {self.name}: readinto raised {_exception_line(exc)}") from None
        if not isinstance(got, (int, np.integer)) or isinstance(got, bool) or not 0 <= got <= len(buffer):
            raise InputError(f"backend {self.name}: readinto returned {got!r} for a buffer of {len(buffer)} bytes; "
                             f"it must return how many bytes it wrote, 0 to {len(buffer)}")
        return int(got)

    def read_bits(self, max_bits: int) -> np.ndarray:
        return self.inner.read_bits(max_bits)

    def describe(self) -> dict[str, Any]:
        data = self.inner.describe()
        data.update(name=self.name, seed=self.seed)
        return data

    def close(self) -> None:
        self.inner.close()


class PythonRandomSource(Source):
    """CPython's random.Random(seed) (MT19937, init_by_array) as 4-byte LE words."""

    endless = True

    def __init__(self, seed: int) -> None:
        self.name = "python-random"
        self.seed = seed
        self._rng = random.Random(seed)
        self._buffer = _PendingBytes()

    def _words(self, count: int) -> bytes:
        return self._rng.getrandbits(32 * count).to_bytes(4 * count, "little")

    def readinto(self, buffer: memoryview) -> int:
        return self._buffer.fill(buffer, 4, self._words)

    def describe(self) -> dict[str, Any]:
        data = super().describe()
        data.update(reproducible=True, algorithm="CPython random.Random (MT19937)",
                    output="32-bit outputs as 4 little-endian bytes (getrandbits(32k).to_bytes(4k, 'little'))",
                    seeding="random.Random(seed): init_by_array(32-bit limbs of seed, least significant first)")
        return data


def open_python_random(seed: int | None) -> Source:
    return PythonRandomSource(_any_size_seed("python-random", seed))
