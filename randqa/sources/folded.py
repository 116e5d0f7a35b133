"""A source seen through low-bits folding (``--word-bits W --low-bits L``):
every test then reads only the low L bits of each W-bit word, as PractRand's
[Low1/8] and [Low4/32] sub-streams do (see randqa/folding.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from randqa.errors import UsageError
from randqa.folding import FoldCarry, check_folding, fold_low_bits
from randqa.sources.base import Source, SplitMethod


class FoldedSource(Source):
    """The folded stream of ``inner``; ``--bytes`` then counts folded bytes."""

    def __init__(self, inner: Source, word_bits: int, low_bits: int, read_bytes: int = 1 << 20) -> None:
        check_folding(word_bits, low_bits)
        self.inner = inner
        self.word_bytes = word_bits // 8
        self.low_bits = low_bits
        self.name = f"{inner.name}[low{low_bits}/{word_bits}]"
        self.seed = inner.seed
        self.endless = inner.endless
        self._raw = np.empty(read_bytes, dtype=np.uint8)
        self._carry: FoldCarry | None = None
        self._ready = np.zeros(0, dtype=np.uint8)

    def readinto(self, buffer: memoryview) -> int:
        while len(self._ready) == 0:
            got = self.inner.readinto(memoryview(self._raw))
            if got == 0:
                return 0
            # the folded bytes are a fresh array: reusing _raw next time is safe
            self._ready, self._carry = fold_low_bits(self._raw[:got], self.word_bytes, self.low_bits, self._carry)
        n = min(len(buffer), len(self._ready))
        buffer[:n] = self._ready[:n]
        self._ready = self._ready[n:]
        return n

    @property
    def split_method(self) -> SplitMethod:
        return self.inner.split_method

    @property
    def size(self) -> int | None:
        """Folded bytes the inner source's whole words give."""
        inner = self.inner.size
        return None if inner is None else inner // self.word_bytes * self.low_bits // 8

    def open_at(self, offset: int, length: int | None = None) -> Source:
        """The folded stream from folded byte ``offset``: the inner stream from
        the word that starts it (``offset`` must be a multiple of the folding's alignment)."""
        raw = self.inner.open_at(8 * offset // self.low_bits * self.word_bytes)
        return FoldedSource(raw, 8 * self.word_bytes, self.low_bits)

    def describe(self) -> dict[str, Any]:
        return dict(self.inner.describe(), name=self.name, folding={"word_bits": 8 * self.word_bytes, "low_bits": self.low_bits})

    def close(self) -> None:
        self.inner.close()


def fold_source(source: Source, word_bits: int, low_bits: int) -> FoldedSource:
    """``source`` read through low-bits folding (--word-bits/--low-bits);
    when the folding is refused, ``source`` is closed and a UsageError says why."""
    try:
        return FoldedSource(source, word_bits, low_bits)
    except ValueError as exc:
        source.close()
        raise UsageError(f"--low-bits: {exc}") from None
