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

32-bit windows (``window_bits = 32``): each 32-bit word is one window,
read as above (``"lsb"`` a little-endian word from its lowest bit,
``"msb"`` a big-endian word from its highest), so exponents run to 31 (32
for a zero word) and every exponent up to 17 has a full 14-bit mantissa,
where 16-bit windows give exponent e only 15 - e bits.  PractRand's
windows, which start at every 16-bit boundary, read that far, and some
generators fail them only there (exponents 17-21, or 14 bits after a short
exponent); these windows are the half of them that start at 32-bit
boundaries, independent of each other.  The laws are those above with 16
replaced by 32: P(e = k) = 2^-(k+1) for k <
32, P(e = 32) = 2^-32, and given e the 31 - e bits after the first one are
uniform.  The kernel (_fpf_windows.c) counts, per platter, the first
min(mantissa_bits, 31 - e) mantissa bits only.  Results are named with a
``[window_bits=32]`` suffix (``fpf:exponent[window_bits=32]``), as other
tests name a non-default variant.

Parameters:
  mantissa_bits  the most mantissa bits tested per platter (1-15, default 14)
  bit_order      "lsb" (default) or "msb", as above
  window_bits    16 (default) or 32, as above
Minimum data: 1,024 windows (2 KiB; 4 KiB of 32-bit ones); the mantissa sum
needs 8,192 windows of exponent 0 (32 KiB; 64 KiB).  Memory: the 65,536
counts of the words (512 KiB); with 32-bit windows the (33 - b) 2^b
counts of the platters' first b = mantissa_bits bits (2.4 MiB for 14).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from randqa.battery import _counts, _fpf_windows
from randqa.battery._blocks import WholeBlockTest
from randqa.battery._multinomial import EXACT_MAX_SAMPLES, choose_classes, class_result
from randqa.battery.base import OBJECT_BYTES, MemoryNeed, Range
from randqa.results import TestResult, chi_square_cdf, chi_square_sf, insufficient, smallest_of, \
    symmetric_binomial_two_sided

#: bits of one window by default (the 16-bit counts' tables below are for these)
WORD_BITS = 16
#: the window widths a suite entry may choose
WINDOW_BITS = (16, 32)
#: windows below which no result is given
MIN_WORDS = 1024
#: an exponent level is looked at when this many windows are expected to reach it
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


def exponent_probabilities(window_bits: int = WORD_BITS) -> np.ndarray:
    """P(e = k) for k = 0..window_bits."""
    return np.array([2.0 ** -(k + 1) for k in range(window_bits)] + [2.0 ** -window_bits])


def exponent_result(name: str, by_exponent: np.ndarray, suffix: str = "") -> TestResult:
    """Fisher's combination of the exact binomial p-values of the exponent
    levels (module doc); the window's width is len(by_exponent) - 1."""
    window_bits = len(by_exponent) - 1
    words = int(by_exponent.sum())
    reaching = np.cumsum(by_exponent[::-1])[::-1]  # n_(>=k)
    levels = [k for k in range(window_bits) if words * 2.0 ** -k >= LEVEL_MIN_EXPECTED]
    pvalues = [symmetric_binomial_two_sided(int(by_exponent[k]), int(reaching[k])) if reaching[k] else 1.0
               for k in levels]
    statistic = float(-2 * sum(math.log(max(p, SMALLEST_LEVEL_PVALUE)) for p in pvalues))
    worst = int(np.argmin(pvalues))
    return TestResult(
        name=f"{name}:exponent{suffix}", statistic=statistic, pvalue=chi_square_sf(statistic, 2 * len(levels)),
        pvalue_kind="bound",
        details={"words": words, "levels": len(levels), "worst_level": levels[worst],
                 "worst_level_p_value": float(pvalues[worst]),
                 "at_level": int(by_exponent[levels[worst]]), "reaching_level": int(reaching[levels[worst]]),
                 "expected": [float(words * p) for p in exponent_probabilities(window_bits)[: len(levels)]],
                 "observed": [int(c) for c in by_exponent[: len(levels)]]})


def platter_mantissas(windows: np.ndarray, exponent: int) -> np.ndarray:
    """Counts of each full mantissa (the 15 - e bits after the first one bit) of platter ``exponent``."""
    mantissas = np.arange(1 << (WORD_BITS - 1 - exponent), dtype=np.int64)
    return windows[(mantissas << (exponent + 1)) | (1 << exponent)]


def platter_offsets(mantissa_bits: int) -> np.ndarray:
    """Where each platter e = 0..32 of the 32-bit windows' counts starts, and
    (last) where they end: platter e holds 2^min(b, 31 - e) counts, the zero
    word one (as _fpf_windows.c lays them out)."""
    sizes = [1 << min(mantissa_bits, 31 - e) for e in range(32)] + [1]
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def first_bits(full: np.ndarray, bits: int) -> np.ndarray:
    """Counts of the first ``bits`` mantissa bits (the low ones of the window value)."""
    return full.reshape(-1, 1 << bits).sum(axis=0)


