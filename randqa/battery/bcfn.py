"""Block count frequency test: overlapping tuples of block Hamming weights.

Sources: C. Doty-Humphrey, PractRand 0.94, doc/Tests_engines.txt, "BCFN"
(each level is "a frequency test on overlapping sets of hamming weights" of
blocks of 2^k bits; it catches lagged-Fibonacci generators and other long
range linear correlations) and "DC6" (the same on adjacent words);
G. Marsaglia, DIEHARD (1995), "count the 1s" (bytes turned into five
letters by their number of ones, overlapping 5-letter words, Q5 - Q4);
G. Marsaglia, "Monkeying with the goodness-of-fit test", J. Statistical
Software 14 (2005), and I. J. Good, Proc. Cambridge Philos. Soc. 49 (1953)
276-284 (for overlapping t-letter words, with any letter probabilities,
Q_t - Q_{t-1}, the difference of the naive Pearson sums of the t- and
(t-1)-letter word counts, is chi-square with d^t - d^(t-1) degrees of
freedom).

For each block size B in ``block_bits`` (a multiple of 8), the stream is
cut into successive blocks of B bits; the Hamming weight of a block is
Binomial(B, 1/2) and is turned into one of ``letters`` = d letters by cut
points at the weights whose binomial distribution function is nearest to
1/d, 2/d, ...: for B = 8 and d = 5 these are Marsaglia's classes 0-2, 3, 4,
5, 6-8.  The letter probabilities are the exact binomial sums.  The
overlapping words of ``tuple_length`` = t letters are counted circularly
(the first t-1 letters appended at the end, so the (t-1)-letter counts are
sums of the t-letter ones), and Q_t - Q_{t-1} is compared with chi-square
with d^t - d^(t-1) degrees of freedom (upper tail; the lower tail is
reported too).  A lagged-Fibonacci or LCG generator makes the weights of
neighbouring blocks dependent (DC6's target for B = word size), and a
generator whose bias drifts over long stretches makes the weights of long
blocks too spread out (BCFN's target for large B).

Parameters:
  block_bits    list of block sizes in bits, multiples of 8 up to 2^20
                (default [8, 32, 256, 2048, 16384]); one result each
  letters       d, 2 to 16 (default 5)
  tuple_length  t, 2 to 8, with ceil(log2 d) * t <= 20 (default 4)
A verdict at a block size needs 14 expected words in the rarest cell; from
5 on only a tail below fail_at_once (1e-20) gives one.  Equiprobable
multinomial sums of squares over as many cells (625) are above the
chi-square's 1e-6 point 1 + 142 K^-0.70 e^-1.12 times too often for a
mean of e expected per cell (exact sums, randqa/battery/_multinomial.py;
benchmarks/calibration.py): 10% at e = 13.  The long blocks' letters are
nearly equally likely, so their rarest cell is close to the (harmonic)
mean: 14 in the rarest keeps e at 15 or more at every block size, within
9%, where 10 left 2048- and 16384-bit blocks at 11 to 12 (13% over).
"""

from __future__ import annotations

import functools
import math
from typing import Any, ClassVar

import numpy as np

from randqa.battery import _counts
from randqa.battery._blocks import WholeBlocks, pending_block_bytes
from randqa.battery.base import OBJECT_BYTES, Accumulator, MemoryNeed, Range
from randqa.results import TestResult, chi_square_result, insufficient, pearson_statistic

MIN_EXPECTED = 14
#: from this many in the rarest cell on, a tail below fail_at_once fails
DECISIVE_MIN_EXPECTED = 5
MAX_BLOCK_BITS = 2**20


def binomial_half_pmf(n: int) -> np.ndarray:
    """P(W = k), k = 0..n, for W Binomial(n, 1/2): scipy.stats.binom.pmf's
    values, from the Boost kernel it calls, without loading scipy.stats."""
    weights = np.arange(n + 1)
    try:
        from scipy.special._ufuncs import _binom_pmf
    except ImportError:  # a scipy that keeps it elsewhere: the public route
        from scipy import stats

        return stats.binom.pmf(weights, n, 0.5)
    return np.clip(_binom_pmf(weights.astype(np.float64), float(n), 0.5), 0, 1)


