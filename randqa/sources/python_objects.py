"""Sources made from Python objects: for ``randqa.test`` in notebooks and
scripts, and for ``randqa test ./mygen.py:NAME`` (or ``mygen:NAME``), whose
object is read by the same rule (randqa.sources.user_code imports it).

The user's own generator, in any of four forms, each with one meaning
everywhere (the CLI, the API, the workers that open it again):

- a class with ``random_raw`` (a numpy ``BitGenerator`` subclass, or any
  class whose instances have ``random_raw(n)`` returning n integer words),
  or a randqa ``Source`` subclass: constructed with the seed, ``Class(seed)``
  (``--seed``; drawn from the OS and recorded when not given);
- an instance (a numpy ``BitGenerator`` or ``Generator``, or any object
  with ``random_raw``): tested from its current state, so no seed applies;
- a function ``f(k)`` returning up to ``k`` bytes: called with the number
  of bytes wanted, so no seed applies (seed it in the function);
- a function whose first parameter is named ``seed``, ``make(seed)``,
  returning a BitGenerator (or a randqa Source): called with the seed, as
  a class is.

What each kind of object gives, and how it is named in reports:

- ``bytes``, ``bytearray``, ``memoryview`` (any C-contiguous buffer, read as
  its raw bytes) and a numpy ``uint8`` array (any shape, in C order): the
  bytes as they are; named after the type (``"bytes"``, ``"ndarray"``).
- a binary file object (``open(path, "rb")``, ``io.BytesIO``, a socket's
  ``makefile("rb")``): read with ``readinto`` (or ``read``) to its end or
  to ``-n``; never closed here, since the caller owns it.  Named after its
  ``name`` attribute when that is a path.
- an iterable of chunks (a list, a generator function's iterator), each
  chunk bytes-like or a uint8 array: the chunks in order, to the iterable's
  end.  Named ``"chunks"``.
- a callable ``f(k) -> bytes``: called with the number of bytes wanted and
  returning up to that many (``os.urandom``, ``numpy.random.Generator.bytes``);
  an endless generator like the named backends (64 MiB by default), ended
  early by an empty return.  Named after the callable.
- a numpy ``BitGenerator`` instance (or a ``numpy.random.Generator``, whose
  bit generator is used): its ``random_raw`` words from its *current* state,
  as the named backends write them.  An instance still at the start of the
  stream of ``Class(seed)`` with an integer seed (checked by comparing
  states) is recorded as that backend and seed, so its report equals
  ``randqa test NAME --seed SEED``'s; any other instance is recorded as not
  reproducible.
- a ``BitGenerator`` class (or a class with ``random_raw``, or a Source
  subclass): seeded with ``seed`` (drawn and recorded when None) as
  ``randqa test module:Class`` does; a class randqa knows by name
  (``numpy.random.PCG64``) is that backend.  A function ``make(seed)``
  (first parameter named ``seed``) is called with the seed the same way.

Wrong types raise ``TypeError`` naming what was given; an object of the
right kind that turns out wrong while being read (a chunk that is text, a
callable returning a number) raises ``TypeError`` then.
"""

from __future__ import annotations

import copy
import inspect
import io
import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Callable

import numpy as np

from randqa.errors import InputError, UsageError
from randqa.sources.base import Source
from randqa.sources.user_code import USER_CODE_ERRORS, exception_line, resolve_user_object
from randqa.sources.bitgenerators import (BITGENERATORS, BitGeneratorSource, _resolve, open_bitgenerator,
                                           open_bitgenerator_factory, raw_word_bytes)

#: marks the end of an iterable of chunks (None could be a chunk, a wrong one)
_END = object()
#: the most a callable source is asked for per call, so a slow callable still reports progress
_MAX_CALL_BYTES = 1 << 20


def as_uint8(data: Any, what: str) -> np.ndarray:
    """``data`` (bytes-like, or a uint8 ndarray) as a flat uint8 array without
    copying when possible; TypeError naming ``what`` otherwise."""
    if isinstance(data, np.ndarray):
        if data.dtype != np.uint8:
            raise TypeError(f"{what} is a numpy array of {data.dtype}; randqa reads uint8 arrays "
                            f"(view other arrays as bytes with .view(np.uint8))")
        return np.ascontiguousarray(data).reshape(-1)
    if isinstance(data, (bytes, bytearray, memoryview)):
        view = memoryview(data)
        if not view.c_contiguous:
            raise TypeError(f"{what} is a memoryview that is not C-contiguous; pass a contiguous copy (view.tobytes())")
        return np.frombuffer(view.cast("B"), dtype=np.uint8)
    raise TypeError(f"{what} is {type(data).__name__}, not bytes, bytearray, memoryview or a uint8 numpy array")


