"""randqa on PractRand 0.94's own zoo of 190 generators, next to PractRand's published first failures.

Each generator of ``shared/data/practrand-zoo.tsv`` is written by PractRand's ``RNG_output NAME inf SEED``
and piped into ``randqa test - --progressive --max MAX --jobs 1`` (one process each). A generator's run
ends at its first confirmed FAIL, at MAX, or when randqa has used ``--cpu-seconds`` of CPU time (user +
system of the randqa process, read from /proc; RNG_output's own time is the generator's, not the
tester's): then it is sent SIGINT and counts as flagged only if its report already holds a FAIL. Nothing
is cached: every row is a fresh run.

Printed: one row per generator (randqa's first failing length beside PractRand's published one, the
tests that failed, CPU seconds), then per category and in total the counts flagged at equal bytes (the
table's 512 MB, 4 GB and 16 GB slots, as far as MAX reaches) and at equal CPU time (randqa's budget
against PractRand's 1-minute and 1-hour counts on one core, 65 and 114 from the same table), and the
generators PractRand fails within MAX that randqa does not fail by twice PractRand's length (the
repeat on fresh data that confirms a FAIL may need the next stretch).

With ``--practrand RNG_TEST`` the chosen generators (``--only``) are also run through PractRand's
``RNG_test stdin8`` on the same bytes (same NAME and SEED), up to MAX, on this machine.

    python benchmarks/bench_practrand_zoo.py --rng-output /tmp/practrand/bin/RNG_output \
        --max 512M --cpu-seconds 60 --parallel 2
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _practrand import parse_report, practrand_path  # noqa: E402

from randqa.sizes import format_size, parse_size  # noqa: E402

ZOO = Path(__file__).resolve().parents[2] / "shared" / "data" / "practrand-zoo.tsv"
#: PractRand's time slots on one core, from the zoo table's header: (label, bytes, PractRand's count)
BYTE_SLOTS = (("10 s", 512 << 20, 43), ("1 min", 4 << 30, 65), ("5 min", 16 << 30, 83))
#: PractRand's 1-hour slot: 256 GB on one core
HOUR_BYTES = 256 << 30
#: how often a run's CPU time is read
POLL_SECONDS = 0.1


@dataclass(frozen=True)
class ZooEntry:
    category: str
    name: str
    practrand_bytes: int  # 0: none found within the table's length
    practrand_text: str


@dataclass
class ZooRun:
    entry: ZooEntry
    first_failure: int | None
    bytes_tested: int
    failed_tests: list[str]
    cpu_seconds: float
    stopped_by_budget: bool
    error: str = ""


def read_zoo(path: Path) -> list[ZooEntry]:
    """The zoo table: tab-separated, '#' comment lines, a header line naming the columns."""
    with open(path, encoding="utf-8") as f:
        rows = [line for line in f if not line.startswith("#")]
    return [ZooEntry(r["category"], r["name"], int(r["practrand_bytes"]), r["practrand_text"])
            for r in csv.DictReader(rows, delimiter="\t")]


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU time of a live process and all its threads (/proc/PID/stat fields 14 and 15)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_randqa(entry: ZooEntry, rng_output: str, seed: str, limit: int, cpu_budget: float, suite: str) -> ZooRun:
    """randqa's progressive run on one zoo generator's bytes, stopped by SIGINT past its CPU budget."""
    with tempfile.TemporaryDirectory() as folder:
        report = os.path.join(folder, "run.json")
        generator = subprocess.Popen([rng_output, entry.name, "inf", seed], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        assert generator.stdout is not None
        # SIGINT is how the budget stops it: a bench started in the background
        # of a shell without job control ignores SIGINT, and its children would too
        tester = subprocess.Popen([sys.executable, "-m", "randqa", "test", "-", "--progressive", "--max", str(limit),
                                   "--jobs", "1", "--suite", suite, "--json", report, "--no-progress"],
                                  stdin=generator.stdout, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        generator.stdout.close()  # the tester holds the pipe: RNG_output ends when it closes
        cpu, stopped = 0.0, False
        while True:
            # wait4 reaps the tester with its own resource use: its exact CPU time at the end
            pid, status, usage = os.wait4(tester.pid, os.WNOHANG)
            if pid:
                tester.returncode = os.waitstatus_to_exitcode(status)
                cpu = usage.ru_utime + usage.ru_stime
                break
            try:
                cpu = process_cpu_seconds(tester.pid)
            except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
                pass  # the process ended between the two reads
            if cpu > cpu_budget and not stopped:
                tester.send_signal(signal.SIGINT)
                stopped = True
            time.sleep(POLL_SECONDS)
        stderr = tester.stderr.read().decode(errors="replace") if tester.stderr else ""
        generator.kill()
        generator.wait()
        if tester.returncode not in (0, 1) and not (stopped and os.path.exists(report)):
            return ZooRun(entry, None, 0, [], cpu, stopped, f"exit {tester.returncode}: {stderr.strip()[-200:]}")
        try:
            with open(report, encoding="utf-8") as f:
                document = json.load(f)
        except (OSError, ValueError) as error:
            return ZooRun(entry, None, 0, [], cpu, stopped, f"no JSON report ({error}): {stderr.strip()[-200:]}")
    first = document.get("first_failure_bytes")
    failed = [t["name"] for t in document["tests"] if t["verdict"] == "fail"] if first else []
    run = ZooRun(entry, first, int(document["bytes_tested"]), failed, cpu, stopped)
    print(f"{entry.name}: {shown_failure(run, limit)} ({cpu:.1f} CPU s)", file=sys.stderr, flush=True)
    return run


def run_practrand(entry: ZooEntry, rng_output: str, rng_test: str, seed: str, limit: int) -> tuple[int | None, list[str]]:
    """PractRand's first failing length (None: none to ``limit``) on the same bytes, and its failing tests."""
    generator = subprocess.Popen([rng_output, entry.name, "inf", seed], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL)
    assert generator.stdout is not None
    try:
        done = subprocess.run([rng_test, "stdin8", "-tlmin", "1KB", "-tlmax", f"{limit >> 10}KB"],
                              stdin=generator.stdout, capture_output=True, text=True, check=False)
    finally:
        generator.stdout.close()
        generator.kill()
        generator.wait()
    _, first, failed = parse_report(done.stdout)
    return first, failed


