"""Floating-point frequency (FPF): how often runs of zero bits, and the bits
that follow them, occur in the 16-bit words of the stream.

Source: C. Doty-Humphrey, PractRand 0.94, doc/Tests_engines.txt ("FPF -
floating point frequency test ... a frequency test applied to the binary
format of floating point numbers storing the integer values of overlapping
windows of the original data stream") and its standard battery's
``FPF-14+6/16``: windows every 16 bits, the count of zero bits before the
first one read as an exponent, the 14 bits after it as a mantissa, the
mantissas tested per exponent ("platter") and the exponents across them
(":cross"); written here from that description, with exact laws.

Each 16-bit word is one window, read from its first bit in stream order:
``bit_order = "lsb"`` reads little-endian words from the lowest bit, as
PractRand reads a raw stream; ``"msb"`` reads big-endian words from the
highest bit, the order of a bit stream and of randqa's low-bit folds
(randqa/folding.py packs the earliest bit highest), so a folded entry
reads the folded bits in the order PractRand's [Low1/32] does.  The word's
exponent e is the number of zero bits before its first one bit (16 for a
zero word); its mantissa is the 15 - e bits after that one bit, of which
the first b are tested.

Why windows do not overlap here: PractRand's windows reach up to 65 bits
past their start, so a window's mantissa holds the next window's bits and
PractRand calibrates its tails by simulation.  With one window per word the
words are independent, and the law is exact:

- exponents: P(e = k) = 2^-(k+1) for k < 16, P(e = 16) = 2^-16, so given
  n_(>=k) words with e >= k, n_k ~ Binomial(n_(>=k), 1/2) for every k =
  0..15, independently of the levels before.  Each level gives an exact
  two-sided binomial p-value p_k; Fisher's T = -2 sum log p_k over the
  levels expecting at least ``LEVEL_MIN_EXPECTED`` words (fixed by the word
  count alone) is judged against chi-square with 2K degrees of freedom.
  Discrete p-values that are each at least uniform given the levels before
  make that tail an upper bound of the exact one (pvalue_kind "bound").
- mantissas: given which words have exponent e, their mantissas are
  independent and uniform on 2^(15-e) values, so the counts of the first b
  mantissa bits are a uniform multinomial on 2^b classes, independently
  for each platter.  b is the largest up to ``mantissa_bits`` that leaves
  32 expected per class in at least 256 classes (judged by Pearson's X^2
  and chi-square, as chi_square.py: 7% above nominal at 1e-6 with 32 per
  class); a platter with too few words for that uses up to 8 classes
  judged exactly (up to 16,384 words), else up to 128 classes with 1000
  expected per class (_multinomial.py's rules), upper tail only.
  ``fpf:mantissa`` is the smallest tail of any platter, either side, by
  Sidak's rule over the tails looked at; ``fpf:mantissa_sum`` is the sum of
  the chi-square platters' X^2 (PractRand's ":all"), chi-square with the
  sum of their degrees of freedom.

Parameters:
  mantissa_bits  the most mantissa bits tested per platter (1-15, default 14)
  bit_order      "lsb" (default) or "msb", as above
Minimum data: 1,024 words (2 KiB); the mantissa sum needs 8,192 words of
exponent 0 (32 KiB).  Memory: the 65,536 counts of the words (512 KiB).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from randqa.battery import _counts
from randqa.battery._blocks import WholeBlockTest
from randqa.battery._multinomial import EXACT_MAX_SAMPLES, choose_classes, class_result
from randqa.battery.base import OBJECT_BYTES, MemoryNeed, Range
from randqa.results import TestResult, chi_square_cdf, chi_square_sf, insufficient, smallest_of, \
    symmetric_binomial_two_sided

#: bits of one window
WORD_BITS = 16
#: words below which no result is given
MIN_WORDS = 1024
#: an exponent level is looked at when this many words are expected to reach it
LEVEL_MIN_EXPECTED = 16
#: expected per class, in at least ``CHI_SQUARE_MIN_CLASSES`` equal classes, for the chi-square law
CHI_SQUARE_MIN_EXPECTED = 32
CHI_SQUARE_MIN_CLASSES = 256
#: a p-value is never taken below this in Fisher's sum (a larger p only raises the bound)
SMALLEST_LEVEL_PVALUE = 1e-300
BIT_ORDERS = ("lsb", "msb")


@lru_cache(maxsize=1)
def exponent_table() -> np.ndarray:
    """The exponent of every window value: the trailing zero bits (the first bit read is bit 0), 16 for 0."""
    values = np.arange(1 << WORD_BITS, dtype=np.int64)
    lowest = values & -values
    exponents = np.full(1 << WORD_BITS, WORD_BITS, dtype=np.int64)
    exponents[1:] = np.log2(lowest[1:]).astype(np.int64)  # exact: powers of two
    return exponents


@lru_cache(maxsize=1)
def msb_window_index() -> np.ndarray:
    """For each little-endian word value, its window value when the stream's
    bits are read highest first: each byte's bits reversed, so that the
    stream's first bit is the window's bit 0."""
    byte = np.arange(256, dtype=np.int64)
    reversed_byte = np.zeros(256, dtype=np.int64)
    for bit in range(8):
        reversed_byte |= ((byte >> bit) & 1) << (7 - bit)
    words = np.arange(1 << WORD_BITS, dtype=np.int64)
    return reversed_byte[words & 0xFF] | (reversed_byte[words >> 8] << 8)


def exponent_probabilities() -> np.ndarray:
    """P(e = k) for k = 0..16."""
    return np.array([2.0 ** -(k + 1) for k in range(WORD_BITS)] + [2.0 ** -WORD_BITS])


def exponent_result(name: str, by_exponent: np.ndarray) -> TestResult:
    """Fisher's combination of the exact binomial p-values of the exponent levels (module doc)."""
    words = int(by_exponent.sum())
    reaching = np.cumsum(by_exponent[::-1])[::-1]  # n_(>=k)
    levels = [k for k in range(WORD_BITS) if words * 2.0 ** -k >= LEVEL_MIN_EXPECTED]
    pvalues = [symmetric_binomial_two_sided(int(by_exponent[k]), int(reaching[k])) if reaching[k] else 1.0
               for k in levels]
    statistic = float(-2 * sum(math.log(max(p, SMALLEST_LEVEL_PVALUE)) for p in pvalues))
    worst = int(np.argmin(pvalues))
    return TestResult(
        name=f"{name}:exponent", statistic=statistic, pvalue=chi_square_sf(statistic, 2 * len(levels)),
        pvalue_kind="bound",
        details={"words": words, "levels": len(levels), "worst_level": levels[worst],
                 "worst_level_p_value": float(pvalues[worst]),
                 "at_level": int(by_exponent[levels[worst]]), "reaching_level": int(reaching[levels[worst]]),
                 "expected": [float(words * p) for p in exponent_probabilities()[: len(levels)]],
                 "observed": [int(c) for c in by_exponent[: len(levels)]]})


