"""The decimated collision test's scale model at every size, and the
projected time of the full-size SplitMix64 run, from rates measured in the
same run.

    python benchmarks/bench_collisions.py [--bits 40,42,44,46,48] [--jobs 2] [--size 4G]

Scale model.  splitmix:B (SplitMix64's algorithm on a B-bit state: its
B-bit outputs never repeat within 2^B) is tested with
decimated_collisions on its B-bit values, keeping those whose low B - 40
bits are zero (2^40 possible kept values) in one block.  The test must
fail where the kept values, had they been random, would have repeated
with probability 1 - 10^-6: n^2 / 2^41 = ln(10^6) for n kept values, that
is P = 8 x 2^(B-40) x sqrt(2 ln(10^6) 2^40) bytes.  Each B runs
``randqa test splitmix:B --progressive`` over the two doubling lengths
around P (the first at most P, the second over it: pass, then fail), on
--jobs worker processes (Dask, segments jumped to), and PCG64 over the
longer length (pass).

Projection.  The full-size run is suites/collisions64.toml on SplitMix64
to 16 TiB (it fails at 14.9 TiB).  Measured here:

- R, MB per CPU second of ``randqa test splitmix64 -n SIZE --suite
  collisions64 --jobs 1`` (generation, reading, the test: one worker's
  work on its segments), against ``randqa generate splitmix64`` to
  /dev/null (the generator alone) in the same run;
- c, what merging one 1 GiB segment's state costs the process that
  merges, with 2^28 values already in its set, as at the end of the real
  run (the set takes 2.7 GiB here);
- r, what a segment costs a 2-worker run besides its test, every process
  together: the CPU time of SIZE cut into 1 GiB and into 16 MiB segments
  (the less of two runs each), over the difference in their number of
  segments (as bench_scaling.py).

With T = 1 GiB / R, P workers take 16 TiB / (P R) / E(P), where
E(P) = T / (T + r) min(1, (T + r) / (P c)) (docs/benchmarks.md, "Long runs: scaling and run modes").
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from randqa.battery.decimated_collisions import DecimatedCollisions
from randqa.battery.suites import load_suite
from randqa._report.environment import cpu_model
from randqa.sizes import format_size, parse_size

from cpu_timing import children_cpu  # benchmarks/, the script's folder

KEPT_BITS = 40  # log2 of the values a kept word may take, at every B
FAIL = 1e-6


def predicted_bytes(bits: int) -> float:
    zero_bits = bits - KEPT_BITS
    return 8 * 2**zero_bits * math.sqrt(2 * math.log(1 / FAIL) * 2**KEPT_BITS)


def randqa(*args: str, stdout_json: bool = True) -> tuple[dict | None, float, float]:
    """(JSON document, wall seconds, CPU seconds of the command and its workers)."""
    cpu, wall = children_cpu(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "randqa", *args], capture_output=True, text=True)
    wall, cpu = time.perf_counter() - wall, children_cpu() - cpu
    if proc.returncode not in (0, 1):
        sys.exit(f"randqa {' '.join(args)} exited {proc.returncode}: {proc.stderr.strip()[-400:]}")
    return (json.loads(proc.stdout) if stdout_json else None), wall, cpu


def scale_model(bits: int, jobs: int, folder: Path) -> None:
    zero_bits = bits - KEPT_BITS
    suite = folder / f"scale{bits}.toml"
    # collisions64's thresholds: a tail below 1e-6 fails at once, no retest
    suite.write_text(f'name = "scale{bits}"\n[thresholds]\nfail_at_once = 1e-6\n[[tests]]\n'
                     f'test = "decimated_collisions"\nbits = {bits}\n'
                     f"zero_bits = {zero_bits}\nvalues = {1 << 23}\n")
    predicted = predicted_bytes(bits)
    before = 1 << int(math.log2(predicted))
    after = 2 * before
    common = ["--suite", str(suite), "--json", "-", "--no-progress", "--jobs", str(jobs)]
    doc, wall, cpu = randqa("test", f"splitmix:{bits}", "--seed", "1", "--progressive", "--min", str(before),
                            "--max", str(after), *common)
    lengths = {entry["bytes"]: entry["tests"][0] for entry in doc["lengths"]}
    control, _, _ = randqa("test", "pcg64", "--seed", "1", "-n", str(after), *common)
    (pcg,) = control["tests"]
    passed, failed = lengths[before], lengths[after]
    print(f"{bits:>3} {zero_bits:>3} {format_size(int(predicted), approximate=True):>10} "
          f"{format_size(doc['first_failure_bytes']) if doc['first_failure_bytes'] else 'none':>10} "
          f"{passed['details']['kept_values']:>10} {passed['details']['expected']:6.1f} {passed['p_value_low']:9.2g} "
          f"{failed['details']['kept_values']:>10} {failed['details']['expected']:6.1f} {failed['p_value_low']:9.2g} "
          f"{pcg['statistic']:>5.0f} {pcg['details']['expected']:6.1f} {pcg['verdict']:>6} {cpu:7.1f}", flush=True)


def merge_cost(values_before: int, segments: int = 20) -> float:
    """CPU seconds to load and merge one 1 GiB segment's state of the
    collisions64 entry into an accumulator whose block already holds
    ``values_before`` values."""
    (spec,) = load_suite("collisions64").tests
    rng = np.random.default_rng(7)
    merged = DecimatedCollisions(**spec.params)
    zero_bits = spec.params["zero_bits"]
    step = 1 << 22  # add the values already there in slices, as segments would have
    for lo in range(0, values_before, step):
        merged.current.add(rng.integers(0, 1 << (64 - zero_bits), size=min(step, values_before - lo),
                                        dtype=np.uint64) << np.uint64(zero_bits), merged.capacity)
    segment_words = (1 << 30) // 8
    merged.words_seen = 1 << 30  # past its (empty) head: its block is in progress
    states = []
    for k in range(segments):
        part = DecimatedCollisions(**spec.params)
        part.begin_at((1 << 33) + k * (1 << 30))
        part.head.add(rng.integers(0, 1 << (64 - zero_bits), size=segment_words >> zero_bits, dtype=np.uint64)
                      << np.uint64(zero_bits), part.capacity)
        part.words_seen = segment_words
        part.bytes_seen = 1 << 30
        states.append(part.state())
    merged.bytes_seen = (1 << 33) + 0  # where the first part starts
    start = time.thread_time()
    for k, state in enumerate(states):
        part = DecimatedCollisions(**spec.params)
        part.begin_at((1 << 33) + k * (1 << 30))
        part.load_state(state)
        merged.merge(part)
    return (time.thread_time() - start) / segments


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bits", default="40,42,44,46,48", help="state bits of the scale models (40 to 64)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="workers for the scale model runs")
    parser.add_argument("--size", default="4G", help="bytes of SplitMix64 for the rates (default 4G)")
    args = parser.parse_args()
    size = parse_size(args.size)
    print(f"{cpu_model()}, {os.cpu_count()} CPUs")
    print(f"scale model: splitmix:B, its B-bit values kept when their low B-{KEPT_BITS} bits are zero; --jobs {args.jobs}")
    print(f"{'B':>3} {'e':>3} {'predicted':>10} {'fails at':>10} | {'kept':>10} {'lambda':>6} {'p(Y=0)':>9} | "
          f"{'kept':>10} {'lambda':>6} {'p(Y=0)':>9} | {'PCG64 Y':>5} {'lambda':>6} {'':>6} {'CPU s':>7}")
    print(f"{'':>30}   at the last doubling <= predicted | at the next one{'':>14}| same length")
    with tempfile.TemporaryDirectory() as tmp:
        for bits in (int(b) for b in args.bits.split(",")):
            scale_model(bits, args.jobs, Path(tmp))

    print(f"\nrates, {format_size(size)} of SplitMix64, one process (--jobs 1):")
    _, gen_wall, gen_cpu = randqa("generate", "splitmix64", "--seed", "1", "-n", str(size), "-o", os.devnull,
                                  stdout_json=False)
    _, test_wall, test_cpu = randqa("test", "splitmix64", "--seed", "1", "-n", str(size), "--suite", "collisions64",
                                    "--jobs", "1", "--json", "-", "--no-progress")
    rate = size / test_cpu
    print(f"  randqa generate splitmix64: {size / gen_cpu / 1e6:6.0f} MB per CPU second")
    print(f"  randqa test --suite collisions64: {rate / 1e6:6.0f} MB per CPU second "
          f"({gen_cpu / test_cpu:.2f}x the generator alone)")
    segments = {}
    for segment in ("1G", "16M"):
        cpu = min(randqa("test", "splitmix64", "--seed", "1", "-n", str(size), "--suite", "collisions64", "--jobs", "2",
                         "--segment", segment, "--json", "-", "--no-progress")[2] for _ in range(2))
        segments[segment] = (size // parse_size(segment), cpu)
    (n_long, cpu_long), (n_short, cpu_short) = segments["1G"], segments["16M"]
    r = max(0.0, (cpu_short - cpu_long) / (n_short - n_long))
    c = merge_cost(1 << 28)
    t = (1 << 30) / rate
    print(f"  per 1 GiB segment: T = {t:.2f} s of test, r = {1000 * r:.1f} ms besides it (2 workers, "
          f"{n_short} against {n_long} segments), c = {1000 * c:.1f} ms to merge it (2^28 values held)")

    total = 16 << 40
    one_core = total / rate
    print(f"\nprojection: randqa test splitmix64 -n 16T --suite collisions64 (fails at 14.9 TiB)")
    for workers in (1, os.cpu_count() or 1, 64):
        efficiency = t / (t + r) * min(1.0, (t + r) / (workers * c))
        seconds = one_core / workers / efficiency
        print(f"  {workers:>3} worker{'s' if workers > 1 else ' '}: E = {100 * efficiency:5.1f}%, "
              f"{seconds / 3600:7.2f} hours")


if __name__ == "__main__":
    main()
