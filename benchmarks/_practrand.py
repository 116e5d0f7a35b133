"""First failures of randqa and PractRand 0.94 on the same bytes, for the
benchmarks that set them side by side (bench_frontier, bench_runtimes_vs_practrand,
bench_streams_vs_practrand).

PractRand reads ``randqa generate``'s bytes on a pipe, as ``RNG_test stdinW
-tlmin 1KB -tlmax MAX`` (W: the generator's word size in bits, so PractRand
folds the words as it would the generator's own); it reports at every power
of two and stops after its first failing length (``-tlfail``, its default).
randqa runs ``randqa test ... --progressive`` on the same generator and seed.
PractRand is not part of randqa: build RNG_test from its public source in a
folder of your own and give its path.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Iterator

from randqa.errors import UsageError
from randqa.sizes import format_size, parse_size

#: PractRand's report of one length: "length= 2 megabytes (2^21 bytes), time= ..."
LENGTH = re.compile(r"^length=.*\(2\^(\d+(?:\.\d+)?) bytes\)")
#: a result line judged a failure: "  [Low1/32]BCFN(2+0,13-2,T)   R= +49.2  p =  2.1e-25   FAIL !!"
FAILED = re.compile(r"^\s+(\S+)\s+R=.*\bFAIL\b")


@dataclass
class FirstFailure:
    """A tester's first failing length (None: none up to the limit), the tests failed there, its wall time."""

    length: int | None
    tests: list[str]
    seconds: float

    def shown(self, limit: int) -> str:
        return format_size(self.length) if self.length is not None else f"none to {format_size(limit)}"


def comparison_parser(description: str, names: str, default_max: str) -> argparse.ArgumentParser:
    """The arguments of a benchmark that runs named generators through both
    testers: NAME ... (``names``: what they are), --practrand, --max, --seed."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"{names} (default: all)")
    parser.add_argument("--practrand", required=True, help="path of PractRand's RNG_test (0.94)")
    parser.add_argument("--max", default=default_max,
                        help=f"longest length tested (a power of two; default {default_max})")
    parser.add_argument("--seed", type=int, default=1, help="seed of every generator (default 1)")
    return parser


def practrand_path(given: str) -> str:
    """``--practrand``'s RNG_test as an absolute path; exits with one line if it cannot run."""
    path = os.path.abspath(given)
    if not os.access(path, os.X_OK) or not os.path.isfile(path):
        sys.exit(f"--practrand {given}: not an executable file")
    return path


def doubling_limit(text: str, option: str = "--max") -> int:
    """A length both testers reach: a power of two of at least 1 KiB (PractRand's lengths double)."""
    try:
        limit = parse_size(text)
    except UsageError as exc:
        sys.exit(f"{option} {text}: {exc}")
    if limit < 1024 or limit & (limit - 1):
        sys.exit(f"{option} {text}: PractRand's lengths are powers of two of at least 1 KiB")
    return limit


def parse_report(stdout: str) -> tuple[int | None, int | None, list[str]]:
    """From RNG_test's report: the last length reported, the first length
    with a FAIL (None: none), and the tests that failed there."""
    length, first, failed = None, None, []
    for line in stdout.splitlines():
        reported = LENGTH.match(line)
        if reported:
            length = round(2.0 ** float(reported.group(1)))
            continue
        failure = FAILED.match(line)
        if failure and length is not None:
            first = length if first is None else first
            if length == first:
                failed.append(failure.group(1))
    return length, first, failed


@contextmanager
def piped(producer: list[str]) -> Iterator[IO[bytes]]:
    """The standard output of the command ``producer``, which writes until its
    pipe closes: once the reader has stopped, the pipe is closed, which ends
    the producer, and it is waited for."""
    process = subprocess.Popen(producer, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdout is not None
    try:
        yield process.stdout
    finally:
        process.stdout.close()
        process.wait()


def practrand_first_failure(practrand: str, generate_args: list[str], word_bits: int, limit: int) -> FirstFailure:
    """PractRand's first failure on ``randqa generate GENERATE_ARGS``'s bytes, up to ``limit``."""
    # endless: PractRand reads a little past -tlmax, and the closed pipe ends randqa generate
    generate = [sys.executable, "-m", "randqa", "generate", *generate_args, "--quiet"]
    source = f"randqa generate {' '.join(generate_args)}"
    return practrand_first_failure_on(practrand, generate, source, word_bits, limit)


def practrand_first_failure_on(practrand: str, producer: list[str], source: str, word_bits: int,
                               limit: int) -> FirstFailure:
    """PractRand's first failure on the bytes the command ``producer`` writes, up to ``limit``.

    The producer must write until its pipe closes (PractRand reads a little past
    -tlmax); ``source`` names it in the error when PractRand stops early."""
    start = time.perf_counter()
    command = [practrand, f"stdin{word_bits}", "-tlmin", "1KB", "-tlmax", f"{limit >> 10}KB"]
    with piped(producer) as stream:
        done = subprocess.run(command, stdin=stream, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    length, first, failed = parse_report(done.stdout)
    if first is None and length != limit:
        sys.exit(f"{' '.join(command)} on {source} stopped before "
                 f"{format_size(limit)} without a FAIL (exit {done.returncode}):\n{done.stdout[-500:]}{done.stderr[-300:]}")
    return FirstFailure(first, failed, seconds)


def randqa_first_failure(test_args: list[str]) -> FirstFailure:
    """randqa's first failure: ``randqa test TEST_ARGS --progressive``, the tests failed there."""
    return _randqa_progressive(test_args, None)


def randqa_first_failure_on(producer: list[str], test_args: list[str]) -> FirstFailure:
    """randqa's first failure on the bytes the command ``producer`` writes:
    ``PRODUCER | randqa test - TEST_ARGS --progressive``.  The producer must write
    until its pipe closes; an input that ends before ``--max`` without a failure
    exits with one line."""
    with piped(producer) as stream:
        return _randqa_progressive(["-", *test_args], stream, f"{' '.join(producer)} | ")


def _randqa_progressive(test_args: list[str], stdin: IO[bytes] | None, shown: str = "") -> FirstFailure:
    command = [sys.executable, "-m", "randqa", "test", *test_args, "--progressive", "--json", "-", "--no-progress"]
    start = time.perf_counter()
    done = subprocess.run(command, stdin=stdin, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{shown}{' '.join(command[2:])} exited {done.returncode}: {done.stderr.strip()[-300:]}")
    document = json.loads(done.stdout)
    if stdin is not None and document["first_failure_bytes"] is None and document["input_ended_early"]:
        sys.exit(f"{shown}{' '.join(command[2:])}: the input ended after {format_size(document['bytes_tested'])}")
    # a progressive run that fails stops at that length: its final results are the failing length's
    failed = [t["name"] for t in document["tests"] if t["verdict"] == "fail"]
    return FirstFailure(document["first_failure_bytes"], failed if document["first_failure_bytes"] else [], seconds)
