"""Chi-square goodness of fit of byte values (or 16-bit words), as ENT computes it.

Source: J. Walker, ENT - A Pseudorandom Number Sequence Test Program
(fourmilab.ch/random), "Chi-square Test"; K. Pearson (1900).

Counts each of the 2**bits values over the non-overlapping ``bits``-bit
symbols of the stream and computes X^2 = sum (observed - expected)^2 /
expected with expected = N / 2**bits.  ENT prints this statistic for
``bits = 8``; randqa's equals it to ENT's printed digits.  The p-value is the
upper tail of chi-square with 2**bits - 1 degrees of freedom (ENT prints it
as a percentage); the lower tail is reported too, because a fit that is too
good (ENT's "less than 1%") is as suspect as a bad one.

Parameters:
  bits   8 (256 bins, default) or 16 (65,536 bins, little-endian words).

A verdict needs an expected count of at least 32 per bin: 8 KiB for
bits = 8, 4 MiB for bits = 16; from Cochran's 5 per bin on only a tail
below fail_at_once (1e-20) gives one, a failure no approximation error can
make (randu's and minstd's bytes fail at 2 KiB so).  5 is too few at the
fail threshold: the
exact multinomial tail (randqa/battery/_multinomial.py, every cell on one
lattice, no rounding) of the 1e-6 point of chi-square(255) is 1.50e-6 with
5 per bin and 1.22e-6 with 10; the excess falls as 1/e (2.4/e for 256
cells, fewer for more), 7% at 32 (benchmarks/calibration.py).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from randqa.battery import _counts
from randqa.battery._blocks import WholeBlockTest
from randqa.battery._shared import ByteCounts
from randqa.battery._sharing import Reads, SharesStatistic
from randqa.battery.base import OBJECT_BYTES, MemoryNeed, Range
from randqa.results import TestResult, chi_square_result, insufficient

MIN_EXPECTED = 32
#: from this many per bin on, a tail below fail_at_once fails
DECISIVE_MIN_EXPECTED = 5


class ChiSquare(SharesStatistic, WholeBlockTest):
    name = "chi_square"
    parameter_ranges: ClassVar[dict[str, Range]] = {"bits": Range(8, 16)}
    reads = Reads(ByteCounts, bits=8)

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        bins = 1 << cls.with_defaults(params)["bits"]
        # the counts; at finalize their deviations and squares
        return MemoryNeed(8 * bins + OBJECT_BYTES, 16 * bins + 64)

    def __init__(self, *, bits: int = 8) -> None:
        if bits not in (8, 16):
            raise ValueError(f"bits must be 8 or 16, not {bits!r}")
        super().__init__(bits // 8)
        self.bits = bits
        self.counts = np.zeros(2**bits, dtype=np.int64)

    def _scan(self, run: np.ndarray) -> None:
        if self.bits == 8:
            _counts.byte_histogram(run, self.counts)
        else:
            _counts.word16_histogram(run, self.counts)

    def _add_counts(self, other: "ChiSquare") -> None:
        self.counts += other.counts

    def finalize(self) -> list[TestResult]:
        counts = self._statistic().histogram() if self.shared is not None else self.counts
        bins = len(counts)
        n = int(counts.sum())
        label = self.name if self.bits == 8 else f"{self.name}[bits={self.bits}]"
        needs = f"at least {MIN_EXPECTED * bins * self.bits // 8} bytes ({MIN_EXPECTED} expected per bin)"
        if n < DECISIVE_MIN_EXPECTED * bins:
            return [insufficient(label, needs, symbols=n)]
        expected = n / bins
        statistic = float(np.sum((counts - expected) ** 2) / expected)
        dof = bins - 1
        result = chi_square_result(label, statistic, dof, {"symbols": n, "dof": dof})
        if n < MIN_EXPECTED * bins:
            result.withhold_verdict_unless_decisive(needs)
        return [result]
