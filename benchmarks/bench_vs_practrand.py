"""Throughput of randqa's suites next to PractRand's RNG_test and ENT on one
file, measured in the same run, printed as MB/s and ratios.

    python benchmarks/bench_vs_practrand.py --practrand PATH/RNG_test [--size 1G] [--repeats 3]

Builds nothing: PATH is a PractRand 0.94 ``RNG_test`` built from its public
source (``build-practrand.sh`` in the shared tools does that); ENT is the
Debian package ``ent``.  Writes SIZE bytes of PCG64 output (seed 1) to a
temporary file (or tests --file), reads it once so it is in the page cache,
then times each command as a whole process, the commands taking turns in
each of --repeats rounds, and keeps each one's best wall and best CPU time:

- ``RNG_test stdin8`` and ``stdin64``, each alone and with ``-multithreaded``,
  the file on stdin, ``-tlmin`` and ``-tlmax`` both set to SIZE so that
  PractRand tests exactly the file once and prints one result.  PractRand
  reads a length ``1GB`` as 2^30 bytes and counts whole 1 KiB blocks, so SIZE
  must be a power of two of at least 1 KiB.  After each run the script checks
  that PractRand printed "(2^k bytes)" for SIZE and that it read the whole
  file from stdin (the file offset it left behind).
- ``ent FILE``.
- ``randqa test FILE`` (the standard suite) and ``--suite quick``, each with
  ``--jobs 1`` and ``--jobs 2``, its modules compiled to bytecode first, as
  an installed package's are.

Each row shows wall-clock MB/s (10^6 bytes per second) and MB per CPU
second (user + system time of the process and its threads, which is less
disturbed by other work on a shared machine), and both ratios against
PractRand stdin8 single-threaded and against ENT.  Only ratios measured in
one run mean anything.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

import randqa
from randqa._report.environment import cpu_model
from randqa.sizes import parse_size

from cpu_timing import children_cpu  # benchmarks/, the script's folder


@dataclass
class Row:
    label: str
    wall_s: float
    cpu_s: float


def write_stream(path: Path, size: int) -> None:
    gen = np.random.PCG64(1)
    with open(path, "wb") as f:
        left = size
        while left:
            n = min(left, 1 << 26)
            f.write(gen.random_raw(n // 8 + 1).astype("<u8").tobytes()[:n])
            left -= n


def time_once(command: list[str], stdin_path: Path | None, size: int) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of one run; with stdin_path, also
    checks that the process read that whole file from stdin."""
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    try:
        cpu = children_cpu()
        start = time.perf_counter()
        proc = subprocess.run(command, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
        wall = time.perf_counter() - start
        cpu = children_cpu() - cpu
        if proc.returncode != 0:
            sys.exit(f"{command[0]} exited with {proc.returncode}: {proc.stderr.decode().strip()[-300:]}")
        if stdin_path is not None:
            consumed = os.lseek(stdin.fileno(), 0, os.SEEK_CUR)
            if consumed != size:
                sys.exit(f"{' '.join(command)} read {consumed} bytes of stdin, not the file's {size}")
    finally:
        if stdin_path:
            stdin.close()
    return wall, cpu, proc.stdout.decode(errors="replace")


@dataclass
class Command:
    label: str
    argv: list[str]
    stdin_path: Path | None = None
    check: Callable[[str], None] | None = None


def best_in_turns(commands: list[Command], repeats: int, size: int) -> list[Row]:
    """Each command's best wall and best CPU time over ``repeats`` rounds in
    which every command runs once, in turn: a slow spell of a shared
    machine (another tenant, memory the host hands back) then falls on all
    of them alike, where running one command's repeats together would let
    it fall on one."""
    runs: dict[str, list[tuple[float, float]]] = {c.label: [] for c in commands}
    for _ in range(repeats):
        for c in commands:
            wall, cpu, out = time_once(c.argv, c.stdin_path, size)
            if c.check:
                c.check(out)
            runs[c.label].append((wall, cpu))
    rows = []
    for c in commands:
        wall, cpu = min(w for w, _ in runs[c.label]), min(u for _, u in runs[c.label])
        print(f"  {c.label}: {wall:.2f} s wall, {cpu:.2f} s CPU", file=sys.stderr, flush=True)
        rows.append(Row(c.label, wall, cpu))
    return rows


def practrand_length_check(size: int) -> Callable[[str], None]:
    def check(out: str) -> None:
        m = re.search(r"length=.*\(2\^(\d+(?:\.\d+)?) bytes\)", out)
        if not m or 2.0 ** float(m.group(1)) != size:
            sys.exit(f"RNG_test did not report testing 2^{size.bit_length() - 1} bytes:\n{out[-500:]}")
    return check


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--practrand", required=True, help="path of PractRand's RNG_test (0.94)")
    parser.add_argument("--ent", default=shutil.which("ent"), help="path of ENT (default: ent on PATH)")
    parser.add_argument("--size", default="1G", help="bytes of PCG64 output (a power of two; default 1G)")
    parser.add_argument("--file", help="test this file instead of writing one (its size must be a power of two)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per command; the best counts (default 3)")
    args = parser.parse_args()
    practrand = os.path.abspath(args.practrand)
    if not os.access(practrand, os.X_OK):
        sys.exit(f"--practrand {args.practrand}: not an executable file")
    if not args.ent:
        sys.exit("ENT not found: install it (apt-get install ent) or give --ent PATH")

    with tempfile.TemporaryDirectory() as tmp:
        if args.file:
            path = Path(args.file)
            size = path.stat().st_size
        else:
            size = parse_size(args.size)
            path = Path(tmp) / "pcg64.bin"
            write_stream(path, size)
        if size < 1024 or size & (size - 1):
            sys.exit(f"the file's size ({size} bytes) must be a power of two of at least 1 KiB for PractRand's -tlmax")
        with open(path, "rb") as f:  # into the page cache, so no command pays for the disk
            while f.read(1 << 24):
                pass
        length = f"{size // 1024}KB"
        commands: list[Command] = []
        for threads in ([], ["-multithreaded"]):
            for word in ("stdin8", "stdin64"):
                label = f"PractRand RNG_test {word}{' -multithreaded' if threads else ' (1 thread)'}"
                command = [practrand, word, "-tlmin", length, "-tlmax", length, *threads]
                commands.append(Command(label, command, path, practrand_length_check(size)))
        commands.append(Command("ent FILE", [args.ent, str(path)]))
        # randqa's modules compiled to bytecode first, as a pip install
        # compiles them: with PYTHONDONTWRITEBYTECODE set (as on this
        # workplace's machines) an editable install would otherwise compile
        # its source again in every run
        package = Path(randqa.__file__).parent
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True, stdout=subprocess.DEVNULL)
        randqa_test = [sys.executable, "-m", "randqa", "test", str(path), "--no-progress"]
        for suite in ("standard", "quick"):
            for jobs in (1, 2):
                label = f"randqa test FILE{' (standard)' if suite == 'standard' else ' --suite quick'}{f' --jobs {jobs}' if jobs > 1 else ''}"
                commands.append(Command(label, [*randqa_test, "--suite", suite, "--jobs", str(jobs)]))
        rows = best_in_turns(commands, args.repeats, size)

    practrand_row = rows[0]
    ent_row = next(r for r in rows if r.label == "ent FILE")
    print(f"{size} bytes ({size / 2**30:g} GiB) of PCG64, best of {args.repeats} rounds; {cpu_model()}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the end")
    print(f"{'command':<44} {'MB/s':>6} {'MB/CPU-s':>8} {'x PR8':>6} {'x ENT':>6} {'CPU x PR8':>9} {'CPU x ENT':>9}")
    for r in rows:
        mb, mb_cpu = size / r.wall_s / 1e6, size / r.cpu_s / 1e6
        print(f"{r.label:<44} {mb:6.0f} {mb_cpu:8.0f} {practrand_row.wall_s / r.wall_s:6.2f} {ent_row.wall_s / r.wall_s:6.2f}"
              f" {practrand_row.cpu_s / r.cpu_s:9.2f} {ent_row.cpu_s / r.cpu_s:9.2f}")
    print("x PR8: speed relative to PractRand stdin8 single-threaded; x ENT: relative to ENT; CPU: by CPU seconds")


if __name__ == "__main__":
    main()
