"""Hamming-weight patterns: long overlapping tuples of the Hamming-weight
letters of consecutive bytes or words, as long as the data allow.

Sources: C. Doty-Humphrey, PractRand 0.94, doc/Tests_engines.txt, "DC6"
("checks for short range linear correlations (bit counting) ... a
frequency test on overlapping sets of hamming weights"; its core battery's
DC6-9x1Bytes-1 takes 9-tuples of 2-bit codes of bytes' weights, and FAILs
simpleB at 128 MB and, on the lowest bit of 16-bit words, genindA(5));
G. Marsaglia, DIEHARD (1995), "count the 1s"; I. J. Good, Proc. Cambridge
Philos. Soc. 49 (1953) 276-284, and G. Marsaglia, J. Statistical Software
14 (2005) (for overlapping t-letter words with any letter probabilities,
Q_t - Q_(t-1), the difference of the naive Pearson sums of the t- and
(t-1)-letter word counts read circularly, is chi-square with
d^t - d^(t-1) degrees of freedom).

The letters, the counting and the statistic are bcfn's (randqa/battery/
bcfn.py's weight_letters, and the Hamming tuple kernel of _counts.c): each block of B bits in ``block_bits``
has a Binomial(B, 1/2) weight, turned into one of d = ``letters`` letters
by cut points at the weights whose distribution function is nearest to
1/d, 2/d, ... (for bytes and d = 4: weights 0-2, 3, 4-5, 6-8, with
probabilities 37, 56, 126 and 37 in 256), and the overlapping t-tuples of
letters are counted circularly.  What differs is the length: bcfn keeps
t = 4, where this keeps counts for t = ``tuple_length`` and judges the
longest t whose rarest tuple has at least ``MIN_EXPECTED`` (14) expected
(the t-tuple counts are the longer ones summed over their oldest letters).
A dependence that spans 6 to 8 bytes shows only in tuples that long:
simpleB's bytes pass t = 2 to 5 at 128 MiB (p = 0.3 to 0.5) and fail t = 7
at 1e-58; DC6 reaches it with 9-tuples whose rare cells it merges, where
the chi-square law needs each cell expected often enough, so the length
grows with the data instead: 8-tuples of bytes from 70 MiB.

Parameters:
  block_bits    list of block sizes in bits, multiples of 8 up to 2^20
                (default [8]); one result each
  letters       d, 2 to 16 (default 4)
  tuple_length  the longest t, 2 to 8, with ceil(log2 d) * t <= 20
                (default 8: 65,536 counts, 512 KiB)
  shorter       how many lengths below the longest are judged too, 0 to 6
                (default 2): a dependence between neighbours is diluted
                in long tuples (the lowest bit of genindA(5)'s 16-bit
                words, 64 MiB: 1e-67 at t = 5, 1e-27 at t = 6); one
                result each, ``longest``, ``longest-1``, ...
With an even number of letters, 4 or more, a further result per block
size, ``halves``: the same counts with the letters merged into the light
and the heavy half (for bytes, weights 0-3 and 4-8), the longest tuples
that hold 14 expected in the rarest cell.  Few cells see a small dependence
with little data, as DC6's first, most significant bit of each code does:
mo_Rers32of64's bytes fail it at 4 MiB (p = 2e-7, and 5e-19 at 8 MiB; DC6
at 8 MB), where the 4-letter tuples pass to 64 MiB.
A block size's result needs 14 expected in the rarest cell of 2-tuples
(14 / p_rarest^2 blocks: 671 bytes for bytes and d = 4); below that it is
``insufficient``.  The chi-square law is close at the fail threshold only
with enough expected per cell, and few cells need more
(randqa/battery/_tuple_law.py); below that only a tail under
fail_at_once gives a verdict.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from randqa.battery import _counts
from randqa.battery._blocks import WholeBlocks
from randqa.battery._tuple_law import withhold_unless_close
from randqa.battery.base import Accumulator, MemoryNeed, Range
from randqa.battery.bcfn import (MAX_BLOCK_BITS, MIN_EXPECTED, add_packed_words, checked_letter_blocks, packed_to_word_counts,
                                 tuple_counts_memory, weight_letters)
from randqa.results import TestResult, chi_square_result, insufficient, pearson_statistic


class _Level:
    """The counts of one block size, by packed index: each letter in
    ``letter_bits`` bits, the newest lowest."""

    def __init__(self, block_bits: int, letters: int, tuple_length: int) -> None:
        self.block_bytes = block_bits // 8
        self.table, self.probs = weight_letters(block_bits, letters)
        self.table_bytes = self.table.tobytes()
        self.letters = len(self.probs)
        self.letter_bits = max(1, (self.letters - 1).bit_length())
        self.tuple_length = tuple_length
        self.counts = np.zeros(2 ** (self.letter_bits * tuple_length), dtype=np.int64)
        self.index = 0  # packed latest letters
        self.have = 0  # letters seen (capped at tuple_length)
        self.blocks = 0
        self.head: list[int] = []  # the first tuple_length - 1 letters
        self.splitter = WholeBlocks(self.block_bytes)

    def scan(self, data: np.ndarray) -> None:
        if len(self.head) < self.tuple_length - 1:
            take = (self.tuple_length - 1 - len(self.head)) * self.block_bytes
            self.head += self.letters_of(np.frombuffer(bytes(data[:take]), dtype=np.uint8))
        self.index, self.have = _counts.hamming_tuple_scan(
            data, self.block_bytes, self.table_bytes, self.letter_bits, self.tuple_length, self.counts, self.index, self.have)
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
        """Count the tuples of ``letters`` that end at index first_end or later (packed indices)."""
        add_packed_words(counts, letters, first_end, self.tuple_length, self.letter_bits)

    def join(self, other: "_Level") -> None:
        """Become the level of this stream followed by ``other``'s."""
        t = self.tuple_length
        before = self.recent_letters()
        self.counts += other.counts
        self.add_words(self.counts, before + other.head, len(before))
        self.head = (self.head + other.head)[: t - 1]
        self.index = 0
        for letter in (before + other.recent_letters())[-(t - 1) :]:
            self.index = (self.index << self.letter_bits) | letter
        self.blocks += other.blocks
        self.have = min(self.blocks, t)
        self.splitter.take_over(other.splitter)

    def tuple_counts(self) -> np.ndarray:
        """The circular counts of the tuple_length-letter words, as base-``letters``
        numbers with the oldest letter most significant."""
        packed = self.counts.copy()
        tail = self.recent_letters()
        self.add_words(packed, tail + self.head, len(tail))  # the words that wrap around
        return packed_to_word_counts(packed, self.tuple_length, self.letter_bits, self.letters)


