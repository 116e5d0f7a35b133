"""Where the standard suite first fails each runtime generator, beside
PractRand 0.94's first FAIL on the same bytes, measured in one run.

    python benchmarks/bench_runtimes_vs_practrand.py --practrand PATH/RNG_test [--max 256M] [--seed 1] [NAME ...]

NAME: runtime backends (``randqa list``, group runtimes; default: all of
them, randqa's bit-exact C, whose bytes the -live twins equal).  For each:

- ``randqa test NAME --seed S --progressive --min 1K --max MAX --jobs 1``:
  the first failing length (``first_failure_bytes``) of the standard suite;
- ``randqa generate NAME --seed S -n MAX | RNG_test stdin8 -tlmin 1KB
  -tlmax MAX``, and ``stdin32`` or ``stdin64`` too when the backend writes
  32- or 64-bit values: PractRand tests doubling lengths from 1 KiB and
  stops after the first length whose results include a FAIL (its default
  ``-tlfail``); the earliest of its modes counts.  PractRand 0.94 is not part
  of randqa: build RNG_test from its public source and give its path.

Both read the same stream (the same backend and seed).  A generator is weak
when either tester fails it within MAX; randqa must fail every weak one no
later than PractRand.  The script prints one row per generator, then the
count, and exits 1 if randqa fails some weak generator later than
PractRand (or not at all), so the claim is checked, not just shown.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass

from randqa.report.environment import cpu_model
from randqa.sizes import format_size, parse_size
from randqa.sources.runtimes import find_runtime_backend, runtime_backends

#: PractRand's result block for one length, and a failure inside it
LENGTH_LINE = re.compile(r"^length=.*\(2\^(\d+(?:\.\d+)?) bytes\)", re.M)


@dataclass
class Row:
    name: str
    bits: int
    randqa: int | None
    practrand: dict[str, int | None]
    randqa_s: float
    practrand_s: float

    @property
    def earliest_practrand(self) -> int | None:
        fails = [v for v in self.practrand.values() if v is not None]
        return min(fails) if fails else None

    @property
    def weak(self) -> bool:
        return self.randqa is not None or self.earliest_practrand is not None

    @property
    def no_later(self) -> bool:
        pr = self.earliest_practrand
        return pr is None or (self.randqa is not None and self.randqa <= pr)


def randqa_first_failure(name: str, seed: int, limit: int) -> int | None:
    command = [sys.executable, "-m", "randqa", "test", name, "--seed", str(seed), "--progressive", "--min", "1K",
               "--max", str(limit), "--jobs", "1", "--no-progress", "--json", "-"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()[-300:]}")
    return json.loads(done.stdout)["first_failure_bytes"]


def practrand_first_failure(practrand: str, word: str, name: str, seed: int, limit: int) -> int | None:
    """PractRand's first failing length on ``randqa generate``'s bytes, or None up to ``limit``."""
    generate = subprocess.Popen([sys.executable, "-m", "randqa", "generate", name, "--seed", str(seed), "-n", str(limit)],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert generate.stdout is not None
    try:
        done = subprocess.run([practrand, word, "-tlmin", "1KB", "-tlmax", f"{limit // 1024}KB"], stdin=generate.stdout,
                              capture_output=True, text=True, check=False)
    finally:
        generate.stdout.close()
        generate.wait()
    if done.returncode != 0:
        sys.exit(f"RNG_test {word} on {name} exited {done.returncode}: {done.stderr.strip()[-300:]}")
    blocks = LENGTH_LINE.split(done.stdout)
    # split gives [head, exponent, block, exponent, block, ...]
    for exponent, block in zip(blocks[1::2], blocks[2::2]):
        if "FAIL" in block:
            return int(round(2.0 ** float(exponent)))
    lengths = [float(e) for e in blocks[1::2]]
    if not lengths or 2.0 ** max(lengths) != limit:
        sys.exit(f"RNG_test {word} on {name} stopped before {limit} bytes without a FAIL:\n{done.stdout[-500:]}")
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help="runtime backends (default: all)")
    parser.add_argument("--practrand", required=True, help="path of PractRand's RNG_test (0.94)")
    parser.add_argument("--max", default="256M", help="longest length tested (a power of two; default 256M)")
    parser.add_argument("--seed", type=int, default=1, help="seed of every generator (default 1)")
    args = parser.parse_args()
    practrand = os.path.abspath(args.practrand)
    if not os.access(practrand, os.X_OK):
        sys.exit(f"--practrand {args.practrand}: not an executable file")
    limit = parse_size(args.max)
    if limit < 1024 or limit & (limit - 1):
        sys.exit(f"--max {args.max}: PractRand's lengths are powers of two of at least 1 KiB")
    names = args.names or [b.name for b in runtime_backends()]
    backends = []
    for name in names:
        backend = find_runtime_backend(name)
        if backend is None or name != backend.name:
            sys.exit(f"{name}: not a runtime backend (randqa list, group runtimes; the -live twins write the same bytes)")
        backends.append(backend)

    start = time.perf_counter()
    rows = []
    for backend in backends:
        words = ["stdin8"] + ([f"stdin{backend.bits_per_call}"] if backend.bits_per_call in (32, 64) else [])
        t0 = time.perf_counter()
        ours = randqa_first_failure(backend.name, args.seed, limit)
        t1 = time.perf_counter()
        theirs = {word: practrand_first_failure(practrand, word, backend.name, args.seed, limit) for word in words}
        row = Row(backend.name, backend.bits_per_call, ours, theirs, t1 - t0, time.perf_counter() - t1)
        rows.append(row)
        shown = ", ".join(f"{w} {format_size(v) if v else '-'}" for w, v in theirs.items())
        print(f"  {backend.name}: randqa {format_size(ours) if ours else '-'} ({row.randqa_s:.1f} s); "
              f"PractRand {shown} ({row.practrand_s:.1f} s)", file=sys.stderr, flush=True)

    print(f"first failure up to {format_size(limit)}, seed {args.seed}, standard suite vs PractRand 0.94 "
          f"(stdin8; stdin32/64 for 32/64-bit values); {cpu_model()}, {os.cpu_count()} CPUs, "
          f"{time.perf_counter() - start:.0f} s in all")
    width = max(len(r.name) for r in rows)
    print(f"{'generator':<{width}}  {'bits':>4}  {'randqa':>9}  {'PractRand':>9}  {'mode':<7}  {'x earlier':>9}  verdict")
    for r in rows:
        pr = r.earliest_practrand
        mode = min((w for w, v in r.practrand.items() if v == pr), default="") if pr else ""
        ratio = f"{pr / r.randqa:.0f}x" if pr and r.randqa else ""
        verdict = ("no later" if r.no_later else "LATER") if r.weak else "neither fails"
        print(f"{r.name:<{width}}  {r.bits:>4}  {format_size(r.randqa) if r.randqa else '-':>9}  "
              f"{format_size(pr) if pr else '-':>9}  {mode:<7}  {ratio:>9}  {verdict}")
    weak = [r for r in rows if r.weak]
    later = [r.name for r in weak if not r.no_later]
    print(f"{len(weak)} of {len(rows)} generators fail within {format_size(limit)}; randqa fails "
          f"{len(weak) - len(later)} of them no later than PractRand" + (f"; later: {', '.join(later)}" if later else ""))
    sys.exit(1 if later else 0)


if __name__ == "__main__":
    main()
