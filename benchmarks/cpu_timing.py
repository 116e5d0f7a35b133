"""What the one-core kernel benchmarks (bench_birthday_spacings.py,
bench_pair_table.py) share: their arguments, the PCG64 bytes they feed, and
the timing of their rows; and the CPU time of whole commands, which the
command benchmarks (bench_vs_practrand.py, bench_scaling.py) measure.

The rows take turns, ``--rounds`` times, and each keeps its best time in
this thread's CPU seconds: time spent waiting for a core on a busy machine
does not count, and the ratios between rows of one run are what to read.
"""

from __future__ import annotations

import argparse
import resource
import time
from typing import Callable

import numpy as np

from randqa.engine import CHUNK_BYTES
from randqa.sizes import parse_size


def size_and_rounds(doc: str, default_size: str) -> tuple[int, int]:
    """``--size`` (bytes) and ``--rounds`` from the command line; ``doc``'s first line describes the script."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--size", default=default_size)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    return parse_size(args.size), args.rounds


def pcg64_bytes(size: int) -> np.ndarray:
    """``size`` bytes (a multiple of 8) of PCG64 seeded with 1, the same every run."""
    return np.random.PCG64(1).random_raw(size // 8).view(np.uint8)


def print_best_rates(rows: dict[str, Callable[[], object]], rounds: int, size: int, label_width: int,
                     reference: str, ratio_title: str, ratio: Callable[[float, float], float]) -> None:
    """Time each row, best of ``rounds`` turns in CPU seconds, and print its
    MB/s and ``ratio(its seconds, the reference row's seconds)``."""
    best = {label: float("inf") for label in rows}
    for _ in range(rounds):
        for label, run in rows.items():
            start = time.thread_time()
            run()
            best[label] = min(best[label], time.thread_time() - start)
    print(f"{size} bytes of PCG64 in {CHUNK_BYTES}-byte chunks, best of {rounds}; one thread, MB per CPU second")
    width = len(ratio_title) + 1
    print(f"{'':<{label_width}} {'MB/s':>7} {ratio_title:>{width}}")
    for label, seconds in best.items():
        print(f"{label:<{label_width}} {size / seconds / 1e6:7.0f} {ratio(seconds, best[reference]):{width}.2f}")


def children_cpu() -> float:
    """CPU seconds of every child process waited for so far, and of the
    children they waited for (a command's worker processes included)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