class HammingPatterns(Accumulator):
    name = "hamming_patterns"
    parameter_ranges: ClassVar[dict[str, Range]] = {
        "block_bits": Range(8, MAX_BLOCK_BITS, items=16), "letters": Range(2, 16), "tuple_length": Range(2, 8),
        "shorter": Range(0, 6)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        p = cls.with_defaults(params)
        # at finalize the packed counts turned into words (indices, t digits,
        # words, counts) and one length's probabilities and Pearson terms
        held, working = tuple_counts_memory(p["block_bits"], p["letters"], p["tuple_length"], chunk_bytes,
                                            finalize_arrays=12)
        return MemoryNeed(held, working, (p["shorter"] + 1 + _has_halves(p["letters"])) * len(p["block_bits"]))

    def __init__(
        self,
        *,
        block_bits: list[int] | tuple[int, ...] = (8,),
        letters: int = 4,
        tuple_length: int = 8,
        shorter: int = 2,
    ) -> None:
        super().__init__()
        block_bits = checked_letter_blocks(block_bits, letters)
        if not (isinstance(tuple_length, int) and not isinstance(tuple_length, bool) and 2 <= tuple_length <= 8
                and (letters - 1).bit_length() * tuple_length <= 20):
            raise ValueError(
                f"tuple_length must be from 2 to 8 with bits_per_letter * tuple_length <= 20 "
                f"({(letters - 1).bit_length()} bits per letter for {letters} letters), not {tuple_length!r}")
        if not (isinstance(shorter, int) and not isinstance(shorter, bool) and 0 <= shorter <= 6):
            raise ValueError(f"shorter must be an integer from 0 to 6, not {shorter!r}")
        self.block_bits = block_bits
        self.letters = letters
        self.tuple_length = tuple_length
        self.shorter = shorter
        self.levels = [_Level(b, letters, tuple_length) for b in block_bits]

    @property
    def alignment(self) -> int:
        return math.lcm(*(level.block_bytes for level in self.levels))

    def _update(self, chunk: np.ndarray) -> None:
        for level in self.levels:
            for run in level.splitter.split(chunk):
                level.scan(run)

    def _merge(self, other: "HammingPatterns") -> None:
        for mine, theirs in zip(self.levels, other.levels):
            mine.join(theirs)

    def finalize(self) -> list[TestResult]:
        return [result for level in self.levels for result in self._level_results(level)]

    def _level_results(self, level: _Level) -> list[TestResult]:
        rarest = float(level.probs.min())
        n = level.blocks
        longest = 1
        while longest < level.tuple_length and n * rarest ** (longest + 1) >= MIN_EXPECTED:
            longest += 1
        labels = [f"{self.name}[block_bits={8 * level.block_bytes},{_span_label(k)}]" for k in range(self.shorter + 1)]
        halves = _has_halves(level.letters)
        words = level.tuple_counts() if longest >= 2 or (halves and n >= level.tuple_length) else None
        results = [self._too_short(label, level, k) if longest - k < 2
                   else self._tuple_result(label, level.letters, n, level.probs, words, longest - k)
                   for k, label in enumerate(labels)]
        if halves:
            results.append(self._halves_result(level, words))
        return results

    def _halves_result(self, level: _Level, words: np.ndarray | None) -> TestResult:
        """The tuples of the letters merged into halves (light and heavy
        blocks: for bytes, weights 0-3 and 4-8), read from the same counts,
        as long as they hold: few cells, so a small dependence between the
        weights of bytes 2 to 8 apart shows with little data (DC6's first
        bit of each code; mo_Rers32of64 at 4 MiB, where the 4-letter tuples
        need 64 MiB)."""
        d, t, n = level.letters, level.tuple_length, level.blocks
        probs = level.probs.reshape(2, d // 2).sum(axis=1)
        label = f"{self.name}[block_bits={8 * level.block_bytes},halves]"
        longest = 1
        while longest < t and n * float(probs.min()) ** (longest + 1) >= MIN_EXPECTED:
            longest += 1
        if longest < 2 or words is None:
            needed = math.ceil(MIN_EXPECTED / float(probs.min()) ** 2)
            return insufficient(label, f"at least {needed * level.block_bytes} bytes ({needed} blocks)", blocks=n)
        halves = words.reshape([2, d // 2] * t).sum(axis=tuple(range(1, 2 * t, 2))).ravel()
        return self._tuple_result(label, 2, n, probs, halves, longest)

    @staticmethod
    def _too_short(label: str, level: _Level, shorter_by: int) -> TestResult:
        """Insufficient: 2-tuples at ``shorter_by`` below the longest need
        MIN_EXPECTED in the rarest (2 + shorter_by)-tuple."""
        needed = math.ceil(MIN_EXPECTED / float(level.probs.min()) ** (2 + shorter_by))
        return insufficient(label, f"at least {needed * level.block_bytes} bytes ({needed} blocks)", blocks=level.blocks)

    @staticmethod
    def _tuple_result(label: str, d: int, n: int, probs: np.ndarray, words: np.ndarray, t: int) -> TestResult:
        """Q_t - Q_(t-1) of the circular t-tuples of ``d`` letters with
        probabilities ``probs`` in ``n`` blocks: ``words`` (the longest
        tuples' counts) summed over their oldest letters."""
        counts = words.reshape(-1, d**t).sum(axis=0)
        word_probs = np.ones(1)
        for _ in range(t):
            word_probs = np.outer(word_probs, probs).ravel()
        shorter = counts.reshape(-1, d).sum(axis=1)
        shorter_probs = word_probs.reshape(-1, d).sum(axis=1)
        statistic = pearson_statistic(counts, n * word_probs) - pearson_statistic(shorter, n * shorter_probs)
        dof = d**t - d ** (t - 1)
        result = chi_square_result(label, statistic, dof, {"blocks": n, "letters": d, "tuple_length": t, "dof": dof,
                                                           "letter_probabilities": probs.tolist()})
        withhold_unless_close(result, n * word_probs, dof)
        return result


def _has_halves(letters: int) -> bool:
    """Whether the letters merge into two halves worth a result of their own."""
    return letters >= 4 and letters % 2 == 0


def _span_label(shorter_by: int) -> str:
    return "longest" if shorter_by == 0 else f"longest-{shorter_by}"
