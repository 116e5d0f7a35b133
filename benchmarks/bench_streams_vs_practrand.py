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

from _practrand import FirstFailure, doubling_limit, practrand_first_failure, practrand_path, randqa_first_failure

from randqa.sizes import format_size, parse_size
from randqa.sources.multistream import StreamLayout, open_streams


def shown(first: FirstFailure, limit: int) -> str:
    names = ", ".join(first.tests[:3]) + (f" (+{len(first.tests) - 3})" if len(first.tests) > 3 else "")
    return first.shown(limit) + (f": {names}" if first.length is not None else "")


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
    practrand = practrand_path(args.practrand)
    limit = parse_size(args.max)
    practrand_limit = doubling_limit(args.practrand_max or args.max, "--practrand-max")
    print(f"{args.streams} streams seeded {args.stream_seeds} from seed {args.seed}, interleaved every word; "
          f"randqa --suite {args.suite} --progressive to {format_size(limit)}, PractRand 0.94 to "
          f"{format_size(practrand_limit)}")
    for generator in args.generators.split(","):
        with open_streams(generator, args.seed, StreamLayout(args.streams, args.stream_seeds)) as probe:
            word_bits = 8 * probe.interleave
        streams = ["--streams", str(args.streams), "--stream-seeds", args.stream_seeds, "--seed", str(args.seed)]
        ours = randqa_first_failure([generator, *streams, "--max", str(limit), "--suite", args.suite, "--jobs", "1"])
        theirs = practrand_first_failure(practrand, [generator, *streams], word_bits, practrand_limit)
        print(f"{generator}")
        print(f"  randqa     {shown(ours, limit)}   ({ours.seconds:.1f} s)")
        print(f"  PractRand  {shown(theirs, practrand_limit)}   (stdin{word_bits}, {theirs.seconds:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