@functools.lru_cache(maxsize=64)
def weight_letters(block_bits: int, letters: int) -> tuple[np.ndarray, np.ndarray]:
    """(letter of each weight 0..block_bits, probability of each letter),
    read-only: cached, because every segment of a parallel run builds the
    test again and the binomial CDF of 16384-bit blocks is most of that.

    Cut points at the weights whose binomial CDF is nearest to k/letters;
    cut points that coincide merge letters, so fewer may come back.
    """
    weights = np.arange(block_bits + 1)
    pmf = binomial_half_pmf(block_bits)
    cdf = np.cumsum(pmf)
    cuts = sorted({int(np.argmin(np.abs(cdf[:-1] - k / letters))) for k in range(1, letters)})
    letter_of_weight = np.searchsorted(np.array(cuts), weights, side="left").astype(np.uint8)
    probs = np.bincount(letter_of_weight, weights=pmf)
    probs /= probs.sum()
    letter_of_weight.setflags(write=False)
    probs.setflags(write=False)
    return letter_of_weight, probs


class _Level:
    """The state of one block size.  Counts are kept by packed index: each
    letter in ``letter_bits`` bits, the newest lowest (no division per block)."""

    def __init__(self, block_bits: int, letters: int, tuple_length: int) -> None:
        self.block_bytes = block_bits // 8
        self.table, self.probs = weight_letters(block_bits, letters)
        self.letters = len(self.probs)
        self.letter_bits = max(1, (self.letters - 1).bit_length())
        self.cells = self.letters**tuple_length
        self.tuple_length = tuple_length
        self.counts = np.zeros(2 ** (self.letter_bits * tuple_length), dtype=np.int64)
        self.index = 0  # packed latest letters
        self.have = 0  # letters seen (capped at tuple_length)
        self.blocks = 0
        self.head: list[int] = []  # the first tuple_length - 1 letters
        self.splitter = WholeBlocks(self.block_bytes)
        self.table_bytes = self.table.tobytes()

    def scan(self, data) -> None:
        if len(self.head) < self.tuple_length - 1:
            take = (self.tuple_length - 1 - len(self.head)) * self.block_bytes
            self.head += self.letters_of(np.frombuffer(bytes(data[:take]), dtype=np.uint8))
        self.index, self.have = _counts.hamming_tuple_scan(
            data, self.block_bytes, self.table_bytes, self.letter_bits, self.tuple_length, self.counts, self.index, self.have
        )
        self.blocks += len(data) // self.block_bytes

    def letters_of(self, data: np.ndarray) -> list[int]:
        whole = len(data) - len(data) % self.block_bytes
        weights = np.unpackbits(data[:whole]).reshape(-1, 8 * self.block_bytes).sum(axis=1)
        return [int(x) for x in self.table[weights]]

    def recent_letters(self) -> list[int]:
        """The last min(blocks, tuple_length - 1) letters, oldest first."""
        k = min(self.blocks, self.tuple_length - 1)
        mask = (1 << self.letter_bits) - 1
        return [(self.index >> (self.letter_bits * j)) & mask for j in range(k - 1, -1, -1)]

    def add_words(self, counts: np.ndarray, letters: list[int], first_end: int) -> None:
        """Count the t-letter words of ``letters`` that end at index first_end or later."""
        t = self.tuple_length
        for end in range(max(first_end, t - 1), len(letters)):
            index = 0
            for letter in letters[end - t + 1 : end + 1]:
                index = (index << self.letter_bits) | letter
            counts[index] += 1

    def word_counts(self, packed: np.ndarray) -> np.ndarray:
        """Packed counts turned into counts of base-``letters`` words (first letter most significant)."""
        t, b = self.tuple_length, self.letter_bits
        indices = np.arange(len(packed))
        digits = [(indices >> (b * j)) & ((1 << b) - 1) for j in range(t - 1, -1, -1)]
        valid = np.all([d < self.letters for d in digits], axis=0)
        word = np.zeros(len(packed), dtype=np.int64)
        for d in digits:
            word = word * self.letters + d
        counts = np.zeros(self.cells, dtype=np.int64)
        np.add.at(counts, word[valid], packed[valid].astype(np.int64))  # in integers: float weights round past 2^53
        return counts


