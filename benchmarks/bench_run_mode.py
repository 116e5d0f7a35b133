"""The default run mode against --jobs 1 and --jobs N, measured in one run.

    python benchmarks/bench_run_mode.py [--sizes 64M,1G,4G] [--suites quick,standard] [--repeats 3]

Writes a file of random bytes (os.urandom, as large as the largest size) in a
temporary folder, then times whole commands, ``randqa test FILE -n SIZE
--suite S`` with the default ``--jobs`` (every core; randqa picks the run
mode, randqa/engine/run_mode.py), ``--jobs 1`` and ``--jobs N`` (N = cores:
the same ceiling as the default, so the same choice; their difference is
noise), and for reference a local Dask cluster forced (``--jobs N --segment
240M``, timed after the others, a third as often: the processes a cluster
leaves to end after its command would otherwise slow whichever command
follows it, which the turns made the default most often),
for each suite and size, in ``--repeats`` turns (at least 21 for runs
shorter than 4 GiB, whose few seconds vary most), each turn running the
compared commands back to back, each command first in turn.  The checks
use paired ratios: in each turn the default's time over the other
command's in the same turn, and their median over the turns.  A VM's speed
drifts over minutes (here ``--jobs 1`` on 4 GiB of the standard suite took
15.4 s in one run of this benchmark and 20.5 s an hour later), so times
taken at different moments, as the shortest or the median of each command
alone, compared the host's moments more than the commands: the shortest of
21 runs of the default and of ``--jobs N`` (the same command on 2 cores)
still differed by 7% at 0.4 s and by 8% at 4 GiB.  A turn's commands run
within seconds of each other, so a slow stretch falls on all of them.  The
table shows each command's shortest run and its median in brackets.  The file is
synced to disk before the first run, and randqa's modules are
byte-compiled, as pip does when it installs a package: with
PYTHONDONTWRITEBYTECODE set (as on the machines this project runs on) an
editable checkout would otherwise compile them afresh in every command
(0.2 s each).  It prints a table, each row's ratios and the run mode the
default chose (the JSON's ``execution``; none for a run that stayed in one
piece), and checks:

- the default is within 5% of the better of ``--jobs 1`` and ``--jobs N`` in
  every row: the median paired ratio of the default to each is at most 1.05
  (def/j1 and def/jN in the table);
- the standard suite on 4 GiB with the default is at least 1.8x ``--jobs 1``
  on 2 cores, by the median paired ratio (shown, not checked, on another
  number of cores).

The exit status is 0 when every check holds, 1 otherwise.  The suite's cost
per byte is measured once before the first timed run (the measurement is
cached, as it is for any later run).  On a machine shared with other work
the times are noisy: rerun a row that looks off.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import randqa
from randqa.sizes import format_size, parse_size

#: the default may be this much slower than the better of --jobs 1 and --jobs N
TOLERANCE = 0.05
#: standard suite, 4 GiB, 2 cores: the default against --jobs 1
STANDARD_4G_MIN_RATIO = 1.8
#: turns of the commands shorter than 4 GiB: their few seconds vary by 15-20% from run to run on a VM
SHORT_REPEATS = 21
#: seconds between two commands: what the last one left running (a cluster's resource tracker) ends first
PAUSE_S = 0.5
#: the segment of the forced cluster's column (a multiple of every shipped suite's alignment)
SEGMENT = "240M"


def write_random_file(path: str, size: int) -> None:
    block = 64 << 20
    with open(path, "wb") as f:
        for start in range(0, size, block):
            f.write(os.urandom(min(block, size - start)))
        # written back before any timed run: the kernel's writeback would otherwise load the first commands
        f.flush()
        os.fsync(f.fileno())


def timed(command: list[str]) -> tuple[float, dict]:
    """Wall seconds of ``command`` and its JSON's execution block."""
    begin = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - begin
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()}")
    return elapsed, json.loads(done.stdout).get("execution", {})


