"""Generator families randqa was never tuned on: where randqa's standard suite
first fails each, beside PractRand 0.94's first FAIL on the same bytes.

    python benchmarks/bench_families_vs_practrand.py --practrand PATH/RNG_test [--max 1G] [--seed 1] [NAME ...]

NAME: families of benchmarks/c_reference/families.c (default: all of them),
some thirty generators written in C from their published descriptions
(subtract-with-borrow, WELL, TinyMT, xorshift and xoshiro variants, LFSRs,
MRG32k3a, MCGs, lagged Fibonacci, multiply-with-carry, KISS, middle-square
Weyl, java.util.Random, a 16-bit PCG, ...), none of which randqa's suites
were built or calibrated against.  The script compiles families.c with cc
(``$CC``) into a temporary folder and runs ``families check``, its
known-answer checks, first: a wrong answer ends the run.  Then for each
family, one tester at a time:

- ``families NAME SEED | randqa test - --progressive --min 1K --max MAX
  --jobs 1``: the first failing length (``first_failure_bytes``) of the
  standard suite and the tests failed there;
- ``families NAME SEED | RNG_test stdinW -tlmin 1KB -tlmax MAX``, W the
  family's value width (8 for the 24- and 48-bit ranlux bases, whose values
  fit no PractRand word): PractRand tests doubling lengths from 1 KiB and
  stops after the first length whose results include a FAIL (its default
  ``-tlfail``).  PractRand is not part of randqa: build RNG_test from its
  public source and give its path.

Both read the same bytes (the same family and seed).  A family is weak when
either tester fails it within MAX; randqa must fail every weak one no later
than PractRand.  The script prints one row per family, then the counts, and
exits 1 if randqa fails some family later than PractRand or not at all where
PractRand fails, so the claim is checked, not just shown; 0 otherwise.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from _practrand import (FirstFailure, comparison_parser, doubling_limit, practrand_first_failure_on, practrand_path,
                        randqa_first_failure_on)

from randqa._report.environment import cpu_model
from randqa.sizes import format_size

SOURCE = Path(__file__).resolve().parent / "c_reference" / "families.c"


@dataclass
class Row:
    name: str
    bits: int
    randqa: FirstFailure
    practrand: FirstFailure

    @property
    def weak(self) -> bool:
        return self.randqa.length is not None or self.practrand.length is not None

    @property
    def no_later(self) -> bool:
        """randqa fails, and no later than PractRand (or PractRand does not fail)."""
        ours, theirs = self.randqa.length, self.practrand.length
        return ours is not None and (theirs is None or ours <= theirs)

    @property
    def verdict(self) -> str:
        if not self.weak:
            return "neither fails"
        if not self.no_later:
            return "LATER" if self.randqa.length is not None else "MISSED"
        return "only randqa" if self.practrand.length is None else "no later"


def build(workdir: str) -> str:
    """Compile families.c; returns the executable's path (exits with one line if it cannot)."""
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        sys.exit(f"bench_families_vs_practrand: C compiler {cc} not found (set CC)")
    exe = os.path.join(workdir, "families")
    done = subprocess.run([cc, "-O2", "-o", exe, str(SOURCE)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        first = next((line for line in done.stderr.splitlines() if "error" in line), done.stderr.strip()[:300])
        sys.exit(f"{cc} could not compile {SOURCE}: {first}")
    return exe


def check(exe: str) -> None:
    """``families check``: exits with one line if a known answer is wrong."""
    done = subprocess.run([exe, "check"], capture_output=True, text=True, check=False)
    wrong = [line for line in done.stdout.splitlines() if not line.endswith(" OK")]
    if done.returncode != 0 or wrong:
        shown = wrong[0] if wrong else done.stderr.strip()[:300]
        sys.exit(f"families check: {len(wrong)} known answer(s) wrong, the first: {shown}")


def families(exe: str) -> dict[str, int]:
    """``families list``: each family's bits per value."""
    listed = subprocess.run([exe, "list"], capture_output=True, text=True, check=True).stdout
    return {name: int(bits) for name, bits in (line.split() for line in listed.splitlines())}


def length_shown(first: FirstFailure) -> str:
    return format_size(first.length) if first.length is not None else "-"


def tests_shown(first: FirstFailure) -> str:
    """The first test failed at the first failing length, and how many more failed there."""
    if first.length is None or not first.tests:
        return ""
    more = len(first.tests) - 1
    return first.tests[0] + (f" (+{more})" if more else "")


def main() -> None:
    parser = comparison_parser(__doc__.splitlines()[0], "families of families.c", "1G")
    args = parser.parse_args()
    practrand = practrand_path(args.practrand)
    limit = doubling_limit(args.max)
    if not 0 <= args.seed < 1 << 64:
        sys.exit(f"--seed {args.seed}: families take seeds from 0 to 2^64 - 1")

    start = time.perf_counter()
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        exe = build(workdir)
        check(exe)
        known = families(exe)
        unknown = [name for name in args.names if name not in known]
        if unknown:
            sys.exit(f"{', '.join(unknown)}: not in families.c, whose families are {', '.join(known)}")
        for name in args.names or list(known):
            bits = known[name]
            producer = [exe, name, str(args.seed)]
            ours = randqa_first_failure_on(producer, ["--min", "1K", "--max", str(limit), "--jobs", "1"])
            word = bits if bits in (8, 16, 32, 64) else 8
            theirs = practrand_first_failure_on(practrand, producer, f"families {name} {args.seed}", word, limit)
            rows.append(Row(name, bits, ours, theirs))
            print(f"  {name}: randqa {ours.shown(limit)} ({ours.seconds:.1f} s); PractRand stdin{word} "
                  f"{theirs.shown(limit)} ({theirs.seconds:.1f} s)", file=sys.stderr, flush=True)

    print(f"first failure up to {format_size(limit)}, seed {args.seed}, on families.c's bytes: randqa's standard suite "
          f"vs PractRand 0.94 (stdinW, W the value width, 8 for 24/48); {cpu_model()}, "
          f"{time.perf_counter() - start:.0f} s in all")
    head = ("family", "bits", "randqa", "failed there", "PractRand", "failed there", "s (rq + PR)", "verdict")
    cells = [(r.name, str(r.bits), length_shown(r.randqa), tests_shown(r.randqa), length_shown(r.practrand),
              tests_shown(r.practrand), f"{r.randqa.seconds:.1f} + {r.practrand.seconds:.1f}", r.verdict) for r in rows]
    widths = [max(len(c[i]) for c in [head, *cells]) for i in range(len(head))]
    right = {1, 2, 4, 6}
    for c in [head, *cells]:
        print("  ".join(v.rjust(w) if i in right else v.ljust(w) for i, (v, w) in enumerate(zip(c, widths))).rstrip())
    weak = [r for r in rows if r.weak]
    behind = [r.name for r in weak if not r.no_later]
    only = sum(r.no_later and r.practrand.length is None for r in weak)
    print(f"{len(weak)} of {len(rows)} families fail within {format_size(limit)} (either tester); randqa fails "
          f"{len(weak) - len(behind)} of them no later than PractRand, {only} of them where PractRand does not"
          + (f"; later or not at all: {', '.join(behind)}" if behind else ""))
    sys.exit(1 if behind else 0)


if __name__ == "__main__":
    main()
