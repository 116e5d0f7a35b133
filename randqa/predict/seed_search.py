"""Seed search: brute force over 32-bit seeds of named generators.

Source: the attack on time- and pid-seeded generators described by
I. Goldberg and D. Wagner, "Randomness and the Netscape browser", Dr.
Dobb's Journal, January 1996 (Netscape seeded from the time of day and
process ids); the generators' own seeding routines: glibc srand()
(random_r.c: Park-Miller 16807 fills r_0..r_30, 310 outputs discarded),
MT19937's init_genrand (Matsumoto-Nishimura 2002) and CPython's
random.seed(int) (init_by_array with the 32-bit limbs of the seed).

Formula.  For each seed in a range, seed the generator as its library
does and compare its first 32 or so output bits with the first observed
bytes (compiled kernels in _seed_search.c); a seed that matches is
checked against the whole observed prefix with randqa's own backend, and
the backend then gives the continuation.

Ranges.  The full 2^32 is a matter of minutes to an hour here (glibc about
2e7 seeds/s, init_genrand 4e6/s, CPython's seeding 1e6/s on one core), too
slow for a default, so by default the search covers:

- small seeds, [0, 2^20), for every backend: constants, counters and pids
  (Linux's default pid_max is 2^15 to 2^22);
- for the C library seedings (glibc srand, init_genrand), seeds equal to a
  Unix time in the last 2^20 s (about 12 days) before now: srand(time(NULL));
- CPython: [0, 2^18), its seeding being 20 times slower and its default
  seed coming from os.urandom.

The ranges searched are in the reported structure; ``seed_ranges`` widens
them (up to the full [0, 2^32)).  Backends seeded from the kernel's
entropy (lfsr113, siprand) or through numpy's SeedSequence are not
searched: a 32-bit seed is not how they are used.

Minimum data: 8 bytes.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from randqa.errors import UsageError
from randqa.predict import _seed_search
from randqa.predict.base import Fit, NoFit, Predictor

Range = tuple[int, int]
#: seeds scanned per kernel call (Ctrl-C is seen between calls)
CHUNK = 1 << 20
SMALL_SEEDS: Range = (0, 1 << 20)
RECENT_SECONDS = 1 << 20


@dataclass(frozen=True)
class SeededBackend:
    """A backend whose seeding a kernel reproduces, and how its bytes are cut into outputs."""

    name: str
    scan: Callable[..., int]
    word_bytes: int
    mask: int
    #: searched for srand(time(NULL))-style seeds as well
    time_seeded: bool
    small_range: Range = SMALL_SEEDS


BACKENDS = (
    SeededBackend("glibc-rand", _seed_search.glibc_srand_scan, 4, 0x7FFFFFFF, True),
    SeededBackend("glibc-rand-short", _seed_search.glibc_srand_scan, 2, 0xFFFF, True),
    SeededBackend("glibc-rand-byte", _seed_search.glibc_srand_scan, 1, 0xFF, True),
    SeededBackend("mt19937", _seed_search.mt19937_init_genrand_scan, 4, 0xFFFFFFFF, True),
    SeededBackend("python-random", _seed_search.python_random_seed_scan, 4, 0xFFFFFFFF, False, (0, 1 << 18)),
)
#: bytes compared by the kernels
TARGET_BYTES = 8


def default_ranges(now: float | None = None) -> dict[str, list[Range]]:
    """Each backend's seed ranges: small seeds, and recent Unix times for the time-seeded ones."""
    t = int(time.time() if now is None else now)
    recent = (max(0, t - RECENT_SECONDS), min(1 << 32, t + 1))
    return {b.name: [b.small_range] + ([recent] if b.time_seeded else []) for b in BACKENDS}


def _targets(observed: np.ndarray, b: SeededBackend) -> np.ndarray | None:
    head = observed[:TARGET_BYTES]
    dtype = {1: "u1", 2: "<u2", 4: "<u4"}[b.word_bytes]
    values = head[: len(head) // b.word_bytes * b.word_bytes].view(dtype).astype(np.uint32)
    if len(values) == 0 or np.any(values & ~np.uint32(b.mask)):
        return None
    return values


def _backend_bytes(name: str, seed: int, nbytes: int) -> np.ndarray:
    from randqa.sources.backends import open_backend

    source = open_backend(name, seed)
    buffer = bytearray(nbytes)
    source.readinto(memoryview(buffer))
    return np.frombuffer(buffer, dtype=np.uint8)


@dataclass
class SeedFit(Fit):
    backend: str = ""
    seed: int = 0
    observed_bytes: int = 0

    def predict(self, nbytes: int) -> np.ndarray:
        return _backend_bytes(self.backend, self.seed, self.observed_bytes + nbytes)[self.observed_bytes:]


class SeedSearchPredictor(Predictor):
    """Brute force over 32-bit seeds of glibc rand(), MT19937 and CPython random."""

    name = "seed-search"
    summary = "32-bit seeds of glibc srand, init_genrand and CPython random.seed, by brute force (Goldberg-Wagner 1996)"
    min_observed_bytes = TARGET_BYTES
    max_observed_bytes = TARGET_BYTES
    bisect = False

    def __init__(self, seed_ranges: Mapping[str, Sequence[Range]] | None = None) -> None:
        ranges = default_ranges()
        for name, spans in (seed_ranges or {}).items():
            if name not in ranges:
                raise UsageError(f"seed search knows no backend {name!r}: choose from {', '.join(ranges)}")
            for lo, hi in spans:
                if not 0 <= lo <= hi <= 1 << 32:
                    raise UsageError(f"seed range [{lo}, {hi}) for {name} is not within [0, 2^32)")
            ranges[name] = [(int(lo), int(hi)) for lo, hi in spans]
        self.ranges = ranges

    def _searched(self) -> dict[str, Any]:
        return {name: [[lo, hi] for lo, hi in spans] for name, spans in self.ranges.items()}

    def fit(self, observed: np.ndarray) -> Fit | NoFit:
        found = np.zeros(64, dtype=np.int64)
        for b in BACKENDS:
            targets = _targets(observed, b)
            if targets is None:
                continue
            for lo, hi in self.ranges[b.name]:
                for start in range(lo, hi, CHUNK):
                    count = b.scan(start, min(hi, start + CHUNK), targets.tobytes(), b.mask, found)
                    seeds = [int(v) for v in found[: min(count, len(found))]
                             if np.array_equal(_backend_bytes(b.name, int(v), len(observed)), observed)]
                    if seeds:
                        # glibc's srand(0) is srand(1): equivalent seeds are all listed
                        structure = {
                            "summary": f"{b.name} seeded with {' or '.join(map(str, seeds[:4]))}",
                            "backend": b.name, "seed": seeds[0], "equivalent_seeds": seeds[:16],
                            "searched": self._searched(),
                        }
                        return SeedFit(structure, backend=b.name, seed=seeds[0], observed_bytes=len(observed))
        total = sum(hi - lo for spans in self.ranges.values() for lo, hi in spans)
        return NoFit(f"no seed matched ({total:,} seeds tried; ranges in the JSON)",
                     {"searched": self._searched()})