class BCFN(Accumulator):
    name = "bcfn"
    parameter_ranges: ClassVar[dict[str, Range]] = {
        "block_bits": Range(8, MAX_BLOCK_BITS, items=16), "letters": Range(2, 16), "tuple_length": Range(2, 8)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        p = cls.with_defaults(params)
        t = p["tuple_length"]
        cells = 1 << (max(1, (p["letters"] - 1).bit_length()) * t)  # counts by packed index
        held, working = OBJECT_BYTES, 0
        for bits in p["block_bits"]:
            block = bits // 8
            pending_held, pending_working = pending_block_bytes(block, chunk_bytes)
            held += 8 * cells + pending_held + 16 * (bits + 1)
            # the first t-1 blocks' letters (one byte per bit), or at
            # finalize the counts turned into counts of words: the packed
            # indices, their t digits, the words and their counts
            working = max(working, pending_working + 24 * t * block, (t + 8) * 8 * cells)
        return MemoryNeed(held, working, len(p["block_bits"]))

    def __init__(
        self,
        *,
        block_bits: list[int] | tuple[int, ...] = (8, 32, 256, 2048, 16384),
        letters: int = 5,
        tuple_length: int = 4,
    ) -> None:
        super().__init__()
        block_bits = list(block_bits)
        if not block_bits or any(
            not isinstance(b, int) or isinstance(b, bool) or b < 8 or b % 8 or b > MAX_BLOCK_BITS for b in block_bits
        ):
            raise ValueError(f"block_bits must be a non-empty list of multiples of 8 up to {MAX_BLOCK_BITS}, not {block_bits!r}")
        if len(set(block_bits)) != len(block_bits):
            raise ValueError(f"block_bits must not repeat a size: {block_bits!r}")
        if not (isinstance(letters, int) and 2 <= letters <= 16):
            raise ValueError(f"letters must be an integer from 2 to 16, not {letters!r}")
        if not (isinstance(tuple_length, int) and 2 <= tuple_length <= 8 and (letters - 1).bit_length() * tuple_length <= 20):
            raise ValueError(
                f"tuple_length must be from 2 to 8 with bits_per_letter * tuple_length <= 20 "
                f"({(letters - 1).bit_length()} bits per letter for {letters} letters), not {tuple_length!r}"
            )
        self.block_bits = block_bits
        self.letters = letters
        self.tuple_length = tuple_length
        self.levels = [_Level(b, letters, tuple_length) for b in block_bits]

    @property
    def alignment(self) -> int:
        return math.lcm(*(level.block_bytes for level in self.levels))

    def _update(self, chunk: np.ndarray) -> None:
        for level in self.levels:
            for run in level.splitter.split(chunk):
                level.scan(run)

    def _merge(self, other: Accumulator) -> None:
        for mine, theirs in zip(self.levels, other.levels):
            mine.counts += theirs.counts
            # the words that span the join: our last t-1 letters then their first
            before = mine.recent_letters()
            mine.add_words(mine.counts, before + theirs.head, len(before))
            mine.head = (mine.head + theirs.head)[: mine.tuple_length - 1]
            joined = (before + theirs.recent_letters())[-(mine.tuple_length - 1) :]
            mine.index = 0
            for letter in joined:
                mine.index = (mine.index << mine.letter_bits) | letter
            mine.blocks += theirs.blocks
            mine.have = min(mine.blocks, mine.tuple_length)
            mine.splitter.take_over(theirs.splitter)

    def finalize(self) -> list[TestResult]:
        return [self._level_result(level) for level in self.levels]

    def _level_result(self, level: _Level) -> TestResult:
        t = level.tuple_length
        label = f"{self.name}[block_bits={8 * level.block_bytes}]"
        word_probs = level.probs
        for _ in range(t - 1):
            word_probs = np.outer(word_probs, level.probs).ravel()
        needed = math.ceil(MIN_EXPECTED / word_probs.min())
        needs = f"at least {needed * level.block_bytes} bytes ({needed} blocks)"
        if level.blocks < math.ceil(DECISIVE_MIN_EXPECTED / word_probs.min()):
            return insufficient(label, needs, blocks=level.blocks)
        packed = level.counts.copy()
        # the words that wrap around: the last t-1 letters then the first t-1
        tail = level.recent_letters()
        level.add_words(packed, tail + level.head, len(tail))
        counts = level.word_counts(packed)
        n = level.blocks
        shorter = counts.reshape(-1, level.letters).sum(axis=1)  # (t-1)-letter words
        shorter_probs = word_probs.reshape(-1, level.letters).sum(axis=1)
        q_t = pearson_statistic(counts, n * word_probs)
        q_t1 = pearson_statistic(shorter, n * shorter_probs)
        statistic = q_t - q_t1
        dof = level.cells - level.cells // level.letters
        result = chi_square_result(label, statistic, dof, {"blocks": n, "letters": level.letters, "tuple_length": t,
                                                           "dof": dof, "letter_probabilities": level.probs.tolist()})
        if n < needed:
            result.withhold_verdict_unless_decisive(needs)
        return result
