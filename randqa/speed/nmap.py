"""nmap-dev's PRNG benchmark (Brandon Enright's mail): 256 MiB from
/dev/urandom, OpenSSL, ``rand()`` a byte or a short at a time, and
libdnet's ARC4, with the mail's own timings beside ours, and the API shape
it varied: /dev/urandom read 16 bytes, 2 KiB or 1 MiB per call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from randqa.sizes import format_size, parse_size
from randqa.speed.generation import Speed, backend_speed

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


