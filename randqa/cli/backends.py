"""CLI commands about generator backends: ``list``, ``generate``, ``bench``."""

from __future__ import annotations

import os
import sys
from typing import Any

import click
import numpy as np

from randqa.cli.common import CLOSED_STREAMS, EXIT_OK, silence_stdout, table_stream
from randqa.cli.streams import stream_options
from randqa.engine.options import click_option
from randqa.errors import OutputClosed, OutputError, UsageError
from randqa.files import check_output_paths
from randqa.sizes import format_size
from randqa.sources import open_named_backend
from randqa.sources.base import read_full

#: `randqa bench` name that times the three ways of holding /dev/urandom
URANDOM_STRATEGIES = "urandom-strategies"
_GROUP_TITLES = {
    "nmap": "from nmap's PRNG benchmark",
    "linux": "from the Linux prandom_u32 thread",
    "classic": "classic references",
    "runtimes": "the runtimes' own generators (NAME: randqa's bit-exact C; NAME-live: the installed runtime itself)",
    "numpy": "numpy / randomgen bit generators",
    "plugin": "plugins (entry-point group randqa.backends)",
}


@click.command("list")
@click.option("--names", "names_only", is_flag=True, help="Print only the names, one per line.")
def list_command(names_only: bool) -> int:
    """List the generator backends `randqa test NAME` accepts."""
    from randqa.sources.backends import backends

    rows = backends()
    if names_only:
        for b in rows:
            print(b.name)
        return EXIT_OK
    width = max(len(b.name) for b in rows)
    group = None
    for b in rows:
        if b.group != group:
            if group is not None:
                print()
            group = b.group
            print(f"# {_GROUP_TITLES.get(group, group)}")
        print(f"{b.name:<{width}}  {b.summary}")
    print()
    print("# also: module:attribute naming a numpy BitGenerator class or factory (e.g. numpy.random:PCG64)")
    return EXIT_OK


def _write_all(fd: int, data: memoryview) -> None:
    while len(data):
        written = os.write(fd, data)
        data = data[written:]


@click.command("generate")
@click.argument("name", metavar="NAME")
@click_option("n", help="How much to write (64K, 16M, 1G). Default: until the reader closes the pipe.")
@click_option("seed", help="Seed (default: drawn from the OS and printed on stderr).")
@click.option("-o", "--output", "output_path", metavar="PATH", help="Write to PATH instead of stdout.")
@click.option("--quiet", is_flag=True, help="Do not print the backend and seed on stderr.")
@stream_options
def generate_command(name: str, size: int | None, seed: int | None, output_path: str | None, quiet: bool,
                     streams: int | None, stream_seeds: str | None, interleave: int | None) -> int:
    """Write backend NAME's raw bytes to stdout, e.g. to feed PractRand, dieharder or ENT.

    The backend and the seed used go to stderr as one line, so any run can
    be repeated with --seed.  With --streams, the interleaved bytes of its
    streams, as `randqa test NAME --streams` tests them.
    """
    from randqa.engine.plan import check_stream_options, check_stream_values

    check_stream_values(streams, interleave)
    check_stream_options(streams, stream_seeds, interleave)
    if output_path is None and sys.stdout.isatty():
        raise UsageError("stdout is a terminal: pipe the bytes into a program or use -o PATH")
    if output_path is None and 1 in CLOSED_STREAMS:
        raise OutputClosed()  # no reader will ever end an endless stream
    if streams is not None:
        from randqa.interleaving import StreamLayout
        from randqa.sources.multistream import open_streams

        source = open_streams(name, seed, StreamLayout(streams, stream_seeds or "", interleave))
    else:
        source = open_named_backend(name, seed)
    fd = os.open(output_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666) if output_path else sys.stdout.fileno()
    announcement = None
    if not quiet:
        note = "" if source.describe().get("reproducible", True) else " (not reproducible)"
        amount = "endless" if size is None else format_size(size)
        announcement = f"randqa generate: {source.name} seed {source.seed}{note}, {amount}"
    buffer = np.empty(1 << 20, dtype=np.uint8)
    view = memoryview(buffer)
    left = size
    try:
        with source:
            while left is None or left > 0:
                want = len(view) if left is None else min(len(view), left)
                got = read_full(source, view[:want])
                written = 0
                if announcement:  # once the output takes bytes: one that refuses them gets only the error line
                    written = os.write(fd, view[:got])
                    print(announcement, file=sys.stderr, flush=True)
                    announcement = None
                _write_all(fd, view[written:got])
                if left is not None:
                    left -= got
    except BrokenPipeError:
        # the reader has all it wants (`| head -c`, PractRand stopping): end quietly
        silence_stdout()
    except OSError as exc:  # a full disk, /dev/full
        raise OutputError(f"cannot write to {output_path or 'stdout'} ({exc.strerror or exc})") from None
    finally:
        if output_path:
            os.close(fd)
    return EXIT_OK


