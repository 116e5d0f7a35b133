"""Linear complexity test, NIST SP 800-22 Rev 1a section 2.10.

Sources: NIST SP 800-22 Rev 1a (2010), section 2.10 (and 3.10); the exact
distribution of the linear complexity of a random sequence from R. A.
Rueppel, "Analysis and Design of Stream Ciphers" (1986), chapter 4.

The n bits are cut into N = floor(n / M) blocks of M bits; the linear
complexity L_i of each (the length of the shortest LFSR that generates it) is
found by Berlekamp-Massey over GF(2) on bit-packed words in C.  With
mu = M/2 + (9 + (-1)^(M+1)) / 36 - (M/3 + 2/9) / 2^M and
T_i = (-1)^M (L_i - mu) + 2/9, the T_i are counted into K + 1 = 7 classes
(<= -2.5, (-2.5, -1.5], ..., (1.5, 2.5], > 2.5),
chi^2 = sum (v_i - N pi_i)^2 / (N pi_i), p = igamc(K / 2, chi^2 / 2).
Bits are read most significant first in each byte.

Class probabilities (parameter ``probabilities``):
  "exact" (default)  from the exact count of M-bit sequences of linear
      complexity L (1 for L = 0, 2^(2L - 1) for 1 <= L <= M/2, 2^(2(M - L))
      above), valid for any M; for M >= 500 they equal the standard's
      1/96, 1/32, 1/8, 1/2, 1/4, 1/16, 1/48 to double precision.
  "sts"  the values of the reference implementation sts-2.1.2: 0.01047,
      0.03125, 0.125, 0.5, 0.25, 0.0625, 0.020833.  Its 0.01047 (for 1/96 =
      0.010417; the seven do not sum to 1) is what produced the standard's
      figures: the 2.10.8 example (first 10^6 bits of e, M = 1000,
      chi^2 = 2.700348, p = 0.845406) and Appendix B (M = 500, p = 0.826335).
      With 1/96 they would read 0.844738 and 0.826202.

Parameters:
  M              bits per block (default 500; the standard asks for
                 500 <= M <= 5000; any M >= 7 works with "exact")
  probabilities  "exact" or "sts"
The standard (2.10.7) asks for n >= 10^6 bits and N >= 200 blocks; with less
the p-value is still computed but the verdict is ``insufficient``.

Streaming: a histogram of L (M + 1 counts) and the bits of an incomplete
block.  ``alignment`` = lcm(M, 8) / 8 bytes.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import numpy as np

from randqa.battery import _linear
from randqa.battery._blocks import BitBlockTest, pending_bits_bytes
from randqa.battery.base import OBJECT_BYTES, MemoryNeed, Range
from randqa.results import TestResult, chi_square_result, insufficient, pearson_statistic

DEFAULT_M = 500
MIN_BITS = 1_000_000
MIN_BLOCKS = 200
MIN_M = 7  # every class of T is possible from M = 7 on
MAX_M = 1 << 24

#: upper edges of the first six classes of T; the seventh is T > 2.5
CLASS_EDGES = (-2.5, -1.5, -0.5, 0.5, 1.5, 2.5)
STS_PROBABILITIES = (0.01047, 0.03125, 0.125, 0.5, 0.25, 0.0625, 0.020833)


def complexity_log2_pmf(n: int) -> np.ndarray:
    """log2 P(L = l), l = 0..n, for the linear complexity of n random bits
    (there are 2^(2l-1) sequences of complexity l <= n/2, 2^(2(n-l)) above)."""
    levels = np.arange(n + 1, dtype=np.float64)
    log2_counts = np.where(levels <= n // 2, 2 * levels - 1, 2 * (n - levels))
    log2_counts[0] = 0.0
    return log2_counts - n


@functools.lru_cache(maxsize=64)
def complexity_pmf(n: int) -> np.ndarray:
    """P(L = l), l = 0..n (read-only; cached, as every finalize asks again)."""
    pmf = np.exp2(complexity_log2_pmf(n))
    pmf.flags.writeable = False
    return pmf


@functools.lru_cache(maxsize=64)
def class_of_complexities(M: int) -> np.ndarray:
    """The class (0..6) of T for every linear complexity L = 0..M of an M-bit block (read-only)."""
    mu = M / 2 + (9 + (-1) ** (M + 1)) / 36 - (M / 3 + 2 / 9) * 2.0**-M  # 2.0**M overflows past M = 1023
    t = (-1) ** M * (np.arange(M + 1) - mu) + 2 / 9
    classes = np.searchsorted(CLASS_EDGES, t, side="left")
    classes.flags.writeable = False
    return classes


@functools.lru_cache(maxsize=None)
def exact_class_probabilities(M: int) -> tuple[float, ...]:
    """P(class) for a block of M fair bits, from the exact distribution of L."""
    return tuple(np.bincount(class_of_complexities(M), weights=complexity_pmf(M), minlength=7).tolist())


class LinearComplexity(BitBlockTest):
    name = "linear_complexity"
    # Berlekamp-Massey costs M^2 bit operations per block: past 2^20 bits a block takes minutes
    parameter_ranges: ClassVar[dict[str, Range]] = {"M": Range(MIN_M, 1 << 20), "probabilities": Range(1, 8, text=True)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        M = cls.with_defaults(params)["M"]
        pending_held, pending_working = pending_bits_bytes(M, chunk_bytes)
        # the histogram of L and the cached distribution and classes of L;
        # at finalize the histogram's copy, the kernel's work area, the
        # distribution's temporaries and every complexity seen in the result
        held = pending_held + 24 * (M + 1) + OBJECT_BYTES
        return MemoryNeed(held, pending_working + M + 48 * (M + 1) + 120 * (M + 1))

    def __init__(self, *, M: int = DEFAULT_M, probabilities: str = "exact") -> None:
        if not (isinstance(M, int) and not isinstance(M, bool) and MIN_M <= M <= MAX_M):
            raise ValueError(f"M must be an integer between {MIN_M} and {MAX_M}, not {M!r}")
        if probabilities not in ("exact", "sts"):
            raise ValueError(f"probabilities must be 'exact' or 'sts', not {probabilities!r}")
        self.M = M
        self.probabilities = probabilities
        self.complexity_counts = np.zeros(M + 1, dtype=np.int64)
        super().__init__(M)

    def _count(self, data: np.ndarray, nbits: int) -> None:
        _linear.linear_complexity_counts(data, nbits, self.M, self.complexity_counts)

    def _add_counts(self, other: BitBlockTest) -> None:
        self.complexity_counts += other.complexity_counts

    def finalize(self) -> list[TestResult]:
        M = self.M
        complexity_counts = self.complexity_counts.copy()
        data, nbits = self._units.remainder()
        _linear.linear_complexity_counts(data, nbits, M, complexity_counts)
        blocks = int(complexity_counts.sum())
        n = self.bits_seen
        needs = f"at least {max(MIN_BITS, MIN_BLOCKS * M)} bits (NIST SP 800-22 2.10.7: n >= 10^6, N >= {MIN_BLOCKS} blocks)"
        if blocks == 0:
            return [insufficient(self.name, needs, bits=n, M=M)]
        observed = np.bincount(class_of_complexities(M), weights=complexity_counts, minlength=7)
        pi = np.array(exact_class_probabilities(M) if self.probabilities == "exact" else STS_PROBABILITIES)
        expected = blocks * pi
        result = chi_square_result(self.name, pearson_statistic(observed, expected), 6, {
            "bits": n,
            "M": M,
            "N": blocks,
            "counts": observed.astype(np.int64).tolist(),
            "probabilities": pi.tolist(),
            "complexities": {str(L): int(c) for L, c in enumerate(complexity_counts) if c},
        }, lower_tail=False)
        if n < MIN_BITS or blocks < MIN_BLOCKS:
            result.withhold_verdict(needs)
        return [result]
