"""Good generators must not fail: progressive runs of the standard suite to
a large size over several seeds, printing each run's verdict, the smallest
p-value seen and the throughput (ratio to the first run as the reference).

    python benchmarks/no_false_alarms.py [--max 4G] [--seeds 1,2] [--jobs 2] [NAME ...]

Defaults: pcg64, chacha, aes-ctr, siprand and urandom (urandom cannot be
seeded: each run reads fresh device output).
"""

from __future__ import annotations

import argparse
import time

from randqa.engine import run_progressive
from randqa.results import worst_verdict
from randqa.sizes import format_size, parse_size
from randqa.sources import open_backend
from randqa.battery.suites import load_suite

DEFAULT = ["pcg64", "chacha", "aes-ctr", "siprand", "urandom"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=DEFAULT)
    parser.add_argument("--max", default="4G")
    parser.add_argument("--min", default="1K")
    parser.add_argument("--seeds", default="1,2")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--suite", default="standard")
    args = parser.parse_args()
    suite = load_suite(args.suite)
    reference = None
    print(f"{'source':<10} {'seed':>5} {'tested':>9} {'verdict':<11} {'lengths':>7} {'min p':>10} {'MB/s':>7} {'x ref':>6}", flush=True)
    for name in args.names:
        for seed in (int(s) for s in args.seeds.split(",")):
            with open_backend(name, seed) as source:
                start = time.perf_counter()
                result = run_progressive(source, suite, parse_size(args.min), parse_size(args.max), keep_going=True, jobs=args.jobs)
                elapsed = time.perf_counter() - start
            pvalues = [t["p_value"] for entry in result.progression.lengths for t in entry["tests"] if t["p_value"] is not None]
            pvalues += [t["p_value_low"] for entry in result.progression.lengths for t in entry["tests"] if t.get("p_value_low") is not None]
            rate = result.bytes_tested / elapsed / 1e6
            reference = reference or rate
            worst = worst_verdict([entry["verdict"] for entry in result.progression.lengths])
            print(f"{name:<10} {seed:>5} {format_size(result.bytes_tested):>9} {worst:<11} {len(result.progression.lengths):>7} "
                  f"{min(pvalues):>10.2e} {rate:>7.0f} {rate / reference:>6.2f}", flush=True)


if __name__ == "__main__":
    main()
