"""A suite entry folded to low bits (``fold_word_bits``/``fold_low_bits``):
``FoldedTest`` runs any accumulator on the low bits of every word, as
PractRand's [Low1/8] and [Low4/32] sub-streams do (randqa/folding.py has
the folding itself and its source).
"""

from __future__ import annotations

import math

import numpy as np

from randqa.battery.base import Accumulator
from randqa.folding import FoldCarry, check_folding, fold_low_bits
from randqa.results import TestResult


class FoldedTest(Accumulator):
    """Runs ``inner`` on the low ``low_bits`` bits of every ``word_bits``-bit word.

    Result names get a ``[low{low_bits}/{word_bits}]`` suffix, like
    PractRand's ``[Low4/32]``.
    """

    name = "folded"

    def __init__(self, inner: Accumulator, *, word_bits: int, low_bits: int) -> None:
        super().__init__()
        check_folding(word_bits, low_bits)
        self.inner = inner
        self.word_bits = word_bits
        self.low_bits = low_bits
        self.suffix = f"[low{low_bits}/{word_bits}]"
        self.name = inner.name + self.suffix
        self.word_bytes = word_bits // 8
        self.carry: FoldCarry | None = None

    def parameters(self) -> dict:
        return {"inner": repr(self.inner), "word_bits": self.word_bits, "low_bits": self.low_bits}

    @property
    def alignment(self) -> int:
        # whole words, whole output bytes, and whole blocks of the inner test
        out_bits = 8 * self.inner.alignment
        words = out_bits // math.gcd(out_bits, self.low_bits)
        return words * self.word_bytes

    def _update(self, chunk: np.ndarray) -> None:
        packed, self.carry = fold_low_bits(chunk, self.word_bytes, self.low_bits, self.carry)
        if len(packed):
            self.inner.update(packed)

    def _merge(self, other: Accumulator) -> None:
        self.inner.merge(other.inner)
        self.carry = other.carry

    def finalize(self) -> list[TestResult]:
        results = self.inner.finalize()
        for r in results:
            r.name += self.suffix
        return results
