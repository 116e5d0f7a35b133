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
bcfn.py, whose kernel this reuses): each block of B bits in ``block_bits``
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
A block size's result needs 14 expected in the rarest cell of 2-tuples
(14 / p_rarest^2 blocks: 671 bytes for bytes and d = 4); below that it is
``insufficient``.  The chi-square law at 14 in the rarest cell: bcfn's
calibration (bcfn.py, benchmarks/calibration.py).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from randqa.battery.base import MemoryNeed, Range
from randqa.battery.bcfn import BCFN, MAX_BLOCK_BITS, MIN_EXPECTED, _Level
from randqa.results import TestResult, chi_square_result, insufficient, pearson_statistic


class HammingPatterns(BCFN):
    name = "hamming_patterns"
    parameter_ranges: ClassVar[dict[str, Range]] = {
        "block_bits": Range(8, MAX_BLOCK_BITS, items=16), "letters": Range(2, 16), "tuple_length": Range(2, 8),
        "shorter": Range(0, 6)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        p = cls.with_defaults(params)
        need = BCFN.memory_need(chunk_bytes, stream_bits, block_bits=p["block_bits"], letters=p["letters"],
                                tuple_length=p["tuple_length"])
        return MemoryNeed(need.held, need.working, (p["shorter"] + 1) * len(p["block_bits"]))

    def __init__(
        self,
        *,
        block_bits: list[int] | tuple[int, ...] = (8,),
        letters: int = 4,
        tuple_length: int = 8,
        shorter: int = 2,
    ) -> None:
        super().__init__(block_bits=block_bits, letters=letters, tuple_length=tuple_length)
        if not (isinstance(shorter, int) and not isinstance(shorter, bool) and 0 <= shorter <= 6):
            raise ValueError(f"shorter must be an integer from 0 to 6, not {shorter!r}")
        self.shorter = shorter

    def finalize(self) -> list[TestResult]:
        return [result for level in self.levels for result in self._level_results(level)]

    def _level_results(self, level: _Level) -> list[TestResult]:
        rarest = float(level.probs.min())
        n = level.blocks
        longest = 1
        while longest < level.tuple_length and n * rarest ** (longest + 1) >= MIN_EXPECTED:
            longest += 1
        labels = [f"{self.name}[block_bits={8 * level.block_bytes},{_span_label(k)}]" for k in range(self.shorter + 1)]
        if longest < 2:
            return [self._too_short(label, level, k) for k, label in enumerate(labels)]
        packed = level.counts.copy()
        # the words that wrap around: the last t-1 letters then the first t-1 (of the longest tuples counted)
        tail = level.recent_letters()
        level.add_words(packed, tail + level.head, len(tail))
        words = level.word_counts(packed)
        results = []
        for k, label in enumerate(labels):
            t = longest - k
            if t < 2:
                results.append(self._too_short(label, level, k))
            else:
                results.append(self._tuple_result(label, level, words, t))
        return results

    @staticmethod
    def _too_short(label: str, level: _Level, shorter_by: int) -> TestResult:
        """Insufficient: 2-tuples at ``shorter_by`` below the longest need
        MIN_EXPECTED in the rarest (2 + shorter_by)-tuple."""
        needed = math.ceil(MIN_EXPECTED / float(level.probs.min()) ** (2 + shorter_by))
        return insufficient(label, f"at least {needed * level.block_bytes} bytes ({needed} blocks)", blocks=level.blocks)

    def _tuple_result(self, label: str, level: _Level, words: np.ndarray, t: int) -> TestResult:
        """Q_t - Q_(t-1) of the circular t-tuples: ``words`` (the longest
        tuples' counts) summed over their oldest letters."""
        d, n = level.letters, level.blocks
        counts = words.reshape(-1, d**t).sum(axis=0)
        word_probs = np.ones(1)
        for _ in range(t):
            word_probs = np.outer(word_probs, level.probs).ravel()
        shorter = counts.reshape(-1, d).sum(axis=1)
        shorter_probs = word_probs.reshape(-1, d).sum(axis=1)
        statistic = pearson_statistic(counts, n * word_probs) - pearson_statistic(shorter, n * shorter_probs)
        dof = d**t - d ** (t - 1)
        return chi_square_result(label, statistic, dof, {"blocks": n, "letters": d, "tuple_length": t, "dof": dof,
                                                         "letter_probabilities": level.probs.tolist()})


def _span_label(shorter_by: int) -> str:
    return "longest" if shorter_by == 0 else f"longest-{shorter_by}"
