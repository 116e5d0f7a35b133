"""Named generator backends (``randqa list``).  Each is a Source that never ends.

Where they come from:

- the nmap PRNG benchmark: ``urandom``, ``getrandom``, ``openssl``,
  ``glibc-rand``, ``glibc-rand-byte``, ``glibc-rand-short``,
  ``msvc-rand-byte``, ``msvc-rand-short``, ``dnet-arc4``, ``arc4``,
  ``arc4-drop``;
- the Linux prandom thread: ``lfsr113``, ``siprand``;
- classic references: ``randu``, ``minstd``, ``ansi-c-rand``, ``mt19937``,
  ``xorshift32``, ``mmix-lcg``, ``splitmix64``,
  ``python-random``, the generators that pass PractRand but not targeted
  tests (``lcg64-prime``, ``lcg128-top64``, ``lcg128-top32``,
  ``lfib19937``, ``lfib19937-top32``), ``splitmix:B`` (SplitMix on a
  B-bit state) and the numpy/randomgen
  BitGenerators (``pcg64``, ``chacha``, ``aes-ctr``, ...);
- the generators of the runtimes applications call (group "runtimes"):
  each ``NAME`` is randqa's bit-exact C, each ``NAME-live`` the installed
  runtime itself (``randqa/sources/runtimes/``, whose docstring says how
  their streams are made);
- a user's own: ``module:attribute`` naming a numpy BitGenerator, and
  third-party backends registered in the entry-point group
  ``randqa.backends`` (the entry point's object is called with the seed
  and returns a randqa Source or a numpy BitGenerator; a BitGenerator
  class works as it is).

Byte order and word width.  Words are written little-endian unless the
original API says otherwise:

- 32-bit generators (``mt19937``, ``lfsr113``, ``siprand``, ``xorshift32``,
  ``minstd``, ``randu``, ``python-random``, ``java-random``, ``mmix-lcg``)
  write each output as 4
  little-endian bytes; ``glibc-rand`` writes its 31-bit ``rand()`` values
  the same way (bit 31 always 0), and ``lcg128-top32`` and
  ``lfib19937-top32`` their top 32 bits; ``splitmix64``, ``splitmix:B``
  (B-bit values), ``lcg64-prime``, ``lcg128-top64`` and ``lfib19937`` write 8.
- ``glibc-rand-short``, ``msvc-rand-short`` and ``ansi-c-rand`` write
  ``rand() & 0xffff`` as 2 little-endian bytes per call; the ``-byte``
  variants write ``rand() & 0xff``, one call per byte.  MSVC's and the ANSI
  example's ``rand()`` have 15 bits, so bit 15 of each short is 0.
- ``dnet-arc4``, ``arc4`` and ``arc4-drop`` write keystream bytes in order;
  for ``dnet-arc4`` that is what ``rand_get`` returns, and equals libdnet's
  ``rand_uint32`` words written big-endian (its first byte is the most
  significant).
- numpy/randomgen generators write ``random_raw`` words as 8 little-endian
  bytes (4 for the 32-bit ``mt19937-numpy`` and ``pcg32``).

Seeds.  ``--seed N`` calls the original's seeding routine with N, so the
bytes equal the C original's; without it a seed is drawn from the OS and
recorded in every report.  ``urandom``, ``getrandom`` and ``openssl``
cannot be seeded: their reports say ``reproducible: false``.

The siprand reference.  Linux 5.10's ``siprand_u32`` (lib/random32.c) on
64-bit machines: state v0..v3; per output ``v3 ^= noise``, two
``PRND_SIPROUND``s (SipHash's round: v0 += v1, v1 <<<= 13, v2 += v3,
v3 <<<= 16, v1 ^= v0, v0 <<<= 32, v3 ^= v2, v0 += v3, v3 <<<= 21,
v2 += v1, v1 <<<= 17, v3 ^= v0, v1 ^= v2, v2 <<<= 32), ``v0 ^= noise``,
return the low 32 bits of v1 + v3.  Here ``net_rand_noise`` is 0 (no packets
reach this copy) and the state is keyed as ``prandom_reseed`` keys it, with
the seed's low and high 64-bit halves in place of ``get_random_long()``:
v0 = lo, v1 = hi, v2 = lo ^ K0, v3 = hi ^ K1 (K0 = 0x736f6d6570736575 ^
0x6c7967656e657261, K1 = 0x646f72616e646f6d ^ 0x7465646279746573), zero
words replaced by 2**64 - 1.  tests/sources/test_compiled.py checks the round
against SipHash-2-4's published vector and the C code against a Python
transcription of the above.  Seed 0 starts with
v = (2**64-1, 2**64-1, K0, K1) and its first outputs are
3507486556, 1139426507, 345495905, 3542557534.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

from randqa.errors import UsageError
from randqa.sizes import parse_size
from randqa.sources.base import Source

#: entry-point group third-party packages register backends in
ENTRY_POINT_GROUP = "randqa.backends"


@dataclass(frozen=True)
class Backend:
    """One named backend: what `randqa list` shows and how to open it."""

    name: str
    summary: str
    group: str
    opener: Callable[[int | None, str | None], Source]
    #: implemented in randqa's own C code (what `randqa bench` times by default)
    compiled: bool = False
    #: takes a NAME:VALUE parameter
    takes_param: bool = False


def _os_backend(make: Callable[..., Source], param_name: str | None = None) -> Callable[[int | None, str | None], Source]:
    # open_backend refuses a parameter for backends that take none
    def open_(seed: int | None, param: str | None) -> Source:
        kwargs: dict[str, Any] = {"ignored_seed": seed}
        if param is not None:
            kwargs[param_name] = parse_size(param)
            kwargs["param_text"] = param
        return make(**kwargs)

    return open_


def _open_urandom(param_text: str | None = None, **kwargs: Any) -> Source:
    from randqa.sources.urandom import UrandomSource

    return UrandomSource(name="urandom" if param_text is None else f"urandom:{param_text}", **kwargs)


def _open_getrandom(**kwargs: Any) -> Source:
    from randqa.sources.urandom import GetrandomSource

    return GetrandomSource(**kwargs)


def _open_openssl(**kwargs: Any) -> Source:
    from randqa.sources.openssl import OpenSSLSource

    return OpenSSLSource(**kwargs)


def _numpy_opener(name: str) -> Callable[[int | None, str | None], Source]:
    def open_(seed: int | None, param: str | None) -> Source:
        from randqa.sources.bitgenerators import open_bitgenerator

        return open_bitgenerator(name, seed)

    return open_


def _open_python_random(seed: int | None, param: str | None) -> Source:
    from randqa.sources.python_random import open_python_random

    return open_python_random(seed)


@lru_cache(maxsize=1)
def _builtin() -> dict[str, Backend]:
    from randqa.sources.compiled import COMPILED
    from randqa.sources.bitgenerators import BITGENERATORS

    table: list[Backend] = [
        Backend("urandom", "reads the /dev/urandom device (fd identity checked before each read; urandom:SIZE caps each read call)",
                "nmap", _os_backend(_open_urandom, "call_bytes"), takes_param=True),
        Backend("getrandom", "the getrandom(2) system call (os.getrandom)", "nmap", _os_backend(_open_getrandom)),
        Backend("openssl", "OpenSSL's RAND_bytes from the system libcrypto", "nmap", _os_backend(_open_openssl)),
    ]
    nmap = ["glibc-rand", "glibc-rand-byte", "glibc-rand-short", "msvc-rand-byte", "msvc-rand-short",
            "dnet-arc4", "arc4", "arc4-drop"]
    linux = ["lfsr113", "siprand"]
    for group, names in (("nmap", nmap), ("linux", linux), ("classic", [n for n in COMPILED if n not in nmap + linux])):
        for name in names:
            summary, opener = COMPILED[name]
            table.append(Backend(name, summary, group, opener, compiled=True, takes_param=name in ("arc4-drop", "splitmix")))
    table.append(Backend("python-random", "CPython random.Random(seed) (MT19937, init_by_array): 32-bit outputs as 4 LE bytes",
                         "classic", _open_python_random))
    for name, (summary, _spec, _width, _kwargs) in BITGENERATORS.items():
        table.append(Backend(name, summary, "numpy", _numpy_opener(name)))
    table.extend(_runtime_table())
    return {b.name: b for b in table}


def _runtime_table() -> list[Backend]:
    """Group "runtimes": each runtime backend NAME (randqa's C) and NAME-live (the real runtime)."""
    from randqa.sources.runtimes import LIVE_SUFFIX, live_summary, open_compiled, open_live, runtime_backends

    table: list[Backend] = []
    for rb in runtime_backends():
        def compiled(seed: int | None, param: str | None, rb: Any = rb) -> Source:
            return open_compiled(rb, seed)

        def live(seed: int | None, param: str | None, rb: Any = rb) -> Source:
            return open_live(rb, seed)

        table.append(Backend(rb.name, rb.summary, "runtimes", compiled))
        table.append(Backend(rb.name + LIVE_SUFFIX, live_summary(rb), "runtimes", live))
    return table


@lru_cache(maxsize=1)
def _entry_points() -> dict[str, Any]:
    from importlib.metadata import entry_points

    found: dict[str, Any] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name not in _builtin() and ep.name not in found:
            found[ep.name] = ep
    return found


def _plugin_backend(name: str, ep: Any) -> Backend:
    def open_(seed: int | None, param: str | None) -> Source:
        from randqa.sources.bitgenerators import open_user_bitgenerator

        if param is not None:
            raise UsageError(f"backend {name} takes no parameter")
        return _rename(open_user_bitgenerator(ep.value, seed), name)

    return Backend(name, f"plugin backend {ep.value} (entry point {ENTRY_POINT_GROUP})", "plugin", open_)


def _rename(source: Source, name: str) -> Source:
    source.name = name
    return source


def backends() -> list[Backend]:
    """Every backend, built-in ones first, then entry-point plugins."""
    plugins = [_plugin_backend(name, ep) for name, ep in _entry_points().items()]
    return list(_builtin().values()) + plugins


def backend_names() -> list[str]:
    """Every backend name ``randqa test NAME`` accepts."""
    return [b.name for b in backends()]


def compiled_backend_names() -> list[str]:
    """Backends whose generator is randqa's own C code."""
    return [b.name for b in backends() if b.compiled]


def describe_backends() -> list[tuple[str, str]]:
    """(name, one line on what it is) for every backend, in `randqa list` order."""
    return [(b.name, b.summary) for b in backends()]


def find_backend(name: str) -> Backend | None:
    """The backend called ``name`` (without any :PARAM), or None."""
    for b in backends():
        if b.name == name:
            return b
    return None


def open_backend(name: str, seed: int | None = None) -> Source:
    """A fresh generator source; KeyError when ``name`` is not a backend.

    ``name`` may carry a parameter (``arc4-drop:768``, ``urandom:16``) or be
    ``module:attribute`` naming a numpy BitGenerator.  The source can open
    itself again (``Source.reopen``) with the seed it recorded.
    """
    source = _open_backend(name, seed)
    recorded = seed if source.seed is None else source.seed
    source.reopen = lambda: open_backend(name, recorded)
    return source


def _open_backend(name: str, seed: int | None) -> Source:
    backend = find_backend(name)
    if backend is not None:
        return backend.opener(seed, None)
    base, sep, param = name.partition(":")
    if sep:
        backend = find_backend(base)
        if backend is not None:
            if not backend.takes_param:
                raise UsageError(f"backend {base} takes no :PARAM (got {name!r})")
            return backend.opener(seed, param)
        from randqa.sources.user_code import is_user_code_spec
        from randqa.sources.python_objects import open_user_code

        if is_user_code_spec(name):
            return open_user_code(name, seed)
    raise KeyError(name)


def open_named_backend(name: str, seed: int | None = None, *, what: str = "backend",
                       alternatives: str = "not a backend name") -> Source:
    """open_backend, with an unknown name a UsageError that lists close matches."""
    try:
        return open_backend(name, seed)
    except KeyError:
        pass
    close = difflib.get_close_matches(name, backend_names(), n=4, cutoff=0.5)
    hint = f" (close matches: {', '.join(close)})" if close else "; see `randqa list`"
    raise UsageError(f"unknown {what} {name!r}: {alternatives}{hint}")
