"""Linear complexity of the sequence formed by one bit position of every word.

Sources: P. L'Ecuyer and R. Simard, "TestU01", ACM TOMS 33 (2007),
scomp_LinearComp (the idea of taking one bit of each output word);
J. L. Massey, "Shift-register synthesis and BCH decoding", IEEE Trans. Inf.
Theory 15 (1969) 122-127 (the Berlekamp-Massey algorithm); F. G. Gustavson,
"Analysis of the Berlekamp-Massey linear feedback shift-register synthesis
algorithm", IBM J. Res. Dev. 20 (1976) 204-212, and R. A. Rueppel,
"Analysis and Design of Stream Ciphers", Springer 1986, ch. 4 (the exact
distribution of the linear complexity of a random sequence); NIST SP 800-22
Rev 1a (2010), section 2.10 (the classes of L - n/2 and their chi-square).

The stream is read as little-endian words of ``word_bits`` bits.  For each
bit index b in ``bits``, bit b of successive words forms a sequence; it is
cut into sequences of ``length`` = n bits and the linear complexity L of
each (the length of the shortest linear feedback shift register that
generates it) is found with Berlekamp-Massey over GF(2).  With ``every`` = k
only the first sequence of each k consecutive ones is tested (the cost of
Berlekamp-Massey is O(n^2) per sequence; the sequences tested stay
disjoint, so the statistics below remain exact).

For a random sequence of length n the number of sequences with complexity
L is 1 for L = 0, 2^(2L-1) for 1 <= L <= n/2 and 2^(2(n-L)) for L > n/2
(Gustavson; Rueppel), so d = L - n/2 (n even) has P(d = 0) = 1/2,
P(d = k) = 4^-k and P(d = -k) = 4^-k / 2: the distribution NIST's classes
approximate, here used exactly for the chosen n.  Two results per bit:

``...[bit=b/w]``
    NIST's chi-square of the counts of the classes d <= -D, -D+1, ..., D-1,
    d >= D over the N sequences, with the exact class probabilities; D is
    the largest of 5, 4, 3, 2, 1 that leaves at least 5 expected sequences
    in every class (NIST's D = 3 needs N >= 480), so the result exists from
    N = 30 on; upper tail.  With so few expected in the rarest classes the
    chi-square law with 2D degrees of freedom is far off in the tail (4.5
    times too few p-values below 1e-6 with N = 256), so the tail is the
    exact multinomial one (randqa/battery/_multinomial.py) up to N = 16384;
    beyond, D is the largest that leaves 1000 expected in every class, where
    the chi-square law is within 10% at 1e-6.
``...[bit=b/w,lowest]``
    the lowest complexity seen, L_min, against the exact distribution of
    the minimum of N independent complexities:
    p = 1 - (1 - P(L <= L_min))^N.  A linear generator cannot exceed its
    state size (113 bits per bit position for L'Ecuyer's LFSR113, 32 for
    xorshift32), nor can a bit of period P exceed P: one sequence of a few
    hundred bits is enough to fail it.

Parameters:
  word_bits  8, 16, 32 or 64 (default 32)
  bits       bit indices, 0 = least significant (default: lowest and highest)
  length     n, bits per sequence: a multiple of 64 from 64 to 262144 (default 4096);
             Berlekamp-Massey takes about n^2 / 128 word operations per
             sequence (0.03 s for n = 160,000, 0.07 s for 262,144), so long
             sequences want ``every``
  every      test one sequence in every ``every`` (default 1: all)
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from randqa.battery import _linear
from randqa.battery._blocks import WholeBlockTest
from randqa.battery._multinomial import choose_classes, class_result
from randqa.battery.base import OBJECT_BYTES, MemoryNeed, Range
from randqa.battery.linear_complexity import complexity_pmf
from randqa.results import TestResult, insufficient, smallest_of

MIN_EXPECTED = 5
MAX_HALF_WIDTH = 5
#: the longest sequence: 4 interleaved MT19937 streams (complexity 4 x 19,937) need 160,000 bits
MAX_LENGTH = 1 << 18


def complexity_cdf(n: int, level: int) -> float:
    """P(L <= level) for n random bits (exact; underflows to 0 only below 1e-308)."""
    if level >= n:
        return 1.0
    if level <= n // 2:
        # 2^-n (1 + sum_{l=1}^{level} 2^(2l-1)) = (2^(2 level + 1 - n) + 2^-n) / 3
        return (math.ldexp(1.0, 2 * level + 1 - n) + math.ldexp(1.0, -n)) / 3
    return 1.0 - complexity_sf(n, level + 1)


def complexity_sf(n: int, level: int) -> float:
    """P(L >= level) for n random bits, level > n/2: sum_{l>=level} 4^(n-l) / 2^n."""
    if level <= n // 2:
        return 1.0 - complexity_cdf(n, level - 1)
    # sum_{l=level}^{n} 2^(n - 2l) = 2^(n - 2 level) (1 - 4^-(n - level + 1)) / (1 - 1/4)
    return math.ldexp(1.0, n - 2 * level) * (1 - 4.0 ** -(n - level + 1)) * 4 / 3


class BitLinearComplexity(WholeBlockTest):
    name = "bit_linear_complexity"
    parameter_ranges: ClassVar[dict[str, Range]] = {
        "word_bits": Range(8, 64), "bits": Range(0, 63, items=64), "length": Range(64, MAX_LENGTH), "every": Range(1, 1 << 24)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        p = cls.with_defaults(params)
        length = p["length"]
        bits = len(p["bits"]) if p["bits"] is not None else 2
        # per bit: a histogram of complexities and the sequence being
        # filled; the kernel's Berlekamp-Massey work area; at finalize the
        # complexity distribution and its classes
        per_bit = 8 * (length + 1) + length // 8 + 256
        return MemoryNeed(bits * per_bit + 16 + OBJECT_BYTES, 32 * (length // 64 + 3) + 64 * (length + 1) + 64, 2 * bits)

    def __init__(
        self,
        *,
        word_bits: int = 32,
        bits: list[int] | tuple[int, ...] | None = None,
        length: int = 4096,
        every: int = 1,
    ) -> None:
        if word_bits not in (8, 16, 32, 64):
            raise ValueError(f"word_bits must be 8, 16, 32 or 64, not {word_bits!r}")
        super().__init__(word_bits // 8)
        if bits is None:
            bits = [0, word_bits - 1]
        bits = list(bits)
        if not bits or any(not isinstance(b, int) or isinstance(b, bool) or not 0 <= b < word_bits for b in bits):
            raise ValueError(f"bits must be a non-empty list of bit indices from 0 to {word_bits - 1}, not {bits!r}")
        if len(set(bits)) != len(bits):
            raise ValueError(f"bits must not repeat an index: {bits!r}")
        if not (isinstance(length, int) and 64 <= length <= MAX_LENGTH and length % 64 == 0):
            raise ValueError(f"length must be a multiple of 64 from 64 to {MAX_LENGTH}, not {length!r}")
        if not (isinstance(every, int) and every >= 1):
            raise ValueError(f"every must be a positive integer, not {every!r}")
        self.word_bits = word_bits
        self.bits = bits
        self.length = length
        self.every = every
        self.word_bytes = word_bits // 8
        self.period_words = length * every
        self.histograms = {b: np.zeros(length + 1, dtype=np.int64) for b in bits}
        self.sequences = {b: np.zeros(length // 64, dtype=np.uint64) for b in bits}
        self.positions = {b: np.zeros(1, dtype=np.int64) for b in bits}

    @property
    def alignment(self) -> int:
        # a sequence is never cut: a part placed with begin_at knows where in
        # the pattern of tested and skipped sequences it starts
        return self.length * self.word_bytes

    @property
    def phase(self) -> int:
        return self.period_words * self.word_bytes

    def _begin_at(self, position: int) -> None:
        for b in self.bits:
            self.positions[b][0] = position // self.word_bytes % self.period_words

    def _scan(self, run: np.ndarray) -> None:
        for b in self.bits:
            _linear.linear_complexity_scan(
                run, self.word_bytes, b, self.length, self.period_words, self.sequences[b], self.positions[b], self.histograms[b]
            )

    def _add_counts(self, other: "BitLinearComplexity") -> None:
        for b in self.bits:
            self.histograms[b] += other.histograms[b]
            self.sequences[b] = other.sequences[b].copy()
            self.positions[b] = other.positions[b].copy()

    def finalize(self) -> list[TestResult]:
        results = []
        for b in self.bits:
            results.extend(self._bit_results(b))
        return results

    def _bit_results(self, bit: int) -> list[TestResult]:
        n = self.length
        hist = self.histograms[bit]
        count = int(hist.sum())
        label = f"{self.name}[bit={bit}/{self.word_bits}]"
        if count == 0:
            needs = f"at least {n * self.word_bytes} bytes (one sequence of {n} bits)"
            return [insufficient(label, needs), insufficient(label[:-1] + ",lowest]", needs)]
        results = [self._class_chi_square(label, hist, count)]
        lowest = int(np.flatnonzero(hist)[0])
        tail = complexity_cdf(n, lowest)
        pvalue = smallest_of(tail, count)
        results.append(
            TestResult(
                name=label[:-1] + ",lowest]",
                statistic=float(lowest),
                pvalue=pvalue,
                details={"sequences": count, "length": n, "lowest_complexity": lowest, "P(L<=lowest)": tail},
                pvalue_kind="discrete",
            )
        )
        return results

    def _class_chi_square(self, label: str, hist: np.ndarray, count: int) -> TestResult:
        n = self.length
        pmf = complexity_pmf(n)
        centre = n // 2
        candidates = []
        for half in range(MAX_HALF_WIDTH, 0, -1):
            # classes d <= -half, -half+1 .. half-1, d >= half (d = L - n/2): where each starts
            starts = np.array([0] + [centre - half + 1 + k for k in range(2 * half)])
            candidates.append((np.add.reduceat(pmf, starts), starts))
        classes = choose_classes(candidates, count, min_expected=MIN_EXPECTED)
        if classes is None:
            # the coarsest classes, d <= -1 / 0 / >= 1, have probabilities 1/6, 1/2, 1/3
            return insufficient(label, f"at least {6 * MIN_EXPECTED} sequences (5 expected in each class)", sequences=count)
        observed = np.add.reduceat(hist, classes.starts).astype(np.float64)
        half = len(classes.starts) // 2
        return class_result(label, observed, classes, lower_tail=False, details={
            "sequences": count,
            "length": n,
            "classes": f"L - n/2 <= {-half}, ..., >= {half}",
            "observed": observed.astype(np.int64).tolist(),
            "expected": (count * classes.probs).tolist(),
        })
