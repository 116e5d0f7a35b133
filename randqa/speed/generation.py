"""How fast a source's ``readinto`` fills buffers, timed apart from testing,
so test cost never pollutes a generator's MB/s.

For randqa's own sources this is the rate at which randqa can feed the
tests (``generation_mb_s`` in a compare run).  For glibc's ``rand()`` that
is a batched, bit-exact reimplementation, not what an application calling
``rand()`` gets: :mod:`randqa.speed.as_called` times that.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from randqa.sources.base import Source, read_full

#: bytes per read: the size of each call a timed source gets
READ_BYTES = 1 << 20
#: each timed run reads about this long, bounded by the sizes below, so a
#: fast generator is timed over enough bytes and a slow one does not take ages
TARGET_SECONDS = 0.2
MIN_BYTES = 1 << 20
MAX_BYTES = 64 << 20
#: timed runs per generator; their median is reported
REPEATS = 5


def generation_rates(open_source: Callable[[], Source], nbytes: int, repeats: int = REPEATS,
                     buffer_bytes: int = READ_BYTES) -> list[float]:
    """MB/s (10^6 bytes per second) of each of ``repeats`` runs reading
    ``nbytes`` from a fresh source made by ``open_source``."""
    buffer = np.empty(min(buffer_bytes, nbytes), dtype=np.uint8)
    view = memoryview(buffer)
    rates = []
    for _ in range(repeats):
        with open_source() as source:
            left = nbytes
            start = time.perf_counter()
            while left > 0:
                got = read_full(source, view[: min(left, len(view))])
                if got == 0:
                    break
                left -= got
            elapsed = time.perf_counter() - start
        rates.append((nbytes - left) / elapsed / 1e6 if elapsed > 0 else float("inf"))
    return rates


def generation_speed(open_source: Callable[[], Source], nbytes: int, repeats: int = REPEATS,
                     buffer_bytes: int = READ_BYTES) -> float:
    """Median MB/s (10^6 bytes per second) of reading ``nbytes`` from fresh
    sources made by ``open_source``, over ``repeats`` runs."""
    return statistics.median(generation_rates(open_source, nbytes, repeats, buffer_bytes))


def sized_run_bytes(open_source: Callable[[], Source]) -> int:
    """Bytes per timed run so that one takes about TARGET_SECONDS: one short
    probe (which also loads libraries and touches pages) sets the length."""
    probe = generation_speed(open_source, MIN_BYTES, repeats=1)
    nbytes = int(min(MAX_BYTES, max(MIN_BYTES, probe * 1e6 * TARGET_SECONDS)))
    return nbytes - nbytes % (1 << 16)


@dataclass
class Speed:
    """Timings of one backend: MB/s of each run, and their median."""

    name: str
    nbytes: int
    rates: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.rates)

    @property
    def seconds(self) -> float:
        """Median time to generate ``nbytes``."""
        return self.nbytes / (self.median * 1e6)


def backend_speed(name: str, nbytes: int, repeats: int = REPEATS, seed: int | None = 1) -> Speed:
    """Time ``nbytes`` from backend ``name`` (1 MiB reads), ``repeats`` times."""
    from randqa.sources.backends import open_backend

    # one small read first, so library loading and page faults stay out of the runs
    with open_backend(name, seed) as warm:
        read_full(warm, memoryview(bytearray(1 << 16)))
    return Speed(name, nbytes, generation_rates(lambda: open_backend(name, seed), nbytes, repeats))