class Fpf(WholeBlockTest):
    name = "fpf"
    parameter_ranges: ClassVar[dict[str, Range]] = {"mantissa_bits": Range(1, WORD_BITS - 1),
                                                    "bit_order": Range(3, 3, text=True),
                                                    "window_bits": Range(min(WINDOW_BITS), max(WINDOW_BITS))}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        p = cls.with_defaults(params)
        if p["window_bits"] == WORD_BITS:
            table = 8 << WORD_BITS
            # the counts; at finalize the windows, the exponent and index tables and a platter's counts
            return MemoryNeed(table + 64 + OBJECT_BYTES, 6 * table, results=3)
        platter = 8 << p["mantissa_bits"]
        # the counts; at finalize a platter's first bits and Pearson's temporaries
        return MemoryNeed(int(platter_offsets(p["mantissa_bits"])[-1]) * 8 + 64 + OBJECT_BYTES, 4 * platter,
                          results=3)

    def __init__(self, *, mantissa_bits: int = 14, bit_order: str = "lsb", window_bits: int = WORD_BITS) -> None:
        if not (isinstance(mantissa_bits, int) and not isinstance(mantissa_bits, bool)
                and 1 <= mantissa_bits <= WORD_BITS - 1):
            raise ValueError(f"mantissa_bits must be an integer from 1 to {WORD_BITS - 1}, not {mantissa_bits!r}")
        if bit_order not in BIT_ORDERS:
            raise ValueError(f"bit_order must be 'lsb' or 'msb', not {bit_order!r}")
        if not (isinstance(window_bits, int) and not isinstance(window_bits, bool) and window_bits in WINDOW_BITS):
            raise ValueError(f"window_bits must be 16 or 32, not {window_bits!r}")
        super().__init__(window_bits // 8)
        self.mantissa_bits = mantissa_bits
        self.bit_order = bit_order
        self.window_bits = window_bits
        cells = 1 << WORD_BITS if window_bits == WORD_BITS else int(platter_offsets(mantissa_bits)[-1])
        self.counts = np.zeros(cells, dtype=np.int64)

    def _scan(self, run: np.ndarray) -> None:
        if self.window_bits == WORD_BITS:
            _counts.word16_histogram(run, self.counts)
        else:
            _fpf_windows.fpf_window32_counts(run, int(self.bit_order == "msb"), self.mantissa_bits, self.counts)

    def _add_counts(self, other: "Fpf") -> None:
        self.counts += other.counts

    @property
    def result_suffix(self) -> str:
        """What the result names add for a window other than the default (module doc)."""
        return "" if self.window_bits == WORD_BITS else f"[window_bits={self.window_bits}]"

    def windows(self) -> np.ndarray:
        """The count of every window value (the stream's first bit of a word as bit 0); 16-bit windows only."""
        if self.window_bits != WORD_BITS:
            raise ValueError("windows() counts 16-bit windows; 32-bit ones are counted by platter (platters())")
        if self.bit_order == "lsb":
            return self.counts
        windows = np.zeros_like(self.counts)
        windows[msb_window_index()] = self.counts
        return windows

    def platters(self) -> tuple[np.ndarray, list[np.ndarray]]:
        """The count of each exponent (0 to the window's width), and for
        each exponent e below width - 1 the counts of its mantissas' first
        bits, as many as counted (the low bits of the index are the first
        read): all 15 - e with 16-bit windows, min(mantissa_bits, 31 - e)
        with 32-bit ones."""
        if self.window_bits == WORD_BITS:
            windows = self.windows()
            by_exponent = np.bincount(exponent_table(), weights=windows,
                                      minlength=WORD_BITS + 1).round().astype(np.int64)
            return by_exponent, [platter_mantissas(windows, e) for e in range(WORD_BITS - 1)]
        offsets = platter_offsets(self.mantissa_bits)
        platters = [self.counts[offsets[e]:offsets[e + 1]] for e in range(self.window_bits + 1)]
        return np.array([int(c.sum()) for c in platters], dtype=np.int64), platters[: self.window_bits - 1]

    def finalize(self) -> list[TestResult]:
        words = int(self.counts.sum())
        names = [f"{self.name}:{part}{self.result_suffix}" for part in ("exponent", "mantissa", "mantissa_sum")]
        if words < MIN_WORDS:
            return [insufficient(n, f"{MIN_WORDS} {self.window_bits}-bit words ({self.window_bits // 8 * MIN_WORDS} "
                                    "bytes)", words=words) for n in names]
        by_exponent, platters = self.platters()
        return [exponent_result(self.name, by_exponent, self.result_suffix),
                *self._mantissa_results(platters, by_exponent)]

    def _mantissa_results(self, platters: list[np.ndarray], by_exponent: np.ndarray) -> list[TestResult]:
        tails: list[tuple[float, str, int, int, float]] = []  # p, side, platter, bits, X^2
        total, dof, summed = 0.0, 0, []
        for exponent, full in enumerate(platters):
            n = int(by_exponent[exponent])
            most = min(self.mantissa_bits, self.window_bits - 1 - exponent)
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
        window_bytes = self.window_bits // 8
        results = []
        if tails:
            p, side, exponent, bits, x2 = min(tails)
            results.append(TestResult(
                name=f"{self.name}:mantissa{self.result_suffix}", statistic=float(x2),
                pvalue=smallest_of(p, len(tails)), pvalue_kind="bound",
                details={"platter": exponent, "bits": bits, "tail": side, "platter_p_value": float(p),
                         "tails": len(tails), "words_in_platter": int(by_exponent[exponent])}))
        else:
            results.append(insufficient(f"{self.name}:mantissa{self.result_suffix}",
                                        f"10 words of exponent 0 ({20 * window_bytes} bytes)"))
        if summed:
            results.append(TestResult(
                name=f"{self.name}:mantissa_sum{self.result_suffix}", statistic=total, pvalue=chi_square_sf(total, dof),
                pvalue_low=chi_square_cdf(total, dof), details={"dof": dof, "platters": summed}))
        else:
            least = CHI_SQUARE_MIN_EXPECTED * CHI_SQUARE_MIN_CLASSES
            needs = f"{least} words of exponent 0 ({2 * least * window_bytes >> 10} KiB)"
            results.append(insufficient(f"{self.name}:mantissa_sum{self.result_suffix}", needs))
        return results