def caught_in_time(run: ZooRun) -> bool:
    """Whether randqa failed the generator (within its CPU budget and length)."""
    return run.first_failure is not None


def missed(run: ZooRun, limit: int) -> bool:
    """PractRand fails it within ``limit`` and randqa does not by twice PractRand's length."""
    published = run.entry.practrand_bytes
    if not published or published > limit:
        return False
    return run.first_failure is None or run.first_failure > 2 * published


def shown_failure(run: ZooRun, limit: int) -> str:
    if run.error:
        return "error"
    if run.first_failure is not None:
        return format_size(run.first_failure)
    tested = format_size(run.bytes_tested, approximate=True) if run.bytes_tested else "0"  # a budget stops anywhere
    return f"pass {tested}" + (" (cpu)" if run.stopped_by_budget else "")


def print_rows(runs: list[ZooRun], limit: int) -> None:
    print(f"{'category':24} {'generator':22} {'PractRand':>10} {'randqa':>16} {'cpu s':>6}  failed tests")
    for run in runs:
        mark = "  MISS" if missed(run, limit) else ""
        tests = ", ".join(run.failed_tests[:3]) + (" ..." if len(run.failed_tests) > 3 else "")
        print(f"{run.entry.category:24} {run.entry.name:22} {run.entry.practrand_text:>10} "
              f"{shown_failure(run, limit):>16} {run.cpu_seconds:6.1f}  {run.error or tests}{mark}")


def print_counts(runs: list[ZooRun], limit: int, cpu_budget: float) -> None:
    categories = sorted({r.entry.category for r in runs}, key=[r.entry.category for r in runs].index)
    slots = [(label, size) for label, size, _ in BYTE_SLOTS if size <= limit]
    head = "".join(f" {'@' + format_size(size):>16}" for _, size in slots)
    print(f"\nflagged (randqa / PractRand's table) at equal bytes; at equal CPU: randqa in {cpu_budget:g} CPU s "
          f"against PractRand in 1 min (4 GB) and 1 h (256 GB) on one core")
    print(f"{'category':24} {'n':>4}{head} {'randqa cpu':>11} {'PR 1 min':>9} {'PR 1 h':>7} {'missed':>7}")
    for category in [*categories, "total"]:
        group = runs if category == "total" else [r for r in runs if r.entry.category == category]
        cells = ""
        for _, size in slots:
            ours = sum(1 for r in group if r.first_failure is not None and r.first_failure <= size)
            theirs = sum(1 for r in group if 0 < r.entry.practrand_bytes <= size)
            cells += f" {f'{ours} / {theirs}':>16}"
        minute = sum(1 for r in group if 0 < r.entry.practrand_bytes <= 4 << 30)
        hour = sum(1 for r in group if 0 < r.entry.practrand_bytes <= HOUR_BYTES)
        print(f"{category:24} {len(group):>4}{cells} {sum(map(caught_in_time, group)):>11} {minute:>9} {hour:>7} "
              f"{sum(missed(r, limit) for r in group):>7}")
    misses = [r for r in runs if missed(r, limit)]
    if misses:
        print(f"\nPractRand fails within {format_size(limit)}, randqa not by twice its length ({len(misses)}):")
        for run in misses:
            print(f"  {run.entry.name:22} PractRand {run.entry.practrand_text:>8}   randqa {shown_failure(run, limit)}")


