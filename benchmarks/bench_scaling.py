"""Segment-parallel scaling, measured in one run, printed as ratios.

    python benchmarks/bench_scaling.py [--size 4G] [--workers 2] [--suites standard,quick]

1. MB/s of ``randqa test SOURCE -n SIZE --suite S`` with ``--jobs 1`` (one
   process) and ``--jobs N`` (an embedded Dask cluster of N worker
   processes), on pcg64 (segments placed by a jump) and on a file of the same
   bytes (segments read with pread), as whole commands: the cluster's
   start-up is included.  'CPU x': the CPU time of the N-worker command (its
   worker processes included) over one process's; 'bound': C / (CPU x), the
   most it can get from the C cores' worth this machine gives N processes
   (C is printed first, see below).  'start-up limit': C * T1 / (W1 + X), with
   T1 and W1 the one-process command's wall and CPU time and X the CPU time
   an embedded cluster costs to start, make ready and stop with no segment
   at all (its workers' interpreters, imports and tests' tables, the
   scheduler; measured apart, what one process needs to be ready taken
   off): the ratio a run of this length could reach if segments cost
   nothing, balanced perfectly and the client used no CPU, because X comes
   out of the same cores as the tests.  For reference, the same run in one
   process with N threads (``engine.run(..., jobs=N)``, as ``randqa.test(..., threads=N)`` runs).
2. The per-segment overhead at a generator's default segment size, next to
   one segment's test time T:
   - o, the worker's share: open the source at the segment and jump there,
     build the accumulators, export their state, serialise it (pickle
     protocol 5, as Dask sends it);
   - c, this process's share: deserialise, load the state, merge it;
   - r, what a segment costs a real cluster run besides its test, all
     processes together: o and c, and Dask's task, its transfer and what
     the scheduler and client do for it.  From whole commands on SIZE bytes
     of pcg64 with N workers (the suites of part 1): their CPU time cut into
     segments of the default size S and of about S/16, over the difference
     in the number of segments (the cluster's start-up and the tests cancel
     out; best of 2 each);
   - d, Dask's round trip of an empty task on the local cluster, shown
     apart: two segments per worker are in flight, so a worker never waits
     for it.
   T is timed on up to 64 MiB of the segment and scaled to its length (the
   tests' rates do not depend on the length).  Overhead fraction = r / T
   ((o + c) / T where r was not measured).  Projected efficiency with P
   workers: E(P) = T / (T + r) * min(1, (T + r) / (P * c)): each worker
   spends T + r per segment at most, and the client, which merges one
   segment at a time, holds them back only when P * c exceeds T + r.

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
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from randqa.battery.suites import load_suite
from randqa.sizes import format_size, parse_size

from cpu_timing import children_cpu  # benchmarks/, the script's folder


def timed(command: list[str]) -> tuple[float, float, float]:
    """Wall time of a whole command, the part its cluster's start-up took,
    and the CPU time of the command and every process it started (its worker
    processes are waited for inside it, so the kernel counts them as ours)."""
    cpu = children_cpu()
    start = time.perf_counter()
    done = subprocess.run([*command, "--json", "-"], check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    return wall, json.loads(done.stdout)["execution"].get("startup_s", 0.0), children_cpu() - cpu


def tree_cpu(code: str) -> float:
    """CPU seconds of ``python -c code`` and every process it starts."""
    cpu = children_cpu()
    subprocess.run([sys.executable, "-c", code], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return children_cpu() - cpu


def cluster_cpu(suite: str, workers: int, repeats: int = 3) -> float:
    """X: the CPU time (every process) of starting an embedded cluster of
    ``workers`` processes, making each ready to test (an empty segment of
    ``suite``: the imports and tables its tests need) and closing it, beyond
    making this process ready: work a one-process run never does, taken
    from the cores the tests use."""
    ready = ("from randqa.battery.suites import load_suite\nfrom randqa.engine.jobs import StreamJob\n"
             f"job = StreamJob(load_suite({suite!r}), 'pcg64', 1)\njob.compute(0, 0, (), None)\n")
    on_workers = (f"{ready}from randqa.engine.parallel import Workers\n"
                  f"with Workers({workers}, notice=lambda line: None) as w:\n"
                  f"    w.client().run(job.compute, 0, 0, (), None)\n")
    return min(tree_cpu(on_workers) for _ in range(repeats)) - min(tree_cpu(ready) for _ in range(repeats))


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
        alone = min(pool.map(_busy, [0], chunksize=1) for _ in range(3))[0]
        # the best of 3: another process's burst can only lower it
        together = min(max(pool.map(_busy, range(workers), chunksize=1)) for _ in range(3))
    return workers * alone / together


def threads_rate(suite_name: str, size: int, threads: int) -> float:
    from randqa.engine import run
    from randqa.sources import open_source

    with open_source("pcg64", seed=1) as source:
        start = time.perf_counter()
        run(source, load_suite(suite_name), limit=size, jobs=threads)
        return size / (time.perf_counter() - start) / 1e6


def scaling(size: int, workers: int, suites: list[str], path: str, capacity: float) -> None:
    randqa = [sys.executable, "-m", "randqa", "test", "--no-progress", "-n", str(size)]
    startup_cpu = {suite: cluster_cpu(suite, workers) for suite in suites}
    print("\nstarting a cluster of {} workers ready to test, and closing it, costs X = {} CPU-s".format(
        workers, ", ".join(f"{x:.2f} ({suite})" for suite, x in startup_cpu.items())))
    print(f"{format_size(size)} per run; MB/s = 10^6 bytes/s of whole commands; 'running': without the "
          f"cluster's start-up")
    print(f"{'suite':<9} {'source':<7} {'--jobs 1':>9} {f'--jobs {workers}':>9} {'ratio':>6} {'running':>8} "
          f"{'ratio':>6} {'start-up':>8} {'CPU x':>6} {'bound':>6} {'start-up limit':>14}")
    for suite in suites:
        for label, source in (("pcg64", ["pcg64", "--seed", "1"]), ("file", [path])):
            wall_one, _, cpu_one = timed([*randqa, *source, "--suite", suite, "--jobs", "1"])
            one = size / wall_one / 1e6
            wall, startup, cpu_many = timed([*randqa, *source, "--suite", suite, "--jobs", str(workers)])
            many, running = size / wall / 1e6, size / (wall - startup) / 1e6
            # the CPU time the workers' run needs over one process's: with
            # `capacity` cores' worth, no ratio can pass capacity / (CPU x)
            extra = cpu_many / cpu_one
            limit = capacity * wall_one / (cpu_one + startup_cpu[suite])
            print(f"{suite:<9} {label:<7} {one:>9.1f} {many:>9.1f} {many / one:>5.2f}x {running:>8.1f} "
                  f"{running / one:>5.2f}x {startup:>7.1f}s {extra:>5.2f}x {capacity / extra:>5.2f}x "
                  f"{limit:>13.2f}x", flush=True)
        threaded = threads_rate(suite, size, workers)
        print(f"{suite:<9} {'pcg64':<7} {'':>9} {threaded:>9.1f} {'':>6}  ({workers} threads in one process)", flush=True)


def segment_cpu(suite: str, size: int, workers: int, segment: int, alignment: int) -> float:
    """r: the CPU time a segment costs a run of ``workers`` workers besides
    its test (see the module's docstring)."""
    short = max(alignment, round(segment / 16 / alignment) * alignment)
    command = [sys.executable, "-m", "randqa", "test", "--no-progress", "-n", str(size), "pcg64", "--seed", "1",
               "--suite", suite, "--jobs", str(workers), "--segment"]
    cpu = {length: min(timed([*command, str(length)])[2] for _ in range(2)) for length in (segment, short)}
    count = {length: -(-size // length) for length in (segment, short)}
    return (cpu[short] - cpu[segment]) / (count[short] - count[segment])


def overhead(suites: list[str], workers: int, repeats: int, measured: list[str], size: int) -> None:
    from randqa.engine.jobs import StreamJob, loaded, merge_into
    from randqa.engine.segment_policy import OPENED_SEGMENT_BYTES, segment_size, suite_alignment
    from randqa.engine.parallel import Workers

    with Workers(workers, notice=lambda line: None) as pool:
        client = pool.client()
        rounds = []
        for _ in range(20):
            start = time.perf_counter()
            client.submit(len, b"", pure=False).result()
            rounds.append(time.perf_counter() - start)
        d = statistics.median(rounds)
    print(f"\nper-segment overhead at a generator's default segment size (o, c: medians of {repeats}; r: "
          f"{format_size(size)} on {workers} workers); Dask round trip d = {d * 1e3:.1f} ms (hidden: two segments "
          f"per worker in flight)")
    print(f"{'suite':<14} {'segment':>9} {'T (s)':>7} {'o (ms)':>7} {'c (ms)':>7} {'state MB':>9} {'(o+c)/T':>8} "
          f"{'r (ms)':>7} {'r/T':>6} {'E(64)':>6}")
    for name in suites:
        suite = load_suite(name)
        alignment = suite_alignment(suite)
        segment = segment_size(alignment, None, default=OPENED_SEGMENT_BYTES)
        sample = min(segment, max(alignment, (64 << 20) // alignment * alignment))
        job = StreamJob(suite, "pcg64", 1)
        start = time.perf_counter()
        job.compute(segment, sample, (), None)
        test_s = (time.perf_counter() - start) * segment / sample
        worker, client_s, state_bytes = [], [], 0
        for k in range(repeats):
            at = (k + 1) * segment
            start = time.perf_counter()
            result = job.compute(at, 0, (), None)  # everything a segment costs but its test
            data = pickle.dumps(result, protocol=5)
            worker.append(time.perf_counter() - start)
            state_bytes = len(data)
            merged = job.build(at)  # the merged prefix, which ends where this segment starts
            start = time.perf_counter()
            merge_into(merged, loaded(job, at, pickle.loads(data)["states"]))
            client_s.append(time.perf_counter() - start)
        o, c = statistics.median(worker), statistics.median(client_s)
        # a run no longer than a segment stays in one process, so r needs a few segments
        r = segment_cpu(name, size, workers, segment, alignment) if name in measured and size >= 2 * segment else None
        cost = r if r is not None else o + c
        efficiency = test_s / (test_s + cost) * min(1.0, (test_s + cost) / (64 * c))
        real = f"{r * 1e3:>7.1f} {r / test_s:>6.2%}" if r is not None else f"{'-':>7} {'-':>6}"
        print(f"{name:<14} {format_size(segment):>9} {test_s:>7.2f} {o * 1e3:>7.1f} {c * 1e3:>7.1f} "
              f"{state_bytes / 1e6:>9.2f} {(o + c) / test_s:>8.2%} {real} {efficiency:>6.1%}", flush=True)


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
    capacity = machine_capacity(args.workers)
    print(f"this machine now runs {args.workers} CPU-bound processes at C = {capacity:.2f}x "
          f"the work of one (the ceiling of the ratios below; {args.workers}.00 when idle)")
    if not args.skip_scaling:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "pcg64.bin")
            size = parse_size(args.size)
            write_stream(path, size)
            scaling(size, args.workers, suites, path, capacity)
    overhead([s for s in args.overhead_suites.split(",") if s], args.workers, args.repeats,
             [] if args.skip_scaling else suites, parse_size(args.size))
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}; {args.workers} processes now do "
          f"{machine_capacity(args.workers):.2f}x the work of one")


if __name__ == "__main__":
    main()
