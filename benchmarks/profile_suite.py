"""CPU time of each entry of a suite on the same PCG64 data, measured in one
run, printed as MB per CPU second and as a ratio to the whole suite.

    python benchmarks/profile_suite.py [--suite standard] [--size 256M]

Feeds SIZE bytes of PCG64 output (seed 1) in the engine's chunks to the
suite's accumulators one at a time (thread CPU time around each update), so
the per-entry figures add up to the suite's update time; finalize is timed
separately.  Entries that share a statistic (randqa.battery._shared) are
charged where the work happens: the entry that fills the statistic shows its
cost and the others show only their own.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from randqa.battery.suites import load_suite
from randqa.engine import CHUNK_BYTES
from randqa.sizes import parse_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="standard")
    parser.add_argument("--size", default="256M")
    args = parser.parse_args()
    size = parse_size(args.size)
    suite = load_suite(args.suite)
    accumulators = suite.build()
    spent = [0.0] * len(accumulators)
    gen = np.random.PCG64(1)
    left = size
    while left:
        n = min(left, CHUNK_BYTES)
        chunk = gen.random_raw(-(-n // 8)).view(np.uint8)[:n]  # whole words: the stream stays contiguous
        for i, acc in enumerate(accumulators):
            start = time.thread_time()
            acc.update(chunk)
            spent[i] += time.thread_time() - start
        left -= n
    start = time.thread_time()
    for acc in accumulators:
        acc.finalize()
    final = time.thread_time() - start
    total = sum(spent)
    print(f"{size / 2**20:.0f} MiB, suite {suite.name}: updates {total:.2f} CPU-s ({size / total / 1e6:.0f} MB/CPU-s), "
          f"finalize {final:.2f} s")
    print(f"{'#':>2} {'entry':<58} {'CPU-s':>6} {'MB/CPU-s':>9} {'x suite':>8}")
    for i, (spec, acc, t) in enumerate(zip(suite.tests, accumulators, spent), 1):
        shared = getattr(acc, "shared", None)
        role = "" if shared is None else " [fills shared]" if acc._feeds_shared else " [from shared]"
        label = (repr(acc)[: 58 - len(role)] + role)
        rate = size / t / 1e6 if t > 0 else float("inf")
        print(f"{i:>2} {label:<58} {t:6.2f} {rate:9.0f} {total / t if t > 0 else float('inf'):8.1f}")


if __name__ == "__main__":
    main()
