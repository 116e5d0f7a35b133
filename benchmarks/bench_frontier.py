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
import json
import os
import re
import subprocess
import sys
import time

from randqa.report.environment import cpu_model
from randqa.sizes import format_size, parse_size
from randqa.sources import open_source
from randqa.sources.segments import word_bytes

#: backend -> (what it is, the bits of each word it writes)
FAMILIES = {
    "lcg64-prime": ("LCG mod 2^64 - 59, full 64-bit output", 64),
    "lfib19937": ("additive lagged Fibonacci (19937, 9842) mod 2^64", 64),
    "lcg128-top64": ("LCG mod 2^128, top 64 bits", 64),
    "lcg128-top32": ("LCG mod 2^128, top 32 bits", 32),
    "lfib19937-top32": ("the lagged Fibonacci's top 32 bits", 32),
}

LENGTH = re.compile(r"^length=.*\(2\^(\d+) bytes\)")


def practrand_first_failure(practrand: str, name: str, seed: int, limit: int) -> tuple[int | None, float]:
    """(first length PractRand fails, or None; seconds)."""
    width = FAMILIES[name][1] if name in FAMILIES else 8 * word_bytes(open_source(name, seed=seed))
    start = time.perf_counter()
    generate = subprocess.Popen([sys.executable, "-m", "randqa", "generate", name, "--seed", str(seed), "-n", str(limit)],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    practrand_cmd = [practrand, f"stdin{width}", "-tlmin", "1KB", "-tlmax", f"{limit >> 10}KB"]
    pr = subprocess.Popen(practrand_cmd, stdin=generate.stdout, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    generate.stdout.close()  # PractRand holds the pipe now: randqa generate ends when it closes
    length, failed_at = None, None
    for line in pr.stdout:
        m = LENGTH.match(line.strip())
        if m:
            length = 1 << int(m.group(1))
        elif "FAIL" in line and length is not None:
            failed_at = length
            break
    pr.kill()
    pr.wait()
    generate.wait()
    return failed_at, time.perf_counter() - start


def randqa_first_failure(name: str, seed: int, limit: int, suite: str) -> tuple[int | None, str, float]:
    """(first failing length or None, the tests that failed there, seconds)."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "randqa", "test", name, "--seed", str(seed), "--suite", suite,
                           "--progressive", "--max", str(limit), "--json", "-", "--no-progress"],
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        sys.exit(f"randqa test {name} --suite {suite} exited {proc.returncode}: {proc.stderr.strip()[-300:]}")
    doc = json.loads(proc.stdout)
    failed = ", ".join(sorted({t["name"].split("[")[0] for t in doc["tests"] if t["verdict"] == "fail"}))
    return doc["first_failure_bytes"], failed, seconds


def shown(length: int | None, limit: int) -> str:
    return format_size(length) if length is not None else f"none to {format_size(limit)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--practrand", required=True, help="path of PractRand's RNG_test (0.94)")
    parser.add_argument("--max", default="4G", help="the longest length tested by both (default 4G)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--families", default=",".join(FAMILIES), help="backends, comma-separated")
    args = parser.parse_args()
    practrand = os.path.abspath(args.practrand)
    if not os.access(practrand, os.X_OK):
        sys.exit(f"--practrand {args.practrand}: not an executable file")
    limit = parse_size(args.max)
    if limit < 1024 or limit & (limit - 1):
        sys.exit("--max must be a power of two of at least 1K (PractRand's lengths double)")
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    print(f"{cpu_model()}, {os.cpu_count()} CPUs; seed {args.seed}; lengths double from 1 KiB to {format_size(limit)}")
    print(f"{'family':<16} {'PractRand 0.94':>18} {'randqa standard':>18} {'randqa frontier':>18}  "
          f"{'failed (frontier)':<34} seconds (PR / std / frontier)")
    for name in families:
        pr, pr_s = practrand_first_failure(practrand, name, args.seed, limit)
        std, _, std_s = randqa_first_failure(name, args.seed, limit, "standard")
        front, failed, front_s = randqa_first_failure(name, args.seed, limit, "frontier")
        print(f"{name:<16} {shown(pr, limit):>18} {shown(std, limit):>18} {shown(front, limit):>18}  {failed:<34} "
              f"{pr_s:.0f} / {std_s:.0f} / {front_s:.0f}", flush=True)
    print("; ".join(f"{n}: {FAMILIES[n][0]}" for n in families if n in FAMILIES))


if __name__ == "__main__":
    main()
