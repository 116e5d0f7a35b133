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

:func:`nmap_answer` states, from a compare document's measured numbers,
what the mail asked: which option is fastest as applications call it, and
how many bytes each takes to fail.
"""

from __future__ import annotations

import ctypes
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable

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

#: where the rc4 suite's fluhrer_mcgrew first fails one long stream of each
#: ARC4 option (README, suite rc4); the length depends on the seed: one
#: dnet-arc4 run was suspicious at 16 GiB and failed at 32 GiB
ARC4_LONG_STREAM = {
    "dnet-arc4": "16-32 GiB",
    "arc4": "16-32 GiB",
    "arc4-drop": "16-32 GiB",
}
RC4_COMMAND = "randqa test {name} --suite rc4 --tests fluhrer_mcgrew --progressive --min 1G --max 64G"


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


@dataclass
class Ranking:
    """Harness options fastest first: (mail label, time / the fastest's time) per column."""

    here: list[tuple[str, float]]
    xeon: list[tuple[str, float]]
    p4: list[tuple[str, float]]


def _ranked(times: dict[str, float]) -> list[tuple[str, float]]:
    best = min(times.values())
    return [(label, t / best) for label, t in sorted(times.items(), key=lambda kv: kv[1])]


def ranking(rows: list[NmapRow]) -> Ranking:
    """The options ranked by time on this machine and on the mail's two machines."""
    harness = [r for r in rows if r.option is not None]
    return Ranking(_ranked({r.label: r.seconds for r in harness}),
                   _ranked({r.label: r.option.mail_xeon_s for r in harness if r.option}),
                   _ranked({r.label: r.option.mail_p4_s for r in harness if r.option}))


def _times(x: float) -> str:
    """A ratio with two significant figures, never in exponent form."""
    return f"{x:.2f}x" if x < 1 else f"{x:.1f}x" if x < 10 else f"{x:.0f}x"


def what_changed(rows: list[NmapRow]) -> str:
    """One sentence, from the measured times, on how this machine differs from the mail's."""
    harness = [r for r in rows if r.option is not None]
    arc4 = next((r for r in harness if r.backend == "dnet-arc4"), None)
    if arc4 is None or arc4.option is None or len(harness) < 2:
        return ""
    ranks = ranking(rows)
    here, xeon, p4 = ranks.here[0][0], ranks.xeon[0][0], ranks.p4[0][0]
    if here == xeon == p4:
        lead = f"{here} is fastest here, as on both the mail's machines"
    elif here == xeon:
        lead = f"{here} is fastest here, as on the mail's Xeon (its P4: {p4})"
    elif here == p4:
        lead = f"{here} is fastest here, as on the mail's P4 (its Xeon: {xeon})"
    else:
        lead = f"{here} is fastest here, where the mail's Xeon had {xeon} and its P4 {p4}"
    parts = [f"{r.label} {_times(r.seconds / arc4.seconds)} (Xeon {_times(r.option.mail_xeon_s / arc4.option.mail_xeon_s)})"
             for r in harness if r is not arc4 and r.option is not None]
    return f"What changed: {lead}; in multiples of dnet_rand's time, " + ", ".join(parts) + "."


# ---------------------------------------------------------------------------
# the answer, from a compare document

def nmap_answer(runs: list[dict[str, Any]]) -> list[str]:
    """Lines answering the mail's question from measured compare runs: the
    fastest option as applications call it, the bytes each takes to fail,
    and what the rc4 suite finds on long ARC4 streams.  Empty unless at
    least two of the mail's options were compared with a speed."""
    by_name = {run["source"]["name"]: run for run in runs}
    options = [by_name[o.backend] for o in NMAP_OPTIONS if o.backend in by_name and by_name[o.backend].get("speed_mb_s")]
    if len(options) < 2:
        return []
    ordered = sorted(options, key=lambda r: -r["speed_mb_s"])
    best = ordered[0]
    others = ", ".join(f"{r['source']['name']} {r['speed_mb_s']:,.1f} ({_times(best['speed_mb_s'] / r['speed_mb_s'])} slower)"
                       for r in ordered[1:])
    lines = ["nmap's question, answered from this run (MB/s as applications call each option):",
             f"  fastest: {best['source']['name']} at {best['speed_mb_s']:,.1f} MB/s; then {others}"]
    survivors = [r for r in ordered if _failed_at(r) is None]
    if survivors and survivors[0] is not best:
        lines.append(f"  fastest that did not fail: {survivors[0]['source']['name']} at {survivors[0]['speed_mb_s']:,.1f} MB/s")
    lines.append("  bytes to fail (suite " + best.get("suite", "?") + "): "
                 + "; ".join(f"{r['source']['name']} {_failure_text(r)}" for r in sorted(options, key=_failure_order)))
    for run in runs:
        name = run["source"]["name"]
        base = name.partition(":")[0]
        if base in ARC4_LONG_STREAM and run.get("speed_mb_s"):
            tested = format_size(run["bytes_tested"])
            now = "still passes" if _failed_at(run) is None and run["verdict"] != "fail" else "already fails"
            lines.append(f"  {name} on long streams: `{RC4_COMMAND.format(name=name)}` fails at {ARC4_LONG_STREAM[base]} "
                         f"(RC4's Fluhrer-McGrew digraph biases); this run stopped at {tested}, where {name} {now}.")
    return lines


def _failed_at(run: dict[str, Any]) -> int | None:
    """Bytes at first failure; a plain (not progressive) failing run fails at its length."""
    if run.get("first_failure_bytes") is not None:
        return int(run["first_failure_bytes"])
    return int(run["bytes_tested"]) if run.get("verdict") == "fail" else None


def _failure_text(run: dict[str, Any]) -> str:
    at = _failed_at(run)
    if at is None:
        return f"none up to {format_size(run['bytes_tested'])}"
    located = "first_failure_bytes" in run
    return format_size(at) if located else f"fails at {format_size(at)} (one length tested)"


def _failure_order(run: dict[str, Any]) -> tuple[int, float]:
    at = _failed_at(run)
    return (1, 0.0) if at is None else (0, float(at))
