"""Throughput of the strong tests on 64 MiB of os.urandom.

Each entry is fed the same data in the engine's chunks (CHUNK_BYTES); prints
MB/s (CPU time of this process, so other jobs on the machine do not skew it)
and its ratio to a reference measured in the same run on the same data: the
byte histogram kernel, one pass that only counts.

    python benchmarks/bench_strong_battery.py [MiB]
"""
import os
import sys
import time

import numpy as np

from randqa.battery import _counts
from randqa.battery.suites import TestSpec
from randqa.engine import CHUNK_BYTES

#: (test, parameters, (word_bits, low_bits) of the folding or None)
ENTRIES = [
    ("bit_linear_complexity", dict(word_bits=32, bits=[0, 31], length=256, every=16), None),
    ("bit_linear_complexity", dict(word_bits=16, bits=[0, 15], length=1536, every=64), None),
    ("bit_linear_complexity", dict(word_bits=8, bits=[0, 7], length=1536, every=64), None),
    ("bit_linear_complexity", dict(word_bits=64, bits=[0, 63], length=4096, every=64), None),
    ("bit_linear_complexity", dict(word_bits=32, bits=[0], length=65536, every=256), None),
    ("bit_linear_complexity", dict(word_bits=64, bits=[0], length=81920, every=256), None),
    ("bit_linear_complexity", dict(word_bits=32, bits=[0, 31], length=4096, every=1), None),
    ("lagged_difference", dict(), None),
    ("gap", dict(word_bytes=1, alpha=0.0, beta=0.5, max_gap=8), None),
    ("gap", dict(word_bytes=4, alpha=0.0, beta=0.0625, max_gap=32), None),
    ("digraph", dict(position_mod=0), None),
    ("digraph", dict(position_mod=0), (32, 8)),
    ("digraph", dict(position_mod=256), None),
    ("fluhrer_mcgrew", dict(), None),
    ("overlapping_serial", dict(m=8), None),
    ("overlapping_serial", dict(m=16), None),
    ("overlapping_serial", dict(m=8), (8, 1)),
    ("overlapping_serial", dict(m=8), (32, 4)),
    ("bcfn", dict(block_bits=[8, 32, 256, 2048, 16384], letters=5, tuple_length=4), None),
]


def reference_rate(data: np.ndarray) -> float:
    """MB/s of counting byte values in the engine's chunks."""
    counts = np.zeros(256, dtype=np.int64)
    start = time.process_time()
    for i in range(0, len(data), CHUNK_BYTES):
        _counts.byte_histogram(data[i : i + CHUNK_BYTES], counts)
    return len(data) / (time.process_time() - start) / 1e6


def main() -> None:
    size = (int(sys.argv[1]) if len(sys.argv) > 1 else 64) << 20
    data = np.frombuffer(os.urandom(size), dtype=np.uint8)
    import scipy.stats  # noqa: F401  (imported before timing, or the first entry pays for it)
    reference = reference_rate(data)
    print(f"{reference:8.0f} MB/s  1.00x  reference: byte histogram")
    for test, params, fold in ENTRIES:
        acc = TestSpec(test, params, fold=fold).build()
        start = time.process_time()
        for i in range(0, size, CHUNK_BYTES):
            acc.update(data[i : i + CHUNK_BYTES])
        acc.finalize()
        rate = size / (time.process_time() - start) / 1e6
        print(f"{rate:8.0f} MB/s  {rate / reference:4.2f}x  {test} {params}" + (f" [low{fold[1]}/{fold[0]}]" if fold else ""))


if __name__ == "__main__":
    main()
