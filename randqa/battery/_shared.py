"""Shared sufficient statistics: counts that several suite entries finalise
from, filled once per chunk instead of once per entry.

Several tests reduce a byte stream to the same counts.  Every overlapping
window of up to 16 bits that starts in a byte lies in that byte and the
next, so the table of overlapping byte pairs P[a, b] (how often byte a is
followed by byte b), with the stream's first and last bytes, holds
everything that frequency, runs, chi_square (bits = 8), serial_correlation
(lag 1), digraph (position_mod 0) and overlapping_serial (m <= 9) count:
the byte histogram is P's row sums plus the last byte, the bit transitions
across byte boundaries are P's cells whose a ends in another bit than b
starts with, the lag-1 product sum is sum P[a, b] a b, and the m-bit
patterns are read off each cell's 16 bits (tests/battery/
pair_table_reference.py derives each; randqa/battery/_pair_table.c fills P
at one increment per byte).  The first four need less: the histogram, the
lag-1 products and the transitions across bytes (``ByteCounts``, a fifth
faster to count); a suite with only those four (quick) counts that, one
with digraph or overlapping_serial too (standard) fills P for all six.
All are integers, so a test that finalises from either gives bit for bit
the result it gives from its own counts.

Which tests read which statistic, and how a suite wires one statistic to
the entries that read it, is randqa/battery/_sharing.py: the statistics
here know nothing of the tests.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Hashable

import numpy as np

from randqa.battery import _counts, _pair_table
from randqa.folding import FoldCarry, fold_low_bits

#: bytes of the stream's start kept: the first m - 1 <= 19 bits of overlapping_serial
HEAD_BYTES = 3

_VALUES = np.arange(256, dtype=np.int64)
_POPCOUNT = np.array([bin(v).count("1") for v in range(256)], dtype=np.int64)
#: adjacent bit pairs that differ inside each byte (bits read most significant first)
_INSIDE_TRANSITIONS = np.array([bin((v ^ (v >> 1)) & 0x7F).count("1") for v in range(256)], dtype=np.int64)
#: P's cells (a, b) whose last bit of a differs from the first bit of b
_ACROSS_TRANSITION = ((_VALUES[:, None] & 1) != (_VALUES[None, :] >> 7)).ravel()


class SharedStatistic(ABC):
    """Counts of a stream that several tests finalise from.

    Like an accumulator it sees the stream in chunks and merges with the
    statistic of the bytes that follow; ``key`` says which statistics are
    the same counts (and so may be shared).
    """

    def __init__(self) -> None:
        self.bytes_seen = 0

    @property
    @abstractmethod
    def key(self) -> Hashable:
        """Equal for statistics that count the same thing of the same stream."""

    def update(self, chunk: np.ndarray) -> None:
        if len(chunk):
            self._update(chunk)
            self.bytes_seen += len(chunk)

    def merge(self, other: "SharedStatistic") -> None:
        """Absorb ``other``, which saw the bytes that follow this one's."""
        if other.key != self.key:
            raise ValueError(f"cannot merge statistic {other.key!r} into {self.key!r}")
        self._merge(other)
        self.bytes_seen += other.bytes_seen

    def covers(self, other: "SharedStatistic") -> bool:
        """Whether a test that declared ``other`` can finalise from this statistic."""
        return other.key == self.key

    @abstractmethod
    def _update(self, chunk: np.ndarray) -> None:
        """Add a non-empty chunk, which starts at stream position ``bytes_seen``."""

    @abstractmethod
    def _merge(self, other: Any) -> None:
        """Add the counts of ``other`` (``bytes_seen`` is still this one's own)."""


class ByteCounts(SharedStatistic):
    """The byte histogram, the lag-1 product sum, the bit transitions across
    bytes, and the first and last bytes: what frequency, runs, chi_square
    (bits = 8) and serial_correlation (lag 1) count.  ``BytePairs`` answers
    the same questions (``histogram``, ``ones_and_transitions``,
    ``lag1_products``, ``first_byte``, ``last_byte``) from more counts."""

    key = ("byte_counts",)

    def __init__(self) -> None:
        super().__init__()
        self.counts = np.zeros(256, dtype=np.int64)
        self.products = 0  # sum of x_i x_{i+1}
        self.transitions = 0  # i where x_i's last bit differs from x_{i+1}'s first
        self.head = b""  # the first byte
        self.recent = 0  # the last byte

    def _update(self, chunk: np.ndarray) -> None:
        products, transitions = _counts.byte_counts(chunk, self.recent if self.bytes_seen else -1, self.counts)
        self.products += products
        self.transitions += transitions
        if not self.head:
            self.head = chunk[:1].tobytes()
        self.recent = int(chunk[-1])

    def _merge(self, other: "ByteCounts") -> None:
        if other.bytes_seen == 0:
            return
        self.counts += other.counts
        self.products += other.products
        self.transitions += other.transitions
        if self.bytes_seen:  # the pair across the join
            first = other.head[0]
            self.products += self.recent * first
            self.transitions += (self.recent & 1) != first >> 7
        else:
            self.head = other.head
        self.recent = other.recent

    @property
    def first_byte(self) -> int:
        return self.head[0]

    @property
    def last_byte(self) -> int:
        return self.recent

    def histogram(self) -> np.ndarray:
        return self.counts.copy()

    def ones_and_transitions(self) -> tuple[int, int]:
        ones = int(self.counts @ _POPCOUNT)
        return ones, int(self.counts @ _INSIDE_TRANSITIONS) + self.transitions

    def lag1_products(self) -> int:
        return self.products


