"""Each predictor on its target and on a strong generator: bytes needed and time.

For every predictor, prints the bytes it needed on its target generator
(the smallest observed prefix after which all checked bytes were
predicted), the seconds its whole run took there (doubling prefixes,
refits, the 64 KiB check), the seconds it took on aes-ctr (where it finds
nothing and so tries every prefix up to its bound), and, as the reference
measured in the same run, the seconds blake2b takes to hash the same
1 MiB: the ratio column is predictor time / hash time.  Then the seed
search's raw kernel rates.

    python benchmarks/bench_predict.py [-n 1M] [--repeats 3]
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import time

import numpy as np

from randqa.predict import make_predictors, run_predictor
from randqa.predict.seed_search import BACKENDS
from randqa.sizes import parse_size
from randqa.sources import open_source, read_full

#: predictor -> the generator it is shown on (a backend, or "java" for java.util.Random)
TARGETS = {
    "gf2-linear": ("lfsr113", "mt19937"),
    "mt19937": ("mt19937", "python-random", "mt64"),
    "lcg-full": ("minstd", "randu"),
    "lcg-truncated": ("msvc-rand-byte", "msvc-rand-short", "java"),
    "additive-feedback": ("glibc-rand", "glibc-rand-short", "glibc-rand-byte"),
    "seed-search": ("glibc-rand", "mt19937", "python-random"),
}


def stream(name: str, nbytes: int, seed: int) -> np.ndarray:
    if name == "java":
        mask, s, out = (1 << 48) - 1, (seed ^ 0x5DEECE66D) & ((1 << 48) - 1), []
        for _ in range(nbytes // 4):
            s = (s * 0x5DEECE66D + 0xB) & mask
            out.append(s >> 16)
        return np.array(out, dtype="<u4").view(np.uint8)
    buffer = bytearray(nbytes)
    with open_source(name, seed=seed) as source:
        read_full(source, memoryview(buffer))
    return np.frombuffer(buffer, dtype=np.uint8)


def timed(predictor_name: str, data: np.ndarray, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        predictor = make_predictors([predictor_name])[0]
        start = time.perf_counter()
        result = run_predictor(predictor, data)
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", default="1M", help="bytes per stream (default 1M, predict's default read)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    nbytes = parse_size(args.n)
    strong = stream("aes-ctr", nbytes, 1)
    hash_times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        hashlib.blake2b(strong.tobytes()).digest()
        hash_times.append(time.perf_counter() - start)
    reference = statistics.median(hash_times)
    print(f"reference: blake2b of {nbytes:,} bytes in {reference * 1e3:.2f} ms")
    print(f"{'predictor':18} {'target':16} {'needed':>9} {'s (target)':>10} {'s (aes-ctr)':>11} {'ratio':>8}")
    for name, targets in TARGETS.items():
        strong_time, _ = timed(name, strong, args.repeats)
        for target in targets:
            # a large seed keeps the seed search out of the structure-based numbers
            seed = random.Random(target).getrandbits(32) | (1 << 31) if name != "seed-search" else 1234
            t, result = timed(name, stream(target, nbytes, seed), args.repeats)
            needed = f"{result.observed_bytes:,}" if result.succeeded else "-"
            print(f"{name:18} {target:16} {needed:>9} {t:10.3f} {strong_time:11.3f} {strong_time / reference:8.0f}")
    found = np.zeros(16, dtype=np.int64)
    for b in BACKENDS:
        count = 1 << 20 if b.name != "python-random" else 1 << 18
        start = time.perf_counter()
        b.scan(0, count, b"\1\2\3\4", b.mask & 0xFFFFFFFF, found)
        rate = count / (time.perf_counter() - start)
        print(f"seed-search kernel {b.name:16} {rate / 1e6:6.2f} M seeds/s (full 2^32: {2**32 / rate / 60:.0f} min)")


if __name__ == "__main__":
    main()
