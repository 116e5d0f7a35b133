"""nmap-dev's PRNG benchmark (Brandon Enright's mail, 2008), reproduced.

The mail timed 256 MiB through nmap's own interface: nbase's
``get_random_bytes()`` serving a 2 KiB cache that each option refilled,
read through ``get_random_u32()`` four bytes at a time.  The options:
/dev/urandom, OpenSSL's ``RAND_bytes``, ``rand()`` a byte at a time (as on
Windows), ``rand()`` a short at a time (as on *nix) and libdnet's ARC4
(``dnet_rand``).  :func:`nmap_table` runs that harness, in C
(``_as_called.nmap_harness_run``, see its comment for the details), on this
machine, next to the mail's times on its Pentium 4 and Xeon, and then the
API shapes of /dev/urandom without the cache: 16 B, 2 KiB or 1 MiB per
``read()``.

The ranking, the sentence on what changed and the answer a compare run
gives are rendered from these numbers by :mod:`randqa._report.speed_notes`.
"""

from __future__ import annotations

import ctypes
import statistics
import time
from dataclasses import dataclass, field
from typing import Callable

from randqa.sizes import format_size, parse_size
from randqa.speed import _as_called
from randqa.speed.generation import Speed, backend_speed


@dataclass(frozen=True)
class NmapOption:
    """One of the mail's options: the harness's refill, the randqa backend
    with the same bytes, and the mail's median 'real' seconds for 256 MiB."""

    backend: str
    harness: str
    mail_label: str
    refill: str
    mail_xeon_s: float
    mail_p4_s: float


#: the mail's options in its order; times are the median of its three runs
#: per machine (first group: the Pentium 4, second: the Xeon)
NMAP_OPTIONS = [
    NmapOption("urandom", "urandom", "/dev/urandom", "fopen, fread 2 KiB, fclose /dev/urandom", 75.351, 188.420),
    NmapOption("openssl", "openssl", "openssl", "RAND_bytes(cache, 2048)", 82.565, 121.195),
    NmapOption("glibc-rand-byte", "rand-byte", "rand_byte()", "2048 rand() calls, a byte each", 3.766, 12.468),
    NmapOption("glibc-rand-short", "rand-short", "rand_short()", "1024 rand() calls, a short each", 2.165, 8.024),
    NmapOption("dnet-arc4", "dnet-arc4", "dnet_rand", "libdnet rand_get(cache, 2048)", 2.573, 6.452),
]
#: the mail's length: 0x0FFFFFFF bytes, 256 MiB to a byte
NMAP_BYTES = 256 << 20
#: the API shapes: bytes per read() call on /dev/urandom (as urandom:SIZE takes them)
NMAP_URANDOM_CALLS = ["16", "2K", "1M"]

def rand_bytes_address() -> int:
    """Address of RAND_bytes in the system's libcrypto (ctypes), for the harness."""
    from randqa.sources.openssl import libcrypto

    return ctypes.cast(libcrypto().RAND_bytes, ctypes.c_void_p).value or 0


def harness_seconds(option: str, nbytes: int, seed: int = 1) -> float:
    """Seconds for nbytes / 4 calls of nmap's get_random_u32() with ``option`` refilling the cache."""
    address = rand_bytes_address() if option == "openssl" else 0
    start = time.perf_counter()
    _as_called.nmap_harness_run(option, nbytes, seed, address)
    return time.perf_counter() - start


@dataclass
class NmapRow:
    """One row of the table: a harness option (``option`` set) or an API-shape read size."""

    backend: str
    label: str
    nbytes: int
    seconds_runs: list[float] = field(default_factory=list)
    option: NmapOption | None = None
    how: str = ""

    @property
    def seconds(self) -> float:
        """Median seconds for ``nbytes``."""
        return statistics.median(self.seconds_runs)

    @property
    def mb_per_s(self) -> float:
        return self.nbytes / self.seconds / 1e6

    @property
    def seconds_256(self) -> float:
        """The median scaled to the mail's 256 MiB."""
        return self.seconds * NMAP_BYTES / self.nbytes


def nmap_table(nbytes: int = NMAP_BYTES, repeats: int = 3, seed: int = 1,
               on_row: Callable[[NmapRow], None] | None = None, api_shapes: bool = True) -> list[NmapRow]:
    """The mail's five options through nmap's harness, then /dev/urandom
    read 16 B, 2 KiB and 1 MiB per call without a cache.

    The options take turns within each repeat, so a change in the machine's
    load hits all of them alike and their ratios hold.
    """
    nbytes -= nbytes % 4
    rows = [NmapRow(option.backend, option.mail_label, nbytes, option=option, how=option.refill)
            for option in NMAP_OPTIONS]
    for option in NMAP_OPTIONS:
        harness_seconds(option.harness, 1 << 16, seed)  # library loading and page faults stay out
    for _ in range(repeats):
        for row in rows:
            assert row.option is not None
            row.seconds_runs.append(harness_seconds(row.option.harness, nbytes, seed))
    if on_row:
        for row in rows:
            on_row(row)
    if api_shapes:
        for call in NMAP_URANDOM_CALLS:
            name = f"urandom:{call}"
            speed: Speed = backend_speed(name, nbytes, repeats)
            row = NmapRow(name, "/dev/urandom", nbytes, how=f"read() {format_size(parse_size(call))} per call, no cache",
                          seconds_runs=[nbytes / (rate * 1e6) for rate in speed.rates])
            rows.append(row)
            if on_row:
                on_row(row)
    return rows


def harness_times(rows: list[NmapRow]) -> list[tuple[str, float, float, float]]:
    """(mail label, median seconds here, mail's Xeon s, mail's P4 s) of each
    harness option, all for the same length: what the report ranks."""
    return [(r.label, r.seconds_256, r.option.mail_xeon_s, r.option.mail_p4_s) for r in rows if r.option is not None]
