"""Throughput of the strong tests (issue 4) on 64 MiB of os.urandom.

Each entry of the proposed standard suite that uses one of these tests is
fed the same data in the engine's 1 MiB chunks; prints MB/s (CPU time of
this process, so other jobs on the machine do not skew it) and the total.

    python benchmarks/bench_strong_battery.py [MiB]
"""
import os
import sys
import time

import numpy as np

from randqa import battery
from randqa.battery._folding import FoldedTest

accumulator_class = getattr(battery, "accumulator_class", None) or getattr(battery, "test_class")

ENTRIES = [
    ("bit_linear_complexity", dict(word_bits=32, bits=[0, 31], length=256, every=16)),
    ("bit_linear_complexity", dict(word_bits=16, bits=[0, 15], length=1536, every=64)),
    ("bit_linear_complexity", dict(word_bits=8, bits=[0, 7], length=1536, every=64)),
    ("bit_linear_complexity", dict(word_bits=64, bits=[0, 63], length=4096, every=64)),
    ("bit_linear_complexity", dict(word_bits=32, bits=[0], length=65536, every=256)),
    ("bit_linear_complexity", dict(word_bits=32, bits=[0, 31], length=4096, every=1)),
    ("gap", dict(word_bytes=1, alpha=0.0, beta=0.5, max_gap=8)),
    ("gap", dict(word_bytes=4, alpha=0.0, beta=0.0625, max_gap=32)),
    ("digraph", dict(position_mod=0)),
    ("digraph", dict(position_mod=0, word_bits=32, low_bits=8)),
    ("digraph", dict(position_mod=256)),
    ("overlapping_serial", dict(m=8)),
    ("overlapping_serial", dict(m=16)),
    ("overlapping_serial", dict(m=8, word_bits=8, low_bits=1)),
    ("overlapping_serial", dict(m=8, word_bits=32, low_bits=4)),
    ("bcfn", dict(block_bits=[8, 32, 256, 2048, 16384], letters=5, tuple_length=4)),
]


def build(test, params):
    params = dict(params)
    if "low_bits" in params:
        word_bits, low_bits = params.pop("word_bits"), params.pop("low_bits")
        return FoldedTest(accumulator_class(test)(**params), word_bits=word_bits, low_bits=low_bits)
    return accumulator_class(test)(**params)


def main() -> None:
    size = (int(sys.argv[1]) if len(sys.argv) > 1 else 64) << 20
    data = np.frombuffer(os.urandom(size), dtype=np.uint8)
    for test, params in ENTRIES:
        acc = build(test, params)
        start = time.process_time()
        for i in range(0, size, 1 << 20):
            acc.update(data[i : i + (1 << 20)])
        acc.finalize()
        seconds = time.process_time() - start
        print(f"{size / seconds / 1e6:8.0f} MB/s  {test} {params}")


if __name__ == "__main__":
    main()
