"""Throughput of a suite next to ENT's on the same file, measured in the
same run, printed as a ratio.

    python benchmarks/bench_suite_vs_ent.py [--suite quick] [--size 1G] [--jobs N]

Writes SIZE bytes of PCG64 output to a temporary file, then times
``randqa test FILE``, ``cat FILE | randqa test -`` and ``ent FILE``
(Debian package ``ent``) as whole commands, best of --repeats runs each, so
start-up costs are included for both tools.  PractRand is measured beside
them by bench_vs_practrand.py, given the path of an ``RNG_test`` built from
its public source.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

from randqa.sizes import parse_size


def best_time(commands: list[list[str]], repeats: int) -> float:
    """Best wall time of running ``commands`` as one pipeline (each an
    argument list, run without a shell, so no argument is ever parsed as
    shell syntax), stdout of each into stdin of the next."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        processes: list[subprocess.Popen] = []
        upstream = None
        for i, command in enumerate(commands):
            last = i == len(commands) - 1
            process = subprocess.Popen(command, stdin=upstream, stderr=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL if last else subprocess.PIPE)
            if upstream is not None:
                upstream.close()  # the next process holds it now; a reader that quits must end the writer
            upstream = process.stdout
            processes.append(process)
        for process in processes:
            process.wait()
        times.append(time.perf_counter() - start)
        failed = [(c, p.returncode) for c, p in zip(commands, processes) if p.returncode not in (0, 1)]
        if failed:  # a command that failed at once would time as fast
            sys.exit(f"{shlex.join(failed[0][0])} exited {failed[0][1]}: no timing")
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="1G")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=1, help="randqa --jobs value for an extra row")
    parser.add_argument("--suite", default="quick")
    args = parser.parse_args()
    size = parse_size(args.size)
    randqa = [sys.executable, "-m", "randqa", "test", "--suite", args.suite]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "stream.bin")
        gen = np.random.Generator(np.random.PCG64(1))
        with open(path, "wb") as f:
            left = size
            while left:
                n = min(left, 1 << 26)
                f.write(gen.bytes(n))
                left -= n
        rows = [
            (f"randqa test FILE ({args.suite})", best_time([[*randqa, path]], args.repeats)),
            (f"cat FILE | randqa test - ({args.suite})", best_time([["cat", path], [*randqa, "-"]], args.repeats)),
        ]
        if args.jobs > 1:
            rows.append((f"randqa test FILE --jobs {args.jobs}", best_time([[*randqa, path, "--jobs", str(args.jobs)]], args.repeats)))
        ent = shutil.which("ent")
        ent_time = best_time([[ent, path]], 1) if ent else None
    print(f"{'command':<36} {'seconds':>8} {'MB/s':>8} {'x ENT':>7}")
    for label, seconds in rows + ([("ent FILE", ent_time)] if ent_time else []):
        ratio = f"{ent_time / seconds:7.1f}" if ent_time else "      -"
        print(f"{label:<36} {seconds:8.2f} {size / seconds / 1e6:8.0f} {ratio}")
    if not ent_time:
        print("ent not installed (apt-get install ent): no ratio")


if __name__ == "__main__":
    main()