def split_names(text: str) -> list[str]:
    """Comma-separated zoo names, where a name's parameters hold commas of their own: lcg(16,32),sfc16."""
    return [name.strip() for name in re.findall(r"(?:[^,(]|\([^)]*\))+", text)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rng-output", required=True, help="PractRand's RNG_output (shared/tools/build-practrand.sh)")
    parser.add_argument("--zoo", type=Path, default=ZOO, help="the zoo table (default: %(default)s)")
    parser.add_argument("--max", default="512M", help="longest length tested (default: %(default)s)")
    parser.add_argument("--cpu-seconds", type=float, default=60.0, help="randqa's CPU budget per generator")
    parser.add_argument("--suite", default="standard", help="randqa's suite (name or TOML path)")
    parser.add_argument("--seed", default="1", help="RNG_output's seed, hexadecimal (default: %(default)s)")
    parser.add_argument("--only", help="comma-separated generator names, e.g. lcg(16,32),sfc16 (default: all)")
    parser.add_argument("--category", help="only this category of the table")
    parser.add_argument("--parallel", type=int, default=1,
                        help="generators run at once (each one process; CPU budgets are per process)")
    parser.add_argument("--practrand", help="RNG_test: also run PractRand on the chosen generators' bytes")
    parser.add_argument("--json", help="write each row as JSON to this file")
    args = parser.parse_args()

    limit = parse_size(args.max)
    rng_output = practrand_path(args.rng_output)
    rng_test = practrand_path(args.practrand) if args.practrand else None
    entries = read_zoo(args.zoo)
    if args.only:
        wanted = split_names(args.only)
        unknown = sorted(set(wanted) - {e.name for e in entries})
        if unknown:
            sys.exit(f"--only: not in {args.zoo}: {', '.join(unknown)}")
        entries = [e for e in entries if e.name in wanted]
    if args.category:
        entries = [e for e in entries if e.category == args.category]
    if not entries:
        sys.exit("no generator chosen")

    start = time.perf_counter()
    with ThreadPoolExecutor(max(1, args.parallel)) as pool:
        runs = list(pool.map(lambda e: run_randqa(e, rng_output, args.seed, limit, args.cpu_seconds, args.suite),
                             entries))
    print(f"{len(runs)} generators, --max {format_size(limit)}, {args.cpu_seconds:g} CPU s each, suite {args.suite}, "
          f"seed {args.seed}; {time.perf_counter() - start:.0f} s wall\n")
    print_rows(runs, limit)
    print_counts(runs, limit, args.cpu_seconds)
    if rng_test:
        print(f"\nPractRand RNG_test stdin8 on the same bytes, to {format_size(limit)}:")
        for run in runs:
            first, failed = run_practrand(run.entry, rng_output, rng_test, args.seed, limit)
            shown = format_size(first) if first else f"none to {format_size(limit)}"
            print(f"  {run.entry.name:22} PractRand {shown:>14} ({', '.join(failed[:2])})   "
                  f"randqa {shown_failure(run, limit)}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump([{"category": r.entry.category, "name": r.entry.name, "practrand_bytes": r.entry.practrand_bytes,
                        "randqa_first_failure": r.first_failure, "bytes_tested": r.bytes_tested,
                        "failed_tests": r.failed_tests, "cpu_seconds": round(r.cpu_seconds, 2),
                        "stopped_by_cpu_budget": r.stopped_by_budget, "error": r.error} for r in runs], f, indent=1)


if __name__ == "__main__":
    main()