def _speed_row(name: str, nbytes: int, repeats: int, seed: int | None) -> dict[str, Any]:
    from randqa.speed.as_called import as_called_speed

    timed = as_called_speed(name, nbytes, repeats, seed)
    speed = timed.speed
    note = {} if timed.note is None else {"note": timed.note}
    return {"backend": name, "mb_per_s": None if speed is None else round(speed.median, 1),
            "min_mb_per_s": None if speed is None else round(min(speed.rates), 1),
            "max_mb_per_s": None if speed is None else round(max(speed.rates), 1), "speed_method": timed.method,
            "generation_mb_per_s": round(timed.generation.median, 1), "runs": repeats,
            "bytes_per_run": nbytes if speed is None else speed.nbytes, **note}


def _bench_backends(names: list[str], nbytes: int, repeats: int, seed: int | None) -> list[dict[str, Any]]:
    from randqa._report.speed_notes import FEED_NOTE
    from randqa.speed.as_called import speed_method

    for name in names:  # every name checked before anything is timed
        open_named_backend(name, seed).close()
    width = max(len(n) for n in names + ["backend"])
    print(f"speed as applications call each backend: {repeats} runs x {format_size(nbytes)}, seed {seed}; MB = 10^6 bytes")
    print(f"{'backend':<{width}}  {'MB/s':>9}  {'min':>9}  {'max':>9}  {'feed MB/s':>9}  how it is called")
    rows = []
    for name in names:
        row = _speed_row(name, nbytes, repeats, seed)
        rows.append(row)
        cells = [f"{row[key]:>9.1f}" if row[key] is not None else f"{'-':>9}"
                 for key in ("mb_per_s", "min_mb_per_s", "max_mb_per_s")]
        print(f"{name:<{width}}  {'  '.join(cells)}  {row['generation_mb_per_s']:>9.1f}  "
              f"{row.get('note') or speed_method(name)}", flush=True)
    print(f"feed MB/s: {FEED_NOTE}")
    return rows


def _bench_nmap(nbytes: int, repeats: int) -> dict[str, Any]:
    from randqa._report.speed_notes import ranking, what_changed
    from randqa.speed.nmap import NMAP_BYTES, NmapRow, harness_times, nmap_table

    print(f"nmap-dev PRNG benchmark, its harness on this machine: get_random_u32() over nmap's 2 KiB cache, "
          f"refilled by each option (C); {format_size(nbytes)} per run, median of {repeats} run{'' if repeats == 1 else 's'}")
    print("(mail: median 'real' seconds of its 3 runs for 256 MiB; MB = 10^6 bytes)")
    header = (f"{'option':<16}  {'mail name':<13}  {'how the bytes come':<42}  {'seconds':>8}  {'MB/s':>8}  "
              f"{'s/256MiB':>8}  {'mail Xeon s':>11}  {'mail P4 s':>9}")
    print(header)
    rows: list[dict[str, Any]] = []
    shape_header = [False]

    def show(row: NmapRow) -> None:
        if row.option is None and not shape_header[0]:
            shape_header[0] = True
            print("API shape: /dev/urandom without the cache, small and large read() calls")
        xeon = "" if row.option is None else f"{row.option.mail_xeon_s:.3f}"
        p4 = "" if row.option is None else f"{row.option.mail_p4_s:.3f}"
        print(f"{row.backend:<16}  {row.label:<13}  {row.how:<42}  {row.seconds:>8.3f}  {row.mb_per_s:>8.1f}  "
              f"{row.seconds_256:>8.3f}  {xeon:>11}  {p4:>9}".rstrip(), flush=True)
        rows.append({"backend": row.backend, "mail_name": row.label, "how": row.how,
                     "harness": row.option is not None, "seconds": round(row.seconds, 4),
                     "mb_per_s": round(row.mb_per_s, 1), "seconds_per_256_mib": round(row.seconds_256, 4),
                     "mail_xeon_s": None if row.option is None else row.option.mail_xeon_s,
                     "mail_p4_s": None if row.option is None else row.option.mail_p4_s,
                     "runs": repeats, "bytes_per_run": row.nbytes})

    table = nmap_table(nbytes, repeats, on_row=show)
    times = harness_times(table)
    ranks = ranking(times)
    print()
    print("ranking through the harness, fastest first (time as a multiple of the fastest's):")
    print(f"    {'this machine':<22}  {'mail, Xeon':<22}  mail, P4")
    for place, (here, xeon, p4) in enumerate(zip(ranks.here, ranks.xeon, ranks.p4), start=1):
        cells = [f"{label:<14} {ratio:>6.2f}x" for label, ratio in (here, xeon, p4)]
        print(f"{place:>2}  " + "  ".join(cells))
    sentence = what_changed(times)
    if sentence:
        print(sentence)
    if nbytes != NMAP_BYTES:
        print(f"(timed {format_size(nbytes)} per run; s/256MiB scales that to the mail's length)")
    return {"rows": rows, "ranking": {"this_machine": ranks.here, "mail_xeon": ranks.xeon, "mail_p4": ranks.p4},
            "what_changed": sentence}


