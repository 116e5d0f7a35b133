"""Segment-parallel scaling, measured in one run, printed as ratios.

    python benchmarks/bench_scaling.py [--size 4G] [--workers 2] [--suites standard,quick]

1. MB/s of ``randqa test SOURCE -n SIZE --suite S`` with ``--jobs 1`` (one
   process) and ``--jobs N`` (an embedded Dask cluster of N worker
   processes), on pcg64 (segments placed by a jump) and on a file of the same
   bytes (segments read with pread), as whole commands: the cluster's
   start-up is included.  'CPU x': the CPU time of the N-worker command (its
   worker processes included) over one process's; 'bound': N / (CPU x), the
   most N cores can give it.  For reference, the same run in one process with
   N threads (``engine.run(..., jobs=N)``, as ``randqa.test(..., jobs=N)`` runs).
2. The per-segment overhead at the default segment size, next to one
   segment's test time T:
   - o, the worker's share: open the source at the segment and jump there,
     build the accumulators, export their state, serialise it (pickle
     protocol 5, as Dask sends it);
   - c, this process's share: deserialise, load the state, merge it;
   - d, Dask's round trip of an empty task on the local cluster, shown
     apart: two segments per worker are in flight, so a worker never waits
     for it.
   T is timed on up to 64 MiB of the segment and scaled to its length (the
   tests' rates do not depend on the length).  Overhead fraction =
   (o + c) / T.  Projected efficiency with P workers:
   E(P) = T / (T + o) * min(1, (T + o) / (P * c)): each worker spends
   T + o per segment, and the client, which merges one segment at a time,
   holds them back only when P * c exceeds T + o.

The machine may be shared: absolute MB/s vary, the ratios of one run are
what to read, next to the first and last lines, which say how many times one
process's CPU-bound work N processes get done side by side on this machine
at that moment (N on an idle machine with N cores): no ratio can exceed it.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from randqa.battery.suites import load_suite
from randqa.sizes import format_size, parse_size


def timed(command: list[str]) -> tuple[float, float, float]:
    """Wall time of a whole command, the part its cluster's start-up took,
    and the CPU time of the command and every process it started (its worker
    processes are waited for inside it, so the kernel counts them as ours)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([*command, "--json", "-"], check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, json.loads(done.stdout)["execution"].get("startup_s", 0.0), cpu


def write_stream(path: str, size: int) -> None:
    """The first ``size`` bytes of randqa's pcg64 seed 1 (the generator rows read the same bytes)."""
    from randqa.sources import open_source, read_full

    buffer = np.empty(64 << 20, dtype=np.uint8)
    with open_source("pcg64", seed=1) as source, open(path, "wb") as f:
        left = size
        while left:
            n = read_full(source, memoryview(buffer)[:min(left, len(buffer))])
            f.write(memoryview(buffer)[:n])
            left -= n


def _busy(_: int) -> float:
    start = time.perf_counter()
    x = 0
    for i in range(20_000_000):
        x += i
    return time.perf_counter() - start


def machine_capacity(workers: int) -> float:
    """How many times one process's CPU-bound work this machine gives ``workers``
    processes side by side right now (``workers`` on an idle machine with as many
    cores; less when others use them): the ceiling of any ratio below."""
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        alone = min(pool.map(_busy, [0], chunksize=1) for _ in range(2))[0]
        together = pool.map(_busy, range(workers), chunksize=1)
    return workers * alone / max(together)


def threads_rate(suite_name: str, size: int, threads: int) -> float:
    from randqa.engine import run
    from randqa.sources import open_source

    with open_source("pcg64", seed=1) as source:
        start = time.perf_counter()
        run(source, load_suite(suite_name), limit=size, jobs=threads)
        return size / (time.perf_counter() - start) / 1e6


def scaling(size: int, workers: int, suites: list[str], path: str) -> None:
    randqa = [sys.executable, "-m", "randqa", "test", "--no-progress", "-n", str(size)]
    print(f"\n{format_size(size)} per run; MB/s = 10^6 bytes/s of whole commands; 'running': without the "
          f"cluster's start-up")
    print(f"{'suite':<9} {'source':<7} {'--jobs 1':>9} {f'--jobs {workers}':>9} {'ratio':>6} {'running':>8} "
          f"{'ratio':>6} {'start-up':>8} {'CPU x':>6} {'bound':>6}")
    for suite in suites:
        for label, source in (("pcg64", ["pcg64", "--seed", "1"]), ("file", [path])):
            wall, _, cpu_one = timed([*randqa, *source, "--suite", suite, "--jobs", "1"])
            one = size / wall / 1e6
            wall, startup, cpu_many = timed([*randqa, *source, "--suite", suite, "--jobs", str(workers)])
            many, running = size / wall / 1e6, size / (wall - startup) / 1e6
            # the CPU time the workers' run needs over one process's: with
            # `workers` cores, no ratio can pass workers / (CPU x)
            extra = cpu_many / cpu_one
            print(f"{suite:<9} {label:<7} {one:>9.1f} {many:>9.1f} {many / one:>5.2f}x {running:>8.1f} "
                  f"{running / one:>5.2f}x {startup:>7.1f}s {extra:>5.2f}x {workers / extra:>5.2f}x", flush=True)
        threaded = threads_rate(suite, size, workers)
        print(f"{suite:<9} {'pcg64':<7} {'':>9} {threaded:>9.1f} {'':>6}  ({workers} threads in one process)", flush=True)


def overhead(suites: list[str], workers: int, repeats: int) -> None:
    from randqa.engine.execute import StreamJob, _loaded, _merge, segment_size, suite_alignment
    from randqa.engine.parallel import Workers

    with Workers(workers, notice=lambda line: None) as pool:
        client = pool.client()
        rounds = []
        for _ in range(20):
            start = time.perf_counter()
            client.submit(len, b"", pure=False).result()
            rounds.append(time.perf_counter() - start)
        d = statistics.median(rounds)
    print(f"\nper-segment overhead at the default segment size (medians of {repeats}); Dask round trip d = "
          f"{d * 1e3:.1f} ms (hidden: two segments per worker in flight)")
    print(f"{'suite':<14} {'segment':>9} {'T (s)':>7} {'o (ms)':>7} {'c (ms)':>7} {'state MB':>9} {'(o+c)/T':>8} "
          f"{'E(64)':>6}")
    for name in suites:
        suite = load_suite(name)
        alignment = suite_alignment(suite)
        segment = segment_size(alignment, None)
        sample = min(segment, max(alignment, (64 << 20) // alignment * alignment))
        job = StreamJob(suite, "pcg64", 1)
        start = time.perf_counter()
        job.compute(segment, sample, (), None)
        test_s = (time.perf_counter() - start) * segment / sample
        worker, client_s, size = [], [], 0
        for k in range(repeats):
            at = (k + 1) * segment
            start = time.perf_counter()
            result = job.compute(at, 0, (), None)  # everything a segment costs but its test
            data = pickle.dumps(result, protocol=5)
            worker.append(time.perf_counter() - start)
            size = len(data)
            merged = job.build(at)  # the merged prefix, which ends where this segment starts
            start = time.perf_counter()
            _merge(merged, _loaded(job, at, pickle.loads(data)["states"]))
            client_s.append(time.perf_counter() - start)
        o, c = statistics.median(worker), statistics.median(client_s)
        fraction = (o + c) / test_s
        efficiency = test_s / (test_s + o) * min(1.0, (test_s + o) / (64 * c))
        print(f"{name:<14} {format_size(segment):>9} {test_s:>7.2f} {o * 1e3:>7.1f} {c * 1e3:>7.1f} "
              f"{size / 1e6:>9.2f} {fraction:>8.2%} {efficiency:>6.1%}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="4G")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--suites", default="standard,quick")
    parser.add_argument("--overhead-suites", default="standard,quick,rc4,nist-sp800-22")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--skip-scaling", action="store_true")
    args = parser.parse_args()
    suites = [s for s in args.suites.split(",") if s]
    print(f"randqa scaling; {os.cpu_count()} logical CPUs; load average {os.getloadavg()[0]:.1f}")
    print(f"this machine now runs {args.workers} CPU-bound processes at {machine_capacity(args.workers):.2f}x "
          f"the work of one (the ceiling of the ratios below; {args.workers}.00 when idle)")
    if not args.skip_scaling:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "pcg64.bin")
            size = parse_size(args.size)
            write_stream(path, size)
            scaling(size, args.workers, suites, path)
    overhead([s for s in args.overhead_suites.split(",") if s], args.workers, args.repeats)
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}; {args.workers} processes now do "
          f"{machine_capacity(args.workers):.2f}x the work of one")


if __name__ == "__main__":
    main()