class BufferSource(Source):
    """Bytes already in memory."""

    def __init__(self, data: Any, name: str) -> None:
        self._data = as_uint8(data, "the source")
        self.name = name
        self._pos = 0

    def readinto(self, buffer: memoryview) -> int:
        n = min(len(buffer), len(self._data) - self._pos)
        if n > 0:
            np.frombuffer(buffer, dtype=np.uint8, count=n)[:] = self._data[self._pos:self._pos + n]
            self._pos += n
        return max(n, 0)


def is_binary_file(obj: Any) -> bool:
    """Whether ``obj`` looks like a file object opened for reading (binary or not)."""
    return isinstance(obj, io.IOBase) or (callable(getattr(obj, "read", None)) and not isinstance(obj, type))


class FileObjectSource(Source):
    """A binary file object, read to its end; the caller keeps (and closes) it."""

    def __init__(self, fileobj: Any, name: str) -> None:
        if isinstance(fileobj, io.TextIOBase):
            raise TypeError(f"{name}: a text file; open it in binary mode ('rb')")
        self._file = fileobj
        self.name = name
        self._readinto = getattr(fileobj, "readinto", None)

    def readinto(self, buffer: memoryview) -> int:
        if self._readinto is not None:
            got = self._readinto(buffer)
            if got is None:  # a non-blocking stream with nothing ready: ask again
                return self.readinto(buffer)
            if not isinstance(got, int):
                raise TypeError(f"{self.name}: readinto returned {type(got).__name__}, not a byte count")
            return got
        data = self._file.read(len(buffer))
        if isinstance(data, str):
            raise TypeError(f"{self.name}: read() returned text; open the file in binary mode ('rb')")
        chunk = as_uint8(data, f"{self.name}: read()'s result")
        n = len(chunk)
        if n > len(buffer):
            raise TypeError(f"{self.name}: read({len(buffer)}) returned {n} bytes")
        np.frombuffer(buffer, dtype=np.uint8, count=n)[:] = chunk
        return n


class ChunkSource(Source):
    """The chunks of an iterable, in order, to its end."""

    def __init__(self, chunks: Iterable[Any], name: str) -> None:
        self._chunks: Iterator[Any] = iter(chunks)
        self.name = name
        self._pending = np.zeros(0, dtype=np.uint8)
        self._count = 0

    def readinto(self, buffer: memoryview) -> int:
        while len(self._pending) == 0:
            chunk = next(self._chunks, _END)
            if chunk is _END:
                return 0
            self._count += 1
            self._pending = as_uint8(chunk, f"chunk {self._count} of {self.name}")
        n = min(len(buffer), len(self._pending))
        np.frombuffer(buffer, dtype=np.uint8, count=n)[:] = self._pending[:n]
        self._pending = self._pending[n:]
        return n


class CallableSource(Source):
    """``f(k)`` returning up to k bytes per call; an empty return ends it.
    ``checked``: what the function raises or wrongly returns is an
    InputError naming it (the CLI's one line), not the exception itself."""

    endless = True

    def __init__(self, func: Callable[[int], Any], name: str, *, checked: bool = False) -> None:
        self._func = func
        self.name = name
        self._checked = checked
        self._pending = np.zeros(0, dtype=np.uint8)
        self._ended = False

    def _call(self, want: int) -> np.ndarray:
        if not self._checked:
            return as_uint8(self._func(want), f"{self.name}({want})")
        try:
            data = self._func(want)
        except USER_CODE_ERRORS as exc:  # noqa: BLE001 - the user's function failed, sys.exit() included
            raise InputError(f"{self.name}({want}) raised {exception_line(exc)}") from None
        try:
            return as_uint8(data, f"{self.name}({want})")
        except TypeError as exc:
            raise InputError(f"{exc}; a function f(k) returns up to k bytes") from None

    def readinto(self, buffer: memoryview) -> int:
        if len(self._pending) == 0 and not self._ended:
            want = min(len(buffer), _MAX_CALL_BYTES)
            self._pending = self._call(want)
            self._ended = len(self._pending) == 0
        n = min(len(buffer), len(self._pending))
        np.frombuffer(buffer, dtype=np.uint8, count=n)[:] = self._pending[:n]
        self._pending = self._pending[n:]
        return n

    def describe(self) -> dict[str, Any]:
        return dict(super().describe(), reproducible=False, output=f"the bytes {self.name}(k) returns")


