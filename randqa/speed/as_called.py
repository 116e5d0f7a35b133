"""Speed as applications call a generator: the headline speed randqa reports.

What is timed depends on what an application would call (``speed_method``
in the JSON says which, per run):

- ``glibc-rand``, ``glibc-rand-byte``, ``glibc-rand-short``: the real libc
  ``rand()``, one call per 31-bit output, byte or short, from C
  (``_as_called.libc_rand_fill``), after ``srand(seed)``.  Libc's call
  overhead and lock are what applications pay.  The tests read randqa's
  batched, bit-exact reimplementation instead, which is many times faster;
  its rate is reported apart as ``generation_mb_s``, never as the speed.
- ``openssl``: OpenSSL's ``RAND_bytes`` from the system libcrypto;
  ``urandom``: ``read(2)`` on /dev/urandom; ``getrandom``: the system call.
  These are the very calls the tests read through.
- generators that exist only as randqa's C (MSVC's and the ANSI example's
  ``rand()``, libdnet's ARC4, RC4, the kernel's LFSR113 and siprand, ...):
  their compiled loop, which is the algorithm as an application compiles it.
- numpy/randomgen bit generators: ``random_raw()``; ``python-random``:
  ``getrandbits``; plugins: the source as randqa reads it.
- the runtimes' generators (``v8-math-random``, ``java-random``, ... and
  their ``-live`` twins): the runtime itself calling its generator in its
  own loop (:mod:`randqa.speed.runtimes`); none when it is not installed.
  The tests read randqa's bit-exact C (or the runtime's pipe, for -live),
  whose rate is ``generation_mb_s``.

Every timed run reads fresh from the start (``srand`` again, a new source)
in 1 MiB calls, apart from testing, and the median of the runs is reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from randqa.sizes import format_size, parse_size
from randqa.sources.backends import find_backend, open_backend
from randqa.sources.base import Source, read_full
from randqa.sources.compiled import resolve_seed
from randqa.speed import _as_called
from randqa.speed.generation import READ_BYTES, REPEATS, Speed, generation_rates, sized_run_bytes
from randqa.speed.runtimes import is_runtime_backend, runtime_method, runtime_speed

#: backend -> (libc_rand_fill mode, bytes per rand() call, speed_method)
LIBC_RAND: dict[str, tuple[int, int, str]] = {
    "glibc-rand": (0, 4, "libc rand(), one call per 31-bit output"),
    "glibc-rand-byte": (1, 1, "libc rand(), one call per byte"),
    "glibc-rand-short": (2, 2, "libc rand(), one call per short"),
}
COMPILED_METHOD = "randqa's compiled C loop (the algorithm as applications compile it)"
_READ = "1 MiB per call"
_OS_METHODS = {
    "urandom": f"read(2) on /dev/urandom, {_READ}",
    "getrandom": f"getrandom(2), {_READ}",
    "openssl": f"OpenSSL RAND_bytes(), {_READ}",
}
_GROUP_METHODS = {
    "numpy": "numpy/randomgen random_raw()",
    "plugin": "the plugin's source, as randqa reads it",
}


class LibcRandSource(Source):
    """libc's own ``rand()``, one call per output, after ``srand(seed)``.

    For timing only: libc's generator state is the process's, so two of
    these (or anything else calling ``rand()``) must not run at once.
    """

    endless = True

    def __init__(self, name: str, seed: int) -> None:
        self.name = name
        self.seed = seed
        self.mode, self.word_bytes, self.method = LIBC_RAND[name]
        self._seed_pending: int | None = seed
        self._pending = b""

    def _fill(self, view: memoryview) -> None:
        _as_called.libc_rand_fill(view, self.mode, seed=self._seed_pending)
        self._seed_pending = None

    def readinto(self, buffer: memoryview) -> int:
        n = len(buffer)
        pos = min(n, len(self._pending))
        buffer[:pos] = self._pending[:pos]
        self._pending = self._pending[pos:]
        whole = (n - pos) // self.word_bytes * self.word_bytes
        if whole:
            self._fill(buffer[pos:pos + whole])
            pos += whole
        if pos < n:  # a word split by the buffer's end: keep its remainder
            word = bytearray(self.word_bytes)
            self._fill(memoryview(word))
            buffer[pos:] = word[:n - pos]
            self._pending = bytes(word[n - pos:])
        return n

    def describe(self) -> dict[str, object]:
        data = super().describe()
        data.update(reproducible=True, algorithm="libc rand()", output=self.method)
        return data


@dataclass(frozen=True)
class AsCalled:
    """How an application gets a generator's bytes, and a fresh source that does it."""

    name: str
    method: str
    open: Callable[[], Source]
    #: the timed code is the code whose bytes randqa tests
    tested_path: bool


