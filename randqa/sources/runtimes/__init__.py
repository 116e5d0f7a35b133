"""The generators applications really call: each runtime's own (group
"runtimes" of `randqa list`).

Every runtime backend comes twice:

- ``NAME`` (``v8-math-random``, ``java-random-long``, ...): randqa's C
  reimplementation (``_runtime_generators.c`` and its siblings), bit-exact
  and seeded through the runtime's own seeding routine, fast and
  reproducible without the runtime;
- ``NAME-live``: the same bytes streamed from the real runtime, seeded with
  the same ``--seed`` (a :class:`~randqa.sources.runtimes.live.LiveSource`
  reading the stdout of the runtime's driver program), so nothing rests on
  our reading of the runtime's source.

The backends are one table, ``backends.toml`` (:class:`RuntimeBackend`'s
fields, in `randqa list` order).  One module per runtime (``node.py``,
``java.py``, ...; listed in ``RUNTIME_MODULES``, in `randqa list` order)
defines its ``DRIVER`` (a
:class:`~randqa.sources.runtimes.driver.RuntimeDriver`) and says in its
docstring which source of the runtime it follows and how the runtime's
variant differs from the textbook algorithm.  Known answers from the real runtimes, with their
versions, are in tests/sources/test_runtime_<runtime>.py.

The stream.  A call returns b bits (52 for V8's doubles, 31 for PHP's
``mt_rand()``, 64 for Java's ``nextLong()``); the stream is exactly those
bits, eight calls making a word of b bytes, the first call's value in the
lowest bits (for b = 32 or 64: each value as b/8 little-endian bytes).
``bytes_per_call`` is b / 8.
"""

from __future__ import annotations

import importlib
import secrets
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from randqa.errors import UsageError

if TYPE_CHECKING:
    from randqa.sources.base import Source
    from randqa.sources.runtimes.driver import RuntimeDriver

#: the runtime modules, in `randqa list` order
RUNTIME_MODULES = ("node", "java", "go", "mono", "php", "sqlite", "musl", "cxx", "r", "lua", "ruby")

#: the suffix of a backend that streams from the real runtime
LIVE_SUFFIX = "-live"


@dataclass(frozen=True)
class RuntimeBackend:
    """A runtime's generator as a backend pair: ``name`` (randqa's C) and ``name-live``."""

    name: str
    #: the driver's runtime name ("node", "java", ...)
    runtime: str
    #: the `randqa list` line: what the runtime does, which bits go into the
    #: stream and how, and the runtime version the known answers pin
    summary: str
    #: the runtime's call whose values make the stream, as an application writes it
    call: str
    #: bits of each call's value in the stream (the stream's word is 8 calls)
    bits_per_call: int
    #: --seed must be in [low, high)
    seed_range: tuple[int, int]
    #: why the seed range is what it is (said when a seed is refused)
    seed_rule: str
    #: how --seed reaches the runtime's own seeding routine (the JSON's "seeding")
    seeding: str
    #: randqa's compiled generator for a seed in seed_range
    make: Callable[[int], Any]

    @property
    def bytes_per_call(self) -> float:
        """Stream bytes per generator call (for MB/s from calls per second)."""
        return self.bits_per_call / 8

    @property
    def output(self) -> str:
        """Which bits of each call go into the stream, and how (the JSON's "output")."""
        if self.bits_per_call in (32, 64):
            return f"{self.call}: each {self.bits_per_call}-bit value as {self.bits_per_call // 8} little-endian bytes"
        return (f"{self.call}: the {self.bits_per_call} bits of each value, packed from the least significant "
                f"(8 calls = {self.bits_per_call} bytes)")

    def resolve_seed(self, seed: int | None) -> int:
        """``seed`` checked against the runtime's range, or one drawn from the OS in it."""
        low, high = self.seed_range
        if seed is None:
            return low + secrets.randbelow(high - low)
        if not low <= seed < high:
            raise UsageError(f"--seed for {self.name} must be in [{low}, {_power_text(high)}) ({self.seed_rule})")
        return seed


def _power_text(n: int) -> str:
    return f"2**{n.bit_length() - 1}" if n > 1 and n & (n - 1) == 0 else str(n)


@lru_cache(maxsize=1)
def _modules() -> tuple[Any, ...]:
    return tuple(importlib.import_module(f"randqa.sources.runtimes.{name}") for name in RUNTIME_MODULES)


@lru_cache(maxsize=1)
def _backends() -> tuple[RuntimeBackend, ...]:
    with (Path(__file__).parent / "backends.toml").open("rb") as table:
        entries = tomllib.load(table)["backend"]
    return tuple(_backend(**entry) for entry in entries)


def _backend(*, make: str, seed_low: int, seed_bits: int, **fields: Any) -> RuntimeBackend:
    """A row of backends.toml: ``make`` names a function of randqa.sources."""
    module, _, function = make.rpartition(".")
    maker = getattr(importlib.import_module(f"randqa.sources.{module}"), function)
    return RuntimeBackend(make=maker, seed_range=(seed_low, 1 << seed_bits), **fields)


def runtime_backends() -> list[RuntimeBackend]:
    """Every runtime backend (without its -live twin), in `randqa list` order."""
    return list(_backends())


def drivers() -> list[RuntimeDriver]:
    """One driver per runtime, in `randqa list` order."""
    return [module.DRIVER for module in _modules()]


def find_runtime_backend(name: str) -> RuntimeBackend | None:
    """The runtime backend called ``name`` or ``name`` minus ``-live``, or None."""
    base = name[:-len(LIVE_SUFFIX)] if name.endswith(LIVE_SUFFIX) else name
    for backend in runtime_backends():
        if backend.name == base:
            return backend
    return None


def driver_for(backend_name: str) -> RuntimeDriver:
    """The driver of the runtime behind ``backend_name`` (with or without -live); KeyError if none."""
    backend = find_runtime_backend(backend_name)
    if backend is None:
        raise KeyError(backend_name)
    for driver in drivers():
        if driver.name == backend.runtime:
            return driver
    raise KeyError(backend.runtime)


def open_compiled(backend: RuntimeBackend, seed: int | None) -> Source:
    """randqa's bit-exact C generator of ``backend``."""
    from randqa.sources.compiled import CompiledSource

    s = backend.resolve_seed(seed)
    return CompiledSource(backend.name, s, backend.make(s), output=backend.output, seeding=backend.seeding,
                          params={"runtime": backend.runtime})


def open_live(backend: RuntimeBackend, seed: int | None) -> Source:
    """The real runtime writing ``backend``'s stream; refused with one line if it is not installed."""
    from randqa.sources.runtimes.live import LiveSource

    name = backend.name + LIVE_SUFFIX
    driver = driver_for(backend.name)
    driver.require(name)
    s = backend.resolve_seed(seed)
    return LiveSource(name, s, driver.stream_command(backend.name, s), runtime=driver.name,
                      runtime_version=driver.version(), output=backend.output, seeding=backend.seeding)


def live_summary(backend: RuntimeBackend) -> str:
    """The `randqa list` line of ``NAME-live``."""
    return f"{backend.name}'s bytes from the installed {backend.runtime} itself ({backend.call} in its own loop)"
