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

import os
import sys
import time
from dataclasses import dataclass

from _practrand import comparison_parser, doubling_limit, practrand_first_failure, practrand_path, randqa_first_failure

from randqa._report.environment import cpu_model
from randqa.sizes import format_size
from randqa.sources.runtimes import find_runtime_backend, runtime_backends


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


def main() -> None:
    parser = comparison_parser(__doc__.splitlines()[0], "runtime backends", "256M")
    args = parser.parse_args()
    practrand = practrand_path(args.practrand)
    limit = doubling_limit(args.max)
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
        widths = [8] + ([backend.bits_per_call] if backend.bits_per_call in (32, 64) else [])
        ours = randqa_first_failure([backend.name, "--seed", str(args.seed), "--min", "1K", "--max", str(limit),
                                     "--jobs", "1"])
        theirs = {f"stdin{bits}": practrand_first_failure(practrand, [backend.name, "--seed", str(args.seed)], bits,
                                                          limit) for bits in widths}
        row = Row(backend.name, backend.bits_per_call, ours.length, {w: f.length for w, f in theirs.items()},
                  ours.seconds, sum(f.seconds for f in theirs.values()))
        rows.append(row)
        shown = ", ".join(f"{w} {format_size(v) if v else '-'}" for w, v in row.practrand.items())
        print(f"  {backend.name}: randqa {format_size(row.randqa) if row.randqa else '-'} ({row.randqa_s:.1f} s); "
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
