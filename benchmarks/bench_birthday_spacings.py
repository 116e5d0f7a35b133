"""Throughput of the birthday spacings test on one core, as ratios measured
in the same run.

    python benchmarks/bench_birthday_spacings.py [--size 256M] [--rounds 5]

Feeds the same PCG64 bytes, in the engine's chunks, to the suite's
birthday_spacings accumulator (4096 32-bit points per block) counting with:

- ``_spacings.spacing_collisions``, the bucketed kernel the test uses;
- ``_spacings.birthday_collisions``, two LSD radix sorts per block, the
  textbook method, kept as the reference the bucketed kernel is timed against;

and times numpy sorting the same 4096-point rows as a yardstick.  Then the
same for the frontier suite's full-width entry, 6,553,600 64-bit points per
50 MiB block (the spread sort of count_large_blocks against the radix
sorts and numpy's sort of each block), on the first 250 MiB.  Times are
this thread's CPU seconds (time spent waiting for a core on a busy machine
does not count); the rows take turns, ``--rounds`` times, and each keeps
its best.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from randqa.battery import _spacings
from randqa.battery.birthday_spacings import BirthdaySpacings
from randqa.engine import CHUNK_BYTES

from cpu_timing import pcg64_bytes, print_best_rates, size_and_rounds  # benchmarks/, the script's folder


class RadixSortedSpacings(BirthdaySpacings):
    """The test counting each block with two radix sorts."""

    def _scan(self, run: np.ndarray) -> None:
        counts = _spacings.birthday_collisions(run, self.points, self.word_bytes, self.bits_per_word, self.dims)
        self.blocks += len(counts)
        self.collisions += sum(counts)


WIDE = dict(points=6_553_600, word_bytes=8, dims=1)  # suites/frontier.toml


def feed(cls: type[BirthdaySpacings], data: np.ndarray, **params: int) -> Callable[[], tuple[int, int]]:
    def run() -> tuple[int, int]:
        acc = cls(**(params or dict(points=4096, word_bytes=4, dims=1)))
        for lo in range(0, len(data), CHUNK_BYTES):
            acc.update(data[lo:lo + CHUNK_BYTES])
        return acc.blocks, acc.collisions
    return run


def numpy_row_sort(data: np.ndarray) -> Callable[[], None]:
    rows = data[: len(data) // 16384 * 16384].view("<u4").reshape(-1, 4096)
    return lambda: np.sort(rows, axis=1)


def main() -> None:
    size, rounds = size_and_rounds(__doc__, "256M")
    data = pcg64_bytes(size)
    rows: dict[str, Callable[[], object]] = {
        "birthday_spacings, bucketed kernel": feed(BirthdaySpacings, data),
        "birthday_spacings, two radix sorts": feed(RadixSortedSpacings, data),
    }
    rows["numpy sort of the 4096-point rows"] = numpy_row_sort(data)
    answers = {label: run() for label, run in rows.items() if label.startswith("birthday")}
    if len(set(answers.values())) != 1:
        raise SystemExit(f"the kernels disagree: {answers}")
    print_best_rates(rows, rounds, size, 40, "birthday_spacings, two radix sorts", "x radix",
                     lambda seconds, reference: reference / seconds)

    wide_bytes = 5 * WIDE["points"] * 8
    wide = pcg64_bytes(wide_bytes)
    rows = {"full width, spread sort": feed(BirthdaySpacings, wide, **WIDE),
            "full width, two radix sorts": feed(RadixSortedSpacings, wide, **WIDE),
            "numpy sort of each block": lambda: [np.sort(block) for block in wide.view("<u8").reshape(5, -1)]}
    answers = {label: run() for label, run in rows.items() if label.startswith("full")}
    if len(set(answers.values())) != 1:
        raise SystemExit(f"the kernels disagree: {answers}")
    print()
    print_best_rates(rows, max(1, rounds // 2), wide_bytes, 40, "full width, two radix sorts", "x radix",
                     lambda seconds, reference: reference / seconds)


if __name__ == "__main__":
    main()