# ---------------------------------------------------------------- BitGenerators

def _same_state(a: Any, b: Any) -> bool:
    """Equality of two BitGenerator states (nested dicts holding numpy arrays)."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_same_state(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b))
    return bool(a == b)


def public_name(cls: type) -> str:
    """``numpy.random._pcg64.PCG64`` -> ``numpy.random.PCG64``: the module path
    up to its first private part, as users import the class."""
    parts = []
    for part in cls.__module__.split("."):
        if part.startswith("_"):
            break
        parts.append(part)
    return ".".join(parts + [cls.__qualname__])


def _known_backend(cls: type, *, plain: bool = False) -> tuple[str, int] | None:
    """(backend name, word bytes) of the BITGENERATORS entry whose class is
    ``cls``; with ``plain``, only entries built with the class's defaults."""
    for name, (_summary, spec, word_bytes, kwargs) in BITGENERATORS.items():
        if spec.rpartition(":")[2] == cls.__name__ and not (plain and kwargs):
            try:
                if _resolve(spec) is cls:
                    return name, word_bytes
            except Exception:  # an optional package missing: not this entry
                continue
    return None


def _fresh_seed(bitgen: Any, backend: str) -> int | None:
    """The integer seed of ``Class(seed)`` whose stream ``bitgen`` is still at the start of, or None."""
    seed_seq = getattr(bitgen, "seed_seq", None)
    if not isinstance(seed_seq, np.random.SeedSequence):
        return None
    entropy = seed_seq.entropy
    if not isinstance(entropy, int) or seed_seq.spawn_key or seed_seq.n_children_spawned or seed_seq.pool_size != 4:
        return None
    try:
        fresh = open_bitgenerator(backend, entropy)
    except Exception:  # a seed the backend refuses
        return None
    assert isinstance(fresh, BitGeneratorSource)
    return entropy if _same_state(fresh.bitgen.state, bitgen.state) else None


def _probe_word_bytes(bitgen: Any) -> int:
    """Bytes per raw word of an instance, from 256 words drawn and then undone
    by restoring its state; 8 when its state cannot be restored."""
    try:
        saved = bitgen.state
        raw = bitgen.random_raw(256)
        bitgen.state = saved
    except Exception:  # no settable state: assume 64-bit words, as most BitGenerators have
        return 8
    return raw_word_bytes(np.asarray(raw))


class _InOrderBitGeneratorSource(BitGeneratorSource):
    """An instance found in the user's module, generated in order in this
    process: another process importing the module may find it in another
    state (one seeded from the OS), so no segment is made by jumping."""

    @property
    def can_jump(self) -> bool:
        return False


def bitgenerator_instance_source(bitgen: Any, *, jumps: bool = True) -> Source:
    """A BitGenerator instance (or a Generator's), from its current state (see
    the module docstring); with ``jumps`` False its segments are never made
    by jumping a fresh opening (an instance imported from the user's module)."""
    if isinstance(bitgen, np.random.Generator):
        bitgen = bitgen.bit_generator
    make = BitGeneratorSource if jumps else _InOrderBitGeneratorSource
    cls = type(bitgen)
    known = _known_backend(cls)
    if known is not None:
        name, word_bytes = known
        seed = _fresh_seed(bitgen, name)
        if seed is not None:
            _summary, spec, _width, _kwargs = BITGENERATORS[name]
            source = make(name, seed, bitgen, word_bytes, seeding=f"{spec.replace(':', '.')}(seed) via SeedSequence")
            source.reopen = lambda: open_bitgenerator(name, seed)
            return source
    else:
        word_bytes = _probe_word_bytes(bitgen)
    return make(public_name(cls), None, bitgen, word_bytes, seeding="an instance, tested from the state it was given in")


def backend_of_class(obj: Any) -> str | None:
    """The backend a class is, built with its defaults (``numpy.random.PCG64``
    is ``"pcg64"``), so it can run as that name; None for any other object."""
    known = _known_backend(obj, plain=True) if isinstance(obj, type) else None
    return None if known is None else known[0]


