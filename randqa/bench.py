"""Measuring generation speed, apart from testing, so test cost never
pollutes a generator's MB/s.

Besides plain MB/s per backend (:func:`generation_speed`), two tables
reproduce the background documents' measurements on this machine:

- :func:`nmap_table`: nmap-dev's PRNG benchmark (256 MiB from
  /dev/urandom, OpenSSL, ``rand()`` a byte or a short at a time, and
  libdnet's ARC4), with the mail's own timings beside ours, and the API
  shape it varied: /dev/urandom read 16 bytes, 2 KiB or 1 MiB per call.
- :func:`urandom_strategy_table`: the s2n-tls PR's question, the cost of
  checking the cached descriptor with fstat before each read, and of
  opening the device on every call, as percentages over the plain cached
  descriptor.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from randqa.sizes import format_size, parse_size
from randqa.sources.base import Source, read_full


def generation_rates(open_source: Callable[[], Source], nbytes: int, repeats: int = 5,
                     buffer_bytes: int = 1 << 20) -> list[float]:
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


def generation_speed(open_source: Callable[[], Source], nbytes: int, repeats: int = 5,
                     buffer_bytes: int = 1 << 20) -> float:
    """Median MB/s (10^6 bytes per second) of reading ``nbytes`` from fresh
    sources made by ``open_source``, over ``repeats`` runs."""
    return statistics.median(generation_rates(open_source, nbytes, repeats, buffer_bytes))


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


def backend_speed(name: str, nbytes: int, repeats: int = 5, seed: int | None = 1) -> Speed:
    """Time ``nbytes`` from backend ``name`` (1 MiB reads), ``repeats`` times."""
    from randqa.sources.backends import open_backend

    # one small read first, so library loading and page faults stay out of the runs
    with open_backend(name, seed) as warm:
        read_full(warm, memoryview(bytearray(1 << 16)))
    return Speed(name, nbytes, generation_rates(lambda: open_backend(name, seed), nbytes, repeats))


# ---------------------------------------------------------------------------
# nmap-dev's PRNG benchmark (Brandon Enright): seconds ("real") for 256 MiB,
# the median of the mail's three runs on each of its two machines.

#: (our backend, the mail's label, median s on the Xeon x86_64, median s on the Pentium 4)
NMAP_MAIL_ROWS = [
    ("urandom", "/dev/urandom", 75.351, 188.420),
    ("openssl", "openssl", 82.565, 121.195),
    ("glibc-rand-byte", "rand_byte()", 3.766, 12.468),
    ("glibc-rand-short", "rand_short()", 2.165, 8.024),
    ("dnet-arc4", "dnet_rand", 2.573, 6.452),
]
#: the API shapes: bytes per read() call on /dev/urandom (as urandom:SIZE takes them)
NMAP_URANDOM_CALLS = ["16", "2K", "1M"]


@dataclass
class NmapRow:
    backend: str
    label: str
    speed: Speed
    mail_xeon_s: float | None = None
    mail_p4_s: float | None = None


def nmap_table(nbytes: int = 256 << 20, repeats: int = 3,
               on_row: Callable[[NmapRow], None] | None = None) -> list[NmapRow]:
    """The mail's five generators, then /dev/urandom at three read sizes."""
    rows = []
    for backend, label, xeon, p4 in NMAP_MAIL_ROWS:
        row = NmapRow(backend, label, backend_speed(backend, nbytes, repeats), xeon, p4)
        rows.append(row)
        if on_row:
            on_row(row)
    for call in NMAP_URANDOM_CALLS:
        name = f"urandom:{call}"
        label = f"/dev/urandom, {format_size(parse_size(call))} per read()"
        row = NmapRow(name, label, backend_speed(name, nbytes, repeats))
        rows.append(row)
        if on_row:
            on_row(row)
    return rows


# ---------------------------------------------------------------------------
# s2n-tls's urandom strategies

@dataclass
class StrategyRow:
    """Per-call time of each strategy for one read size."""

    call_bytes: int
    calls: int
    #: strategy -> median microseconds per read() call
    micros: dict[str, float]

    def overhead(self, strategy: str) -> float:
        """Percent longer than the plain cached descriptor."""
        return 100.0 * (self.micros[strategy] / self.micros["cached"] - 1.0)


def _time_reader(strategy: str, call_bytes: int, calls: int, buffer: np.ndarray) -> float:
    from randqa.sources._urandom import UrandomReader
    from randqa.sources.urandom import URANDOM_PATH

    reader = UrandomReader(URANDOM_PATH, strategy, call_bytes)
    chunk = max(call_bytes, len(buffer) // call_bytes * call_bytes)
    if chunk > len(buffer):
        buffer = np.empty(chunk, dtype=np.uint8)
    view = memoryview(buffer)
    left = calls * call_bytes
    start = time.perf_counter()
    while left > 0:
        n = min(chunk, left)
        reader.fill(view[:n])
        left -= n
    elapsed = time.perf_counter() - start
    reader.close()
    return elapsed / calls * 1e6


def urandom_strategy_table(call_sizes: tuple[int, ...] = (16, 48, 2048, 1 << 20), nbytes: int = 64 << 20,
                           max_calls: int = 200_000, repeats: int = 5,
                           on_row: Callable[[StrategyRow], None] | None = None) -> list[StrategyRow]:
    """Microseconds per read() call for cached fd, fd + fstat check, and
    open-per-call; strategies interleave within each repeat so drift in
    machine speed hits all three alike."""
    from randqa.sources.urandom import STRATEGIES

    buffer = np.empty(1 << 20, dtype=np.uint8)
    rows = []
    for call in call_sizes:
        calls = max(16, min(max_calls, nbytes // call))
        for strategy in STRATEGIES:  # warm-up: page cache, branch predictors, device open path
            _time_reader(strategy, call, min(calls, 1000), buffer)
        samples: dict[str, list[float]] = {s: [] for s in STRATEGIES}
        for _ in range(repeats):
            for strategy in STRATEGIES:
                samples[strategy].append(_time_reader(strategy, call, calls, buffer))
        row = StrategyRow(call, calls, {s: statistics.median(v) for s, v in samples.items()})
        rows.append(row)
        if on_row:
            on_row(row)
    return rows
