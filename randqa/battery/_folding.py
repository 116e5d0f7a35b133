"""Low-bits folding: test only the low bits of every word, as PractRand's
[Low1/8], [Low4/32] and [Low8/32] sub-streams do.

Source: C. Doty-Humphrey, PractRand 0.94, doc/RNG_test.txt ("folding": the
core tests are also run on the low bits of each word, where LCGs and
lagged-Fibonacci generators are weakest).

``fold_low_bits`` turns a stream of little-endian words into the byte
stream made of the low ``low_bits`` bits of each word, most significant of
those bits first, in stream order, packed most significant bit first: for
low_bits = 8 it is the low byte of every word; for low_bits = 1 and 8-bit
words, 8 input bytes give one output byte whose top bit is the first
input byte's lowest bit.  It streams: the carry holds the start of an
incomplete word and the pending 0-7 output bits.

``FoldedTest`` runs any accumulator on the folded stream.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from randqa.battery import _linear
from randqa.battery.base import Accumulator
from randqa.results import TestResult


@dataclass(frozen=True)
class FoldCarry:
    """What one call of fold_low_bits leaves for the next."""

    partial_word: bytes = b""  # the first bytes of an incomplete word
    bits: int = 0  # the pending output bits, the oldest most significant
    bit_count: int = 0  # how many (0-7)


def fold_low_bits(
    chunk: np.ndarray, word_bytes: int, low_bits: int, carry: FoldCarry | None
) -> tuple[np.ndarray, FoldCarry]:
    """The packed low bits of the words of ``chunk`` (uint8), and the carry for the next chunk.

    ``carry`` is None at the start of a stream.  The result does not depend
    on how the stream is cut into chunks.
    """
    if word_bytes not in (1, 2, 4, 8):
        raise ValueError(f"word_bytes must be 1, 2, 4 or 8, not {word_bytes!r}")
    if not (isinstance(low_bits, int) and 1 <= low_bits <= 8 * word_bytes):
        raise ValueError(f"low_bits must be from 1 to {8 * word_bytes}, not {low_bits!r}")
    carry = carry or FoldCarry()
    data = memoryview(np.ascontiguousarray(chunk, dtype=np.uint8)).cast("B")
    pieces = []
    bits, bit_count = carry.bits, carry.bit_count
    partial = carry.partial_word
    if partial:
        take = word_bytes - len(partial)
        partial += bytes(data[:take])
        data = data[take:]
        if len(partial) < word_bytes:
            return np.zeros(0, dtype=np.uint8), FoldCarry(partial, bits, bit_count)
        out, bits, bit_count = _linear.fold_low_bits(partial, word_bytes, low_bits, bits, bit_count)
        pieces.append(out)
        partial = b""
    whole = len(data) - len(data) % word_bytes
    out, bits, bit_count = _linear.fold_low_bits(data[:whole], word_bytes, low_bits, bits, bit_count)
    pieces.append(out)
    packed = pieces[0] if len(pieces) == 1 else b"".join(pieces)
    return np.frombuffer(packed, dtype=np.uint8), FoldCarry(bytes(data[whole:]), bits, bit_count)


class FoldedTest(Accumulator):
    """Runs ``inner`` on the low ``low_bits`` bits of every ``word_bits``-bit word.

    Result names get a ``[low{low_bits}/{word_bits}]`` suffix, like
    PractRand's ``[Low4/32]``.
    """

    name = "folded"

    def __init__(self, inner: Accumulator, *, word_bits: int, low_bits: int) -> None:
        super().__init__()
        if word_bits not in (8, 16, 32, 64):
            raise ValueError(f"word_bits must be 8, 16, 32 or 64, not {word_bits!r}")
        if not (isinstance(low_bits, int) and 1 <= low_bits < word_bits):
            raise ValueError(f"low_bits must be from 1 to {word_bits - 1}, not {low_bits!r}")
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

    def update(self, chunk: np.ndarray) -> None:
        self.bytes_seen += len(chunk)
        packed, self.carry = fold_low_bits(chunk, self.word_bytes, self.low_bits, self.carry)
        if len(packed):
            self.inner.update(packed)

    def merge(self, other: Accumulator) -> None:
        self._check_mergeable(other)
        self.inner.merge(other.inner)
        self.carry = other.carry
        self.bytes_seen += other.bytes_seen

    def finalize(self) -> list[TestResult]:
        results = self.inner.finalize()
        for r in results:
            r.name += self.suffix
        return results