def bitgenerator_class_source(cls: Any, seed: int | None, name: str | None = None) -> Source:
    """A class (or a ``make(seed)`` function) constructed with ``seed`` (drawn
    when None), as ``randqa test module:Class``; named ``name`` (default: the
    backend randqa knows the class as, else its import name)."""
    backend = backend_of_class(cls)
    if backend is not None:
        source: Source = open_bitgenerator(backend, seed)
    else:
        label = public_name(cls) if isinstance(cls, type) else _callable_name(cls)
        source = open_bitgenerator_factory(name or label, cls, seed)
    if name is not None:
        source.name = name
    return source


def is_bitgenerator_class(obj: Any) -> bool:
    """A class constructed with the seed: a BitGenerator, a class with random_raw, or a randqa Source."""
    return isinstance(obj, type) and (issubclass(obj, (np.random.BitGenerator, Source)) or hasattr(obj, "random_raw"))


def is_seed_factory(obj: Any) -> bool:
    """A function ``make(seed)`` (its first parameter named ``seed``) returning a
    BitGenerator or Source: called with the seed, where any other function of
    one argument is ``f(k) -> bytes``."""
    if isinstance(obj, type) or not callable(obj):
        return False
    try:
        parameters = list(inspect.signature(obj).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature (os.urandom): f(k)
        return False
    return bool(parameters) and parameters[0].name == "seed"


def is_bitgenerator(obj: Any) -> bool:
    return isinstance(obj, (np.random.BitGenerator, np.random.Generator)) or (
        not isinstance(obj, type) and callable(getattr(obj, "random_raw", None)))


#: what streams given as BitGenerator instances refuse
GIVEN_STREAMS_TAKE_NO_OPTIONS = "streams of BitGenerator instances take no seed, word_bits, format or sequences"


def bitgenerator_list(obj: Any) -> bool:
    """Whether ``obj`` is a list of BitGenerators (streams); TypeError for a list that mixes them with chunks."""
    if not isinstance(obj, (list, tuple)) or not any(is_bitgenerator(item) for item in obj):
        return False
    if not all(is_bitgenerator(item) for item in obj):
        raise TypeError("a list of streams must hold BitGenerator instances only")
    if len(obj) < 2:
        raise ValueError("streams: a list of BitGenerators needs at least two")
    return True


#: what a source may be, for TypeError messages
ACCEPTED = ("a backend name, a path, a numpy BitGenerator (instance or class), bytes, bytearray, memoryview, "
            "a uint8 numpy array, a binary file object, an iterable of byte chunks, a callable f(k) -> bytes, "
            "or a function make(seed) returning a BitGenerator")


def _callable_name(func: Any) -> str:
    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or type(func).__name__
    module = getattr(func, "__module__", None)
    if module in (None, "__main__", "builtins") or not isinstance(module, str):
        return str(name)
    return f"{module}.{name}"


def kind_of(obj: Any) -> str | None:
    """What kind of source ``obj`` is: ``"data"``, ``"class"`` (a class or a
    ``make(seed)`` function: constructed with the seed), ``"instance"``,
    ``"callable"`` (``f(k) -> bytes``); None for none of them."""
    if isinstance(obj, (bytes, bytearray, memoryview, np.ndarray)):
        return "data"
    if is_bitgenerator_class(obj) or is_seed_factory(obj):
        return "class"
    if is_bitgenerator(obj):
        return "instance"
    if is_binary_file(obj):
        return "data"
    if callable(obj):
        return "callable"
    if isinstance(obj, Iterable) and not isinstance(obj, (str, Mapping)):
        return "data"
    return None


def describe_forms() -> str:
    """The forms of a user's generator, for messages."""
    return ("a class constructed with the seed (a numpy BitGenerator, a class with random_raw, a randqa Source), "
            "an instance with random_raw (a BitGenerator), a function f(k) returning up to k bytes, "
            "or a function make(seed) returning a BitGenerator")


def python_object_source(obj: Any, *, seed: int | None = None, name: str | None = None,
                         imported: bool = False) -> tuple[Source, str]:
    """A Source for a Python object (not a name or path), and what kind it is
    (:func:`kind_of`), which decides what ``seed`` and ``--format bits`` may
    apply to (:func:`seed_for`, randqa.sources.opening.check_format).

    ``seed`` applies to classes and ``make(seed)`` functions only (the
    caller refuses it for the rest).  ``name`` names a generator in reports
    (the spec it was found by).  ``imported``: the object comes from the
    user's module (randqa.sources.user_code), so an instance is read from a
    copy (the module's object keeps its state for the next opening) in
    order, and a function's errors are one line.
    """
    source: Source
    if isinstance(obj, np.random.Generator):
        obj = obj.bit_generator
    kind = kind_of(obj)
    if kind is None:
        raise TypeError(f"source must be {ACCEPTED}; got {type(obj).__name__}")
    if kind == "class":
        source = bitgenerator_class_source(obj, seed, name)
    elif kind == "instance":
        source = bitgenerator_instance_source(_copy_of(obj) if imported else obj, jumps=not imported)
    elif kind == "callable":
        source = CallableSource(obj, name or _callable_name(obj), checked=imported)
    elif isinstance(obj, (bytes, bytearray, memoryview, np.ndarray)):
        source = BufferSource(obj, type(obj).__name__)
    elif is_binary_file(obj):
        path = getattr(obj, "name", None)
        label = os.fspath(path) if isinstance(path, (str, os.PathLike)) else type(obj).__name__
        source = FileObjectSource(obj, str(label))
    else:
        source = ChunkSource(obj, "chunks")
    if name is not None and kind != "data":
        source.name = name
    return source, kind


def _copy_of(obj: Any) -> Any:
    """A copy of a BitGenerator instance in its state, or the instance itself when it cannot be copied."""
    try:
        return copy.deepcopy(obj)
    except Exception:  # noqa: BLE001 - not copyable (an open file in its state): read the object itself
        return obj


#: the kinds of source a seed applies to: generator names, classes and make(seed) functions
SEEDED_KINDS = ("generator", "class")

#: why --seed is refused, by the kind of source it was given to
_SEED_REFUSED = {
    "file": "--seed applies to generator backends, not to stdin or files",
    "data": "--seed applies to generator names and BitGenerator classes, not to data (bytes, arrays, files, chunks)",
    "instance": "--seed applies to generator names and BitGenerator classes, not to a BitGenerator instance, "
                "which is tested from its current state",
    "callable": "--seed applies to generator names and BitGenerator classes, not to a callable source "
                "f(k) -> bytes (seed it inside the function, or give a class or a function make(seed))",
}


def seed_for(kind: str, seed: int | None, *, generators_only: bool = False) -> int | None:
    """The seed a source of ``kind`` opens with.

    A seed applies to generators (names and BitGenerator classes); given to
    anything else it is a UsageError saying so, or, with ``generators_only``
    (one seed for a run of several sources, as ``compare --seed``), it is
    left to the generators among them.
    """
    if seed is None or kind in SEEDED_KINDS:
        return seed
    if generators_only:
        return None
    raise UsageError(_SEED_REFUSED[kind])


def open_user_code(spec: str, seed: int | None = None) -> Source:
    """The source ``spec`` names in the user's code, read by the one rule
    randqa.sources.python_objects.python_object_source has for the Python
    API's objects (a class is constructed with the seed, a function ``f(k)``
    returns up to k bytes, an instance is tested from its current state);
    named ``spec`` in reports.  It opens again (``Source.reopen``) with the
    seed it recorded.  Whatever the user's code raises, ``sys.exit()``
    included, is a UsageError (or an InputError mid-stream) naming ``spec``."""
    obj = resolve_user_object(spec)
    try:
        if kind_of(obj) is None:
            raise UsageError(f"{spec} is a {type(obj).__name__}; randqa tests {describe_forms()}")
        source, kind = python_object_source(obj, seed=seed, name=spec, imported=True)
    except (UsageError, InputError):
        raise
    except USER_CODE_ERRORS as exc:  # noqa: BLE001 - the user's object failed while being opened
        raise UsageError(f"{spec}: opening it raised {exception_line(exc)}") from None
    if not (kind == "instance" and seed is not None and seed == source.seed):  # its own start's seed, as recorded
        try:
            seed_for(kind, seed)
        except UsageError as exc:
            source.close()
            raise UsageError(f"{spec}: {exc}") from None
    recorded = seed if source.seed is None else source.seed
    source.reopen = lambda: open_user_code(spec, recorded)
    return source


__all__ = ["ACCEPTED", "GIVEN_STREAMS_TAKE_NO_OPTIONS", "BufferSource", "CallableSource", "ChunkSource", "FileObjectSource", "as_uint8",
           "backend_of_class", "bitgenerator_class_source", "bitgenerator_instance_source", "bitgenerator_list", "describe_forms", "is_seed_factory",
           "kind_of", "open_user_code", "public_name", "python_object_source", "seed_for"]
