"""Throughput of the shared byte-pair table next to the six tests whose counts
it holds, on one core, as ratios measured in the same run.

    python benchmarks/bench_pair_table.py [--size 64M] [--rounds 5]

Feeds the same PCG64 bytes, in the engine's chunks, to:

- ``_pair_table.add_pair_counts`` (one-byte counters that spill on wrap),
  the one pass a suite makes for all six tests when they share the table;
- ``_counts.digraph_scan``, the per-position pair count (digraph with
  ``position_mod``), here with one position class;
- the update passes of the six tests each alone, as a suite without the
  shared table would run them (frequency, runs, chi_square bits=8,
  serial_correlation lag 1, digraph, overlapping_serial m=8).

Times are this thread's CPU seconds, best of ``--rounds`` turns.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from randqa.battery import _counts, _pair_table
from randqa.battery.chi_square import ChiSquare
from randqa.battery.digraph import Digraph
from randqa.battery.frequency import Frequency
from randqa.battery.overlapping_serial import OverlappingSerial
from randqa.battery.runs import Runs
from randqa.battery.serial_correlation import SerialCorrelation
from randqa.engine import CHUNK_BYTES

from cpu_timing import pcg64_bytes, print_best_rates, size_and_rounds  # benchmarks/, the script's folder


def chunks(data: np.ndarray) -> list[np.ndarray]:
    return [data[lo:lo + CHUNK_BYTES] for lo in range(0, len(data), CHUNK_BYTES)]


def pair_table_kernel(data: np.ndarray) -> Callable[[], None]:
    def run() -> None:
        counts = np.zeros(65536, dtype=np.int64)
        previous = -1
        for chunk in chunks(data):
            _pair_table.add_pair_counts(chunk, previous, counts)
            previous = int(chunk[-1])
    return run


def digraph_scan(data: np.ndarray) -> Callable[[], None]:
    def run() -> None:
        counts = np.zeros(65536, dtype=np.int64)
        previous, start = -1, 0
        for chunk in chunks(data):
            _counts.digraph_scan(chunk, previous, start, 0, counts)
            previous, start = int(chunk[-1]), start + len(chunk)
    return run


def six_tests(data: np.ndarray) -> Callable[[], None]:
    def run() -> None:
        tests = [Frequency(), Runs(), ChiSquare(bits=8), SerialCorrelation(lags=[1]), Digraph(), OverlappingSerial(m=8)]
        for chunk in chunks(data):
            for test in tests:
                test.update(chunk)
    return run


def main() -> None:
    size, rounds = size_and_rounds(__doc__, "64M")
    data = pcg64_bytes(size)
    rows = {
        "pair table (add_pair_counts)": pair_table_kernel(data),
        "digraph_scan (per-position kernel)": digraph_scan(data),
        "six tests' update passes, unshared": six_tests(data),
    }
    print_best_rates(rows, rounds, size, 36, "pair table (add_pair_counts)", "time / pair table",
                     lambda seconds, reference: seconds / reference)


if __name__ == "__main__":
    main()