class BytePairs(SharedStatistic):
    """The table of overlapping byte pairs, the first bytes and the last two.

    ``counts[a * 256 + b]`` is the number of positions i with x_i = a and
    x_{i+1} = b; ``head`` the stream's first (up to) 3 bytes; ``recent`` its
    last two bytes, the last in the low 8 bits.
    """

    key = ("byte_pairs",)

    def covers(self, other: SharedStatistic) -> bool:
        return other.key in (self.key, ByteCounts.key)

    def __init__(self) -> None:
        super().__init__()
        self.counts = np.zeros(65536, dtype=np.int64)
        self.head = b""
        self.recent = 0

    def _update(self, chunk: np.ndarray) -> None:
        _pair_table.add_pair_counts(chunk, self.recent & 0xFF if self.bytes_seen else -1, self.counts)
        if len(self.head) < HEAD_BYTES:
            self.head = (self.head + chunk[:HEAD_BYTES].tobytes())[:HEAD_BYTES]
        if len(chunk) == 1:
            self.recent = ((self.recent << 8) | int(chunk[0])) & 0xFFFF
        else:
            self.recent = (int(chunk[-2]) << 8) | int(chunk[-1])

    def _merge(self, other: "BytePairs") -> None:
        if other.bytes_seen == 0:
            return
        self.counts += other.counts
        if self.bytes_seen:
            self.counts[(self.recent & 0xFF) * 256 + other.head[0]] += 1  # the pair across the join
        self.head = (self.head + other.head)[:HEAD_BYTES]
        shift = 8 * min(other.bytes_seen, 2)
        self.recent = ((self.recent << shift) | other.recent) & 0xFFFF

    # ---- what the tests read (exact integers) ------------------------------
    @property
    def first_byte(self) -> int:
        return self.head[0]

    @property
    def last_byte(self) -> int:
        return self.recent & 0xFF

    def table(self) -> np.ndarray:
        """P as a 256 x 256 view."""
        return self.counts.reshape(256, 256)

    def histogram(self) -> np.ndarray:
        """Occurrences of each byte value: P's row sums, plus the last byte (which starts no pair)."""
        hist = self.table().sum(axis=1)
        if self.bytes_seen:
            hist[self.last_byte] += 1
        return hist

    def ones_and_transitions(self) -> tuple[int, int]:
        """One bits, and adjacent bits that differ, of the bytes (most significant bit first)."""
        hist = self.histogram()
        ones = int(hist @ _POPCOUNT)
        transitions = int(hist @ _INSIDE_TRANSITIONS) + int(self.counts[_ACROSS_TRANSITION].sum())
        return ones, transitions

    def lag1_products(self) -> int:
        """sum of x_i x_{i+1} over the pairs inside the stream (not circular)."""
        row_sums = self.table() @ _VALUES  # sum_b P[a, b] b: at most 255 n, no overflow below 2^55 bytes
        return sum(a * int(s) for a, s in enumerate(row_sums))


class FoldedStatistic(SharedStatistic):
    """A statistic of the folded stream (the low bits of every word,
    randqa/folding.py), folded once for every entry with that folding."""

    def __init__(self, inner: SharedStatistic, word_bits: int, low_bits: int) -> None:
        super().__init__()
        self.inner = inner
        self.word_bits = word_bits
        self.low_bits = low_bits
        self.carry: FoldCarry | None = None

    @property
    def key(self) -> Hashable:
        return ("folded", self.word_bits, self.low_bits, self.inner.key)

    def covers(self, other: SharedStatistic) -> bool:
        return (isinstance(other, FoldedStatistic) and (other.word_bits, other.low_bits) == (self.word_bits, self.low_bits)
                and self.inner.covers(other.inner))

    def _update(self, chunk: np.ndarray) -> None:
        packed, self.carry = fold_low_bits(chunk, self.word_bits // 8, self.low_bits, self.carry)
        self.inner.update(packed)

    def _merge(self, other: "FoldedStatistic") -> None:
        # the left part ends on whole words and output bytes (the entries' alignment)
        self.inner.merge(other.inner)
        self.carry = other.carry
