"""First failures of the generators that pass PractRand, by PractRand and by
randqa on the same bytes, in one run.

    python benchmarks/bench_frontier.py --practrand PATH/RNG_test [--max 4G] [--seed 1]
                                        [--families lcg64-prime,lfib19937,lfib19937-top32,lcg128-top64,lcg128-top32]

For each family (a randqa backend; its bytes are the same wherever they are
read, given the seed):

- PractRand 0.94: ``randqa generate NAME --seed S -n MAX | RNG_test stdinW
  -tlmin 1KB -tlmax MAX`` (W = the width of the words the backend writes, 64 or 32 bits:
  PractRand folds by words of that width).  PractRand doubles its length
  from 1 KiB; the first length whose results include a FAIL is its first
  failure, and the pipe is closed there;
- randqa: ``randqa test NAME --seed S --progressive --max MAX`` with the
  standard suite and with ``--suite frontier``.

"none to MAX" means no failure at any length up to MAX.  The table ends with
the seconds each took (wall clock; the machine may be shared).
"""

from __future__ import annotations

import argparse
import os

from _practrand import doubling_limit, practrand_first_failure, practrand_path, randqa_first_failure

from randqa._report.environment import cpu_model
from randqa.sizes import format_size
from randqa.sources import open_source

#: backend -> (what it is, the bits of each word it writes)
FAMILIES = {
    "lcg64-prime": ("LCG mod 2^64 - 59, full 64-bit output", 64),
    "lfib19937": ("additive lagged Fibonacci (19937, 9842) mod 2^64", 64),
    "lcg128-top64": ("LCG mod 2^128, top 64 bits", 64),
    "lcg128-top32": ("LCG mod 2^128, top 32 bits", 32),
    "lfib19937-top32": ("the lagged Fibonacci's top 32 bits", 32),
}


def word_bits(name: str, seed: int) -> int:
    """The width PractRand reads the generator's words at."""
    return FAMILIES[name][1] if name in FAMILIES else 8 * open_source(name, seed=seed).word_bytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--practrand", required=True, help="path of PractRand's RNG_test (0.94)")
    parser.add_argument("--max", default="4G", help="the longest length tested by both (default 4G)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--families", default=",".join(FAMILIES), help="backends, comma-separated")
    args = parser.parse_args()
    practrand = practrand_path(args.practrand)
    limit = doubling_limit(args.max)
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    print(f"{cpu_model()}, {os.cpu_count()} CPUs; seed {args.seed}; lengths double from 1 KiB to {format_size(limit)}")
    print(f"{'family':<16} {'PractRand 0.94':>18} {'randqa standard':>18} {'randqa frontier':>18}  "
          f"{'failed (frontier)':<34} seconds (PR / std / frontier)")
    for name in families:
        pr = practrand_first_failure(practrand, [name, "--seed", str(args.seed)], word_bits(name, args.seed), limit)
        common = [name, "--seed", str(args.seed), "--max", str(limit)]
        std = randqa_first_failure([*common, "--suite", "standard"])
        front = randqa_first_failure([*common, "--suite", "frontier"])
        failed = ", ".join(sorted({t.split("[")[0] for t in front.tests}))
        print(f"{name:<16} {pr.shown(limit):>18} {std.shown(limit):>18} {front.shown(limit):>18}  {failed:<34} "
              f"{pr.seconds:.0f} / {std.seconds:.0f} / {front.seconds:.0f}", flush=True)
    print("; ".join(f"{n}: {FAMILIES[n][0]}" for n in families if n in FAMILIES))


if __name__ == "__main__":
    main()