def _bench_strategies(nbytes: int, repeats: int) -> list[dict[str, Any]]:
    from randqa.speed.urandom_strategies import StrategyRow, urandom_strategy_table

    print("/dev/urandom strategies (s2n-tls PR): microseconds per read() call, median of "
          f"{repeats} runs; % = longer than the cached fd")
    print(f"{'read size':>10}  {'calls':>7}  {'cached fd':>10}  {'fd + fstat check':>20}  {'open per call':>20}")
    rows: list[dict[str, Any]] = []

    def show(row: StrategyRow) -> None:
        m = row.micros
        print(f"{format_size(row.call_bytes):>10}  {row.calls:>7}  {m['cached']:>7.3f} us  "
              f"{m['check']:>8.3f} us ({row.overhead('check'):+6.2f}%)  {m['reopen']:>8.3f} us ({row.overhead('reopen'):+6.1f}%)",
              flush=True)
        rows.append({"read_bytes": row.call_bytes, "calls": row.calls, "cached_us": round(m["cached"], 4),
                     "check_us": round(m["check"], 4), "reopen_us": round(m["reopen"], 4),
                     "check_overhead_pct": round(row.overhead("check"), 2),
                     "reopen_overhead_pct": round(row.overhead("reopen"), 2)})

    urandom_strategy_table(nbytes=nbytes, repeats=repeats, on_row=show)
    print("(the PR timed whole TLS handshakes: fstat check +0.40% on average, open per call +1.23%;"
          " here the % is of one read() call)")
    return rows


@click.command("bench")
@click.argument("names", nargs=-1, metavar="[NAME]...")
@click_option("n", help="Bytes per run (default 64 MiB; 256 MiB with --nmap).")
@click.option("--repeats", type=click.IntRange(min=1), help="Runs per backend; the median is shown (default 5; 3 with --nmap).")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True, help="Seed of the generators timed.")
@click.option("--nmap", is_flag=True, help="Reproduce nmap-dev's PRNG benchmark, its harness and table, on this machine.")
@click.option("--all", "all_backends", is_flag=True, help="Time every backend, not only randqa's compiled ones.")
@click.option("--json", "json_path", metavar="PATH", help="Also write the timings as JSON to PATH ('-' for stdout).")
def bench_command(names: tuple[str, ...], size: int | None, repeats: int | None, seed: int, nmap: bool,
                  all_backends: bool, json_path: str | None) -> int:
    """Time backends in MB/s as applications call them (default: every compiled backend).

    glibc-rand* call the real libc rand() once per output; the feed column
    is randqa's own reimplementation, which feeds the tests.  --nmap runs
    nmap-dev's benchmark harness (2 KiB cache, get_random_u32) per option.

    NAME may also be `urandom-strategies`: cached fd vs fstat check vs
    open-per-call on /dev/urandom, as the s2n-tls PR measured.
    """
    from randqa._report.json_report import write_json
    from randqa.sources.backends import backend_names, compiled_backend_names

    check_output_paths({"--json": json_path})
    out = table_stream(json_path)
    report: dict[str, Any] = {}
    old_stdout = sys.stdout
    sys.stdout = out
    try:
        if nmap:
            report["nmap"] = _bench_nmap(size or 256 << 20, repeats or 3)
        wanted = list(names)
        if not wanted and not nmap:
            wanted = backend_names() if all_backends else compiled_backend_names()
        generators = [n for n in wanted if n != URANDOM_STRATEGIES]
        if generators:
            if report:
                print()
            report["backends"] = _bench_backends(generators, size or 64 << 20, repeats or 5, seed)
        if URANDOM_STRATEGIES in wanted:
            if report:
                print()
            report["urandom_strategies"] = _bench_strategies(size or 64 << 20, repeats or 5)
    finally:
        sys.stdout = old_stdout
    if json_path:
        write_json(report, json_path)
    return EXIT_OK


COMMANDS: list[click.Command] = [list_command, generate_command, bench_command]