def paired_ratio(numerators: list[float], denominators: list[float]) -> float:
    """The median over the turns of one command's time over another's in the same turn."""
    return statistics.median(a / b for a, b in zip(numerators, denominators))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64M,1G,4G")
    parser.add_argument("--suites", default="quick,standard")
    parser.add_argument("--repeats", type=int, default=3,
                        help=f"runs per command of 4 GiB or more (shorter: at least {SHORT_REPEATS})")
    args = parser.parse_args()
    sizes = [parse_size(text) for text in args.sizes.split(",")]
    suites = args.suites.split(",")
    cores = os.cpu_count() or 1
    # --jobs N is a ceiling the picker works under, as the default (every core) is; "cluster" forces a
    # local Dask cluster (a --segment shorter than the run), to show what segment threads replace
    modes = {"default": [], "--jobs 1": ["--jobs", "1"], f"--jobs {cores}": ["--jobs", str(cores)],
             "cluster": ["--jobs", str(cores), "--segment", SEGMENT]}
    base = [sys.executable, "-m", "randqa", "test"]
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench_run_mode.") as folder:
        path = os.path.join(folder, "random.bin")
        print(f"writing {format_size(max(sizes))} of random bytes to {path} ...", flush=True)
        write_random_file(path, max(sizes))
        compileall.compile_dir(os.path.dirname(randqa.__file__), quiet=1)
        for suite in suites:  # the suite's cost, measured once and cached before any timed run
            timed([*base, path, "-n", "64M", "--suite", suite, "--json", "-"])
        print(f"{cores} cores; shortest wall seconds of whole commands (median in brackets); ratios: median of "
              f"the turns' paired ratios\n")
        print(f"{'suite':<10}{'size':>8}" + "".join(f"{name:>16}" for name in modes)
              + f"{'def/j1':>9}{'def/jN':>9}{'j1/def':>9}  default's run mode")
        for suite in suites:
            for size in sizes:
                repeats = max(SHORT_REPEATS, args.repeats) if size < 4 << 30 else max(1, args.repeats)
                times: dict[str, list[float]] = {name: [] for name in modes}
                chosen = {}
                compared = [name for name in modes if name != "cluster"]
                # the compared commands take each place in turn (none is always the first after a size
                # change); the cluster's reference runs come after them, so that no compared command
                # follows a cluster's shutdown more often than another
                order = [name for repeat in range(repeats)
                         for name in compared[repeat % len(compared):] + compared[:repeat % len(compared)]]
                order += ["cluster"] * max(1, repeats // 3)
                for name in order:
                    time.sleep(PAUSE_S)
                    elapsed, execution = timed([*base, path, "-n", str(size), "--suite", suite,
                                                "--json", "-", *modes[name]])
                    times[name].append(elapsed)
                    if name == "default":
                        chosen = execution
                shortest = {name: min(values) for name, values in times.items()}
                median = {name: statistics.median(values) for name, values in times.items()}
                many = f"--jobs {cores}"
                to_one = paired_ratio(times["default"], times["--jobs 1"])
                to_many = paired_ratio(times["default"], times[many])
                speedup = paired_ratio(times["--jobs 1"], times["default"])
                print(f"{suite:<10}{format_size(size):>8}"
                      + "".join(f"{f'{shortest[n]:.2f} ({median[n]:.2f})':>16}" for n in modes)
                      + f"{to_one:>9.2f}{to_many:>9.2f}{speedup:>9.2f}  "
                      + (f"{chosen['run_mode']} ({chosen.get('run_mode_reason')})" if "run_mode" in chosen
                         else "one piece"), flush=True)
                for other, ratio in (("--jobs 1", to_one), (many, to_many)):
                    if ratio > 1 + TOLERANCE:
                        failures.append(f"{suite} {format_size(size)}: the default took {ratio:.2f}x as long as "
                                        f"{other} (median paired ratio), more than {TOLERANCE:.0%} over")
                if suite == "standard" and size == 4 << 30:
                    print(f"    standard 4 GiB: default is {speedup:.2f}x --jobs 1 (median paired ratio; "
                          f"shortest runs: {shortest['--jobs 1'] / shortest['default']:.2f}x, "
                          f"medians: {median['--jobs 1'] / median['default']:.2f}x)")
                    if cores == 2 and speedup < STANDARD_4G_MIN_RATIO:
                        failures.append(f"standard 4 GiB: default {speedup:.2f}x --jobs 1, under "
                                        f"{STANDARD_4G_MIN_RATIO}x")
    print()
    for line in failures:
        print(f"FAIL {line}")
    print("all checks hold" if not failures else f"{len(failures)} check(s) failed")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
