"""Compiled backends versus plain C loops of the same algorithms.

Builds benchmarks/c_reference/loops.c with the flags the extension is
built with (gcc -O3), in this run, then for each of randqa's compiled
backends prints the C loop's MB/s, the backend's MB/s through the Python
Source API (1 MiB reads, as the engine reads), their ratio (target
>= 0.8), and whether both produced the same first bytes for the seed.

    python benchmarks/bench_backends.py [-n 64M] [--repeats 5] [--seed 1]

Exits 1 if any ratio is below the target or any output differs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from randqa.speed.generation import generation_rates
from randqa.sizes import format_size, parse_size
from randqa.sources.backends import compiled_backend_names, open_backend
from randqa.sources.base import read_full

TARGET = 0.8
HERE = Path(__file__).resolve().parent


def build(workdir: str) -> str:
    """Compile the reference loops; returns the executable's path."""
    cc = os.environ.get("CC", "gcc")
    if shutil.which(cc) is None:
        sys.exit(f"bench_backends: {cc} not found")
    exe = os.path.join(workdir, "loops")
    subprocess.run([cc, "-O3", "-o", exe, str(HERE / "c_reference" / "loops.c")], check=True)
    return exe


def c_loop(exe: str, name: str, seed: int, nbytes: int, repeats: int) -> tuple[float, str]:
    out = subprocess.run([exe, name, str(seed), str(nbytes), str(repeats)], check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), out[1]


def backend_first_bytes(name: str, seed: int) -> str:
    buffer = bytearray(16)
    with open_backend(name, seed) as source:
        read_full(source, memoryview(buffer))
    return buffer.hex()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--bytes", default="64M", help="bytes per run (default 64M; whole MiB)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("names", nargs="*", help="backends (default: every compiled one)")
    args = parser.parse_args()
    nbytes = parse_size(args.bytes) // (1 << 20) * (1 << 20) or 1 << 20
    names = args.names or compiled_backend_names()
    worst = float("inf")
    mismatches = 0
    with tempfile.TemporaryDirectory() as workdir:
        exe = build(workdir)
        print(f"C loop (gcc -O3, built now) vs randqa backend: {args.repeats} alternating run pairs x "
              f"{format_size(nbytes)}, median MB/s and median pair ratio, seed {args.seed}; target ratio >= {TARGET}")
        print(f"{'backend':<18} {'C loop MB/s':>12} {'randqa MB/s':>12} {'ratio':>7}  same bytes")
        for name in names:
            # C and Python runs alternate, so a load spike from elsewhere on the
            # machine hits both sides of a pair; the ratio is the median pair ratio
            c_rates, py_rates = [], []
            for _ in range(args.repeats):
                c_rate, c_first = c_loop(exe, name, args.seed, nbytes, 1)
                c_rates.append(c_rate)
                py_rates.extend(generation_rates(lambda: open_backend(name, args.seed), nbytes, 1))
            c_rate, py_rate = statistics.median(c_rates), statistics.median(py_rates)
            ratio = statistics.median(p / c for p, c in zip(py_rates, c_rates))
            same = backend_first_bytes(name, args.seed) == c_first
            worst = min(worst, ratio)
            mismatches += not same
            flag = "" if ratio >= TARGET else "  below target"
            print(f"{name:<18} {c_rate:>12.1f} {py_rate:>12.1f} {ratio:>6.2f}x  {'yes' if same else 'NO'}{flag}", flush=True)
        libc_rate, _ = c_loop(exe, "libc-rand-byte", args.seed, nbytes, args.repeats)
        print(f"{'(libc rand() per byte, the real glibc call)':<44} {libc_rate:>8.1f} MB/s")
    print(f"lowest ratio {worst:.2f}x; {'all' if worst >= TARGET else 'NOT all'} at or above {TARGET}x; "
          f"{mismatches} output mismatch(es)")
    return 0 if worst >= TARGET and mismatches == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