def speed_method(name: str) -> str:
    """The short phrase saying how backend ``name`` is called when timed."""
    if name in LIBC_RAND:
        return LIBC_RAND[name][2]
    if is_runtime_backend(name):
        return runtime_method(name)
    base, _, param = name.partition(":")
    if base == "urandom" and param:
        return f"read(2) on /dev/urandom, {format_size(parse_size(param))} per call"
    if base in _OS_METHODS:
        return _OS_METHODS[base]
    backend = find_backend(base)
    if backend is None:  # module:attribute naming a numpy BitGenerator
        return _GROUP_METHODS["numpy"]
    if backend.compiled:
        return COMPILED_METHOD
    if base == "python-random":
        return "CPython random.getrandbits()"
    return _GROUP_METHODS.get(backend.group, "the source, as randqa reads it")


def as_called(name: str, seed: int | None) -> AsCalled:
    """The as-called path of generator backend ``name`` (KeyError: no such backend).

    Without a seed every fresh source draws its own, as the backends do.
    """
    if name in LIBC_RAND:
        def open_libc() -> Source:
            return LibcRandSource(name, resolve_seed(name, seed, 32, "srand takes an unsigned int"))

        return AsCalled(name, speed_method(name), open_libc, tested_path=False)
    open_backend(name, seed).close()  # unknown names fail here, before any timing
    return AsCalled(name, speed_method(name), lambda: open_backend(name, seed), tested_path=True)


@dataclass
class AsCalledSpeed:
    """A generator's speed as applications call it, and randqa's own feed rate."""

    #: None when the code applications call is not here (a runtime not installed)
    speed: Speed | None
    method: str
    #: MB/s at which randqa's own source feeds the tests: the same timing when
    #: that source is the as-called path, else timed apart
    generation: Speed
    #: why there is no speed
    note: str | None = None

    @property
    def generation_is_separate(self) -> bool:
        return self.generation is not self.speed


def _timed(name: str, open_source: Callable[[], Source], nbytes: int | None, repeats: int) -> Speed:
    with open_source() as warm:  # library loading and page faults stay out of the runs
        read_full(warm, memoryview(bytearray(1 << 16)))
    if nbytes is None:
        nbytes = sized_run_bytes(open_source)
    return Speed(name, nbytes, generation_rates(open_source, nbytes, repeats, READ_BYTES))


def as_called_speed(name: str, nbytes: int | None = None, repeats: int = REPEATS,
                    seed: int | None = 1) -> AsCalledSpeed:
    """Time backend ``name`` as applications call it, ``repeats`` runs of
    ``nbytes`` each (None: about 0.2 s per run), and randqa's own source
    too when that is other code."""
    if is_runtime_backend(name):
        timing = runtime_speed(name, seed, repeats)
        generation = _timed(name, lambda: open_backend(name, seed), nbytes, repeats)
        return AsCalledSpeed(timing.speed, timing.method, generation, timing.note)
    path = as_called(name, seed)
    speed = _timed(name, path.open, nbytes, repeats)
    if path.tested_path:
        generation = speed
    else:
        generation = _timed(name, lambda: open_backend(name, seed), nbytes, repeats)
    return AsCalledSpeed(speed, path.method, generation)