def platter_mantissas(windows: np.ndarray, exponent: int) -> np.ndarray:
    """Counts of each full mantissa (the 15 - e bits after the first one bit) of platter ``exponent``."""
    mantissas = np.arange(1 << (WORD_BITS - 1 - exponent), dtype=np.int64)
    return windows[(mantissas << (exponent + 1)) | (1 << exponent)]


def first_bits(full: np.ndarray, bits: int) -> np.ndarray:
    """Counts of the first ``bits`` mantissa bits (the low ones of the window value)."""
    return full.reshape(-1, 1 << bits).sum(axis=0)


class Fpf(WholeBlockTest):
    name = "fpf"
    parameter_ranges: ClassVar[dict[str, Range]] = {"mantissa_bits": Range(1, WORD_BITS - 1),
                                                    "bit_order": Range(3, 3, text=True)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        table = 8 << WORD_BITS
        # the counts; at finalize the windows, the exponent and index tables and a platter's counts
        return MemoryNeed(table + 64 + OBJECT_BYTES, 6 * table, results=3)

    def __init__(self, *, mantissa_bits: int = 14, bit_order: str = "lsb") -> None:
        if not (isinstance(mantissa_bits, int) and not isinstance(mantissa_bits, bool)
                and 1 <= mantissa_bits <= WORD_BITS - 1):
            raise ValueError(f"mantissa_bits must be an integer from 1 to {WORD_BITS - 1}, not {mantissa_bits!r}")
        if bit_order not in BIT_ORDERS:
            raise ValueError(f"bit_order must be 'lsb' or 'msb', not {bit_order!r}")
        super().__init__(WORD_BITS // 8)
        self.mantissa_bits = mantissa_bits
        self.bit_order = bit_order
        self.counts = np.zeros(1 << WORD_BITS, dtype=np.int64)

    def _scan(self, run: np.ndarray) -> None:
        _counts.word16_histogram(run, self.counts)

    def _add_counts(self, other: "Fpf") -> None:
        self.counts += other.counts

    def windows(self) -> np.ndarray:
        """The count of every window value (the stream's first bit of a word as bit 0)."""
        if self.bit_order == "lsb":
            return self.counts
        windows = np.zeros_like(self.counts)
        windows[msb_window_index()] = self.counts
        return windows

    def finalize(self) -> list[TestResult]:
        words = int(self.counts.sum())
        names = [f"{self.name}:exponent", f"{self.name}:mantissa", f"{self.name}:mantissa_sum"]
        if words < MIN_WORDS:
            return [insufficient(n, f"{MIN_WORDS} 16-bit words ({2 * MIN_WORDS} bytes)", words=words) for n in names]
        windows = self.windows()
        by_exponent = np.bincount(exponent_table(), weights=windows, minlength=WORD_BITS + 1).round().astype(np.int64)
        return [exponent_result(self.name, by_exponent), *self._mantissa_results(windows, by_exponent)]

    def _mantissa_results(self, windows: np.ndarray, by_exponent: np.ndarray) -> list[TestResult]:
        tails: list[tuple[float, str, int, int, float]] = []  # p, side, platter, bits, X^2
        total, dof, summed = 0.0, 0, []
        for exponent in range(WORD_BITS - 1):
            n = int(by_exponent[exponent])
            most = min(self.mantissa_bits, WORD_BITS - 1 - exponent)
            full = platter_mantissas(windows, exponent)
            bits = most
            while bits > 0 and n < CHI_SQUARE_MIN_EXPECTED << bits:
                bits -= 1
            if (1 << bits) >= CHI_SQUARE_MIN_CLASSES:
                observed = first_bits(full, bits)
                expected = n / (1 << bits)
                x2 = float(np.sum((observed - expected) ** 2) / expected)
                k = (1 << bits) - 1
                tails += [(chi_square_sf(x2, k), "upper", exponent, bits, x2),
                          (chi_square_cdf(x2, k), "lower", exponent, bits, x2)]
                total, dof = total + x2, dof + k
                summed.append(exponent)
                continue
            # an exact tail for small platters (8 classes at most), else 1000 expected per class
            widest = min(most, 3 if n <= EXACT_MAX_SAMPLES else 7)
            candidates = [(np.full(1 << b, 2.0 ** -b), np.arange(1 << b)) for b in range(widest, 0, -1)]
            classes = choose_classes(candidates, n) if n else None
            if classes is None:
                continue
            bits = int(math.log2(len(classes.probs)))
            # the upper tail only: with few classes X^2 has atoms (0 for an even split) that the
            # chi-square's lower tail puts near probability 0
            result = class_result(self.name, first_bits(full, bits), classes, lower_tail=False)
            assert result.pvalue is not None and result.statistic is not None  # class_result gives both
            tails.append((result.pvalue, "upper", exponent, bits, result.statistic))
        results = []
        if tails:
            p, side, exponent, bits, x2 = min(tails)
            results.append(TestResult(
                name=f"{self.name}:mantissa", statistic=float(x2), pvalue=smallest_of(p, len(tails)),
                pvalue_kind="bound",
                details={"platter": exponent, "bits": bits, "tail": side, "platter_p_value": float(p),
                         "tails": len(tails), "words_in_platter": int(by_exponent[exponent])}))
        else:
            results.append(insufficient(f"{self.name}:mantissa", "10 words of exponent 0 (40 bytes)"))
        if summed:
            results.append(TestResult(
                name=f"{self.name}:mantissa_sum", statistic=total, pvalue=chi_square_sf(total, dof),
                pvalue_low=chi_square_cdf(total, dof), details={"dof": dof, "platters": summed}))
        else:
            needs = f"{CHI_SQUARE_MIN_EXPECTED * CHI_SQUARE_MIN_CLASSES} words of exponent 0 (32 KiB)"
            results.append(insufficient(f"{self.name}:mantissa_sum", needs))
        return results
