"""First failures of interleaved streams: randqa next to PractRand on the same bytes, in one run.

    python benchmarks/bench_streams_vs_practrand.py --practrand PATH/RNG_test
        [--generators java-random,minstd,mt19937] [--streams 4] [--stream-seeds consecutive]
        [--seed 1] [--max 1G] [--practrand-max SIZE] [--suite standard]

For each generator, K streams seeded by the scheme (randqa/sources/multistream.py)
are tested twice from the same seed:

- ``randqa test GEN --streams K --stream-seeds S --seed N --progressive --max MAX``
  (the interleaved stream, each stream alone and each pair's XOR), one process,
  ``--jobs 1``;
- ``randqa generate GEN --streams K --stream-seeds S --seed N`` piped into
  PractRand 0.94 ``RNG_test stdinW -tlmin 1KB -tlmax MAX`` (W: the generator's
  word size in bits, so PractRand folds its words as it would the generator's
  own; PractRand stops at its first failure, ``-tlfail`` being its default).
  These are exactly the bytes randqa's interleaved tests read.

Prints, per generator, each tester's first failing length (powers of two; "none
to MAX" when nothing failed), the tests that failed there, and each command's
wall time.  PractRand is not part of randqa: build RNG_test from its public
source in a folder of your own.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time

from randqa.sizes import format_size, parse_size
from randqa.sources.multistream import StreamLayout, open_streams

#: PractRand's report of one length: "length= 2 megabytes (2^21 bytes), time= ..."
_LENGTH = re.compile(r"^length=.*\(2\^(\d+) bytes\)")
#: a result line whose evaluation is a failure: "  [Low1/32]BCFN(2+0,13-2,T)   R= +49.2  p =  2.1e-25   FAIL !!"
_FAILED = re.compile(r"^\s+(\S+)\s+R=.*\bFAIL\b")


def randqa_first_failure(generator: str, args: argparse.Namespace) -> tuple[int | None, list[str], float]:
    """randqa's first failing length, the tests that failed there, seconds."""
    command = ["randqa", "test", generator, "--streams", str(args.streams), "--stream-seeds", args.stream_seeds,
               "--seed", str(args.seed), "--progressive", "--max", args.max, "--suite", args.suite, "-j", "1",
               "--json", "-", "--no-progress"]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()}")
    document = json.loads(done.stdout)
    first = document["first_failure_bytes"]
    failed = []
    if first is not None:
        at = next(length for length in document["lengths"] if length["bytes"] == first)
        failed = [t["name"] for t in at["tests"] if t["verdict"] == "fail"]
    return first, failed, seconds


def practrand_first_failure(generator: str, word_bits: int, args: argparse.Namespace) -> tuple[int | None, list[str], float]:
    """PractRand's first failing length on ``randqa generate``'s bytes, the tests that failed there, seconds."""
    generate = ["randqa", "generate", generator, "--streams", str(args.streams), "--stream-seeds", args.stream_seeds,
                "--seed", str(args.seed), "--quiet"]
    practrand = [args.practrand, f"stdin{word_bits}", "-tlmin", "1KB", "-tlmax", args.practrand_max]
    start = time.perf_counter()
    producer = subprocess.Popen(generate, stdout=subprocess.PIPE)
    assert producer.stdout is not None
    tester = subprocess.run(practrand, stdin=producer.stdout, capture_output=True, text=True, check=False)
    producer.stdout.close()
    producer.wait()
    seconds = time.perf_counter() - start
    length, first, failed = None, None, []
    for line in tester.stdout.splitlines():
        match = _LENGTH.match(line)
        if match:
            length = 1 << int(match.group(1))
        failure = _FAILED.match(line)
        if failure and length is not None:
            if first is None:
                first = length
            if length == first:
                failed.append(failure.group(1))
    if length is None:
        sys.exit(f"{' '.join(practrand)} printed no result: {tester.stdout[-500:]}{tester.stderr[-500:]}")
    return first, failed, seconds


def shown(first: int | None, failed: list[str], limit: str) -> str:
    if first is None:
        return f"none to {format_size(parse_size(limit))}"
    names = ", ".join(failed[:3]) + (f" (+{len(failed) - 3})" if len(failed) > 3 else "")
    return f"{format_size(first)}: {names}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--practrand", required=True, help="path of PractRand 0.94's RNG_test")
    parser.add_argument("--generators", default="java-random,minstd,mt19937")
    parser.add_argument("--streams", type=int, default=4)
    parser.add_argument("--stream-seeds", default="consecutive")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max", default="1G", help="randqa's last progressive length")
    parser.add_argument("--practrand-max", help="PractRand's -tlmax (default: --max)")
    parser.add_argument("--suite", default="standard")
    args = parser.parse_args()
    args.practrand_max = args.practrand_max or args.max
    print(f"{args.streams} streams seeded {args.stream_seeds} from seed {args.seed}, interleaved every word; "
          f"randqa --suite {args.suite} --progressive to {args.max}, PractRand 0.94 to {args.practrand_max}")
    for generator in args.generators.split(","):
        with open_streams(generator, args.seed, StreamLayout(args.streams, args.stream_seeds)) as probe:
            word_bits = 8 * probe.interleave
        ours = randqa_first_failure(generator, args)
        theirs = practrand_first_failure(generator, word_bits, args)
        print(f"{generator}")
        print(f"  randqa     {shown(ours[0], ours[1], args.max)}   ({ours[2]:.1f} s)")
        print(f"  PractRand  {shown(theirs[0], theirs[1], args.practrand_max)}   (stdin{word_bits}, {theirs[2]:.1f} s)",
              flush=True)


if __name__ == "__main__":
    main()
