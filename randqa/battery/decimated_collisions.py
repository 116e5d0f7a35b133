"""Repeated values among the words whose low bits are zero (O'Neill's decimated birthday test).

Sources: M. E. O'Neill, "A birthday test: quickly failing some popular
PRNGs", pcg-random.org/posts/birthday-test.html (2017): keep only the
outputs whose low ``e`` bits are zero, which are uniform on 2^(b - e)
values, so the memory needed to find repeats falls by 2^e while the stream
needed grows by 2^(e/2); A. L. Voskov, SmokeRand's ``coll64dec`` (its
"64-bit birthday paradox test", docs/tests.md); the birthday problem's
moments, e.g. Feller, "An Introduction to Probability Theory", vol. 1,
II.3 and IV.2.

A generator whose b-bit output is a bijection of a b-bit state
(SplitMix64, PCG64/64 and other 64-bit-state generators) never repeats an
output within its period, where n random values of b bits repeat about
n^2 / 2^(b+1) times.  So it fails once the kept values, had they been
random, would have repeated: with Y = 0 against a mean lambda, p = e^-lambda
is below 1e-6 from lambda = 13.8, that is n = 5.3 x 2^((b-e)/2) kept values
or 2^e times as many words.

The stream is read as little-endian words of ``word_bytes`` bytes; a
word's value is its low ``bits`` bits, kept when its low ``zero_bits``
bits are all zero.  The stream is cut into blocks of ``values`` x
2^zero_bits words (``values`` kept values expected per block), and in each
block the first ``capacity`` = values + 8 sqrt(values) + 16 kept values
are compared (a good generator keeps more with probability below 1e-15;
the rest are counted, not compared).  Y = the number of compared values
that equal an earlier one of their block, summed over the blocks.  Given
the n_i compared in block i, uniform on k = 2^(bits - zero_bits) values,
E[Y] = sum_i sum_{j>=2} (-1)^j C(n_i, j) / k^(j-1) exactly (Feller), kept
as the exact integers sum_i C(n_i, j), j = 2..8, so that a run cut into
segments sums to the same mean; at Y = 0 the lower tail is
P(Y = 0) = prod_i prod_{m<n_i} (1 - m/k), exactly (its logarithm's series
to the fourth power of n/k, whose rest is below 1e-12 for n/k <= 2^-10);
otherwise Y is compared with Poisson(E[Y]), whose error relative to the
birthday law is of order n^3 / k^2 (below 1e-4 for the shipped entries).
An unfinished block counts with the values it has so far.

Memory: the values compared in the block in progress are a set in an
open-addressing table of 4/3 slots per value, 8 bytes each (10.7 bytes a
value; its pages are taken as values land in them), so the process that
reads the stream from its start or merges its segments holds one block.
The values compared are also listed in order (8 bytes a value, its pages
taken as they are written): a block's state (a checkpoint, a segment's
result) is that list, saved as it lies, and it grows with the data, not
with the table; loading it makes the set again.  A
value is looked up in about one cache miss, whatever the set's size: the
merging process keeps up with many workers.  A segment that starts inside
a block (on a worker) holds its own kept values, in order, until it is
merged: 8 bytes for 2^zero_bits of its words.

Parameters:
  word_bytes  bytes per word: 4 or 8 (default 8)
  bits        b, the low bits of each word compared: 16 to 8 * word_bytes (default 64)
  zero_bits   e, keep the values whose low e bits are zero: 0 to b - 16 (default 0)
  values      kept values expected per block, 2 to 2^30 (default 2^16)
Needs two kept values; capacity / k at most 2^-10.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from randqa.battery import _counts
from randqa.battery._blocks import WholeBlockTest
from randqa.battery.base import OBJECT_BYTES, MemoryNeed, Range
from randqa.results import TestResult, insufficient, poisson_cdf, poisson_sf

#: the largest capacity / k: the mean's series and P(Y = 0)'s converge fast
MAX_LOAD = 2.0**-10
#: terms j = 2 .. MAX_TERM of the mean's series
MAX_TERM = 8


def table_slots(capacity: int) -> int:
    """Slots of a block's set: never more than three quarters full."""
    return 4 * -(-capacity // 3) + 8


def empty_table(slots: int) -> np.ndarray:
    """A zeroed uint64 array whose pages are mapped as they are first
    written, in 4 KiB pages (not huge ones): a short run touches little of it."""
    try:
        import mmap

        memory = mmap.mmap(-1, 8 * slots)
        if hasattr(mmap, "MADV_NOHUGEPAGE"):
            memory.madvise(mmap.MADV_NOHUGEPAGE)
        return np.frombuffer(memory, dtype=np.uint64)
    except (OSError, ValueError):
        return np.zeros(slots, dtype=np.uint64)


def block_capacity(values: int) -> int:
    """Kept values compared per block: ``values`` and 8 standard deviations of the number kept."""
    return values + 8 * math.isqrt(values) + 16


class Block:
    """What one block has seen: its kept values, the distinct ones among
    the first ``capacity`` (compared) in an open-addressing set
    (_counts.set_insert), the repeats among those, and the values compared
    in order (``compared_values``), which are its saved state: a state then
    grows with the data, not with the table's capacity, and is saved from
    where it lies, with no copy (a table's empty slots cannot be skipped
    without reading them all, which maps every page of it)."""

    def __init__(self) -> None:
        self.kept = 0
        self.repeats = 0
        self.table: np.ndarray | None = None  # made at the first value compared
        self.fill = np.zeros(2, dtype=np.int64)  # values in the set; whether 0 is one of them
        #: the values compared, in order: a list made with the table (its pages
        #: taken as they are written), or what a saved state gave until then
        self.log = np.zeros(0, dtype=np.uint64)

    @property
    def compared(self) -> int:
        return int(self.fill[0]) + self.repeats

    def _make_table(self, capacity: int) -> None:
        """The set and the list of the values compared, holding those a saved state gave."""
        from randqa.battery._state import StateError

        saved = self.log
        if len(saved) > capacity:
            raise StateError(f"a block saved with {len(saved)} values compared, more than its {capacity}")
        self.table = empty_table(table_slots(capacity))
        self.log = empty_table(capacity)
        self.log[:len(saved)] = saved
        self.fill = np.zeros(2, dtype=np.int64)
        repeats = _counts.set_insert(self.table, self.fill, np.ascontiguousarray(saved)) if len(saved) else 0
        if repeats != self.repeats:
            raise StateError(f"a block saved with {self.repeats} repeats among values that hold {repeats}")

    def add(self, kept: np.ndarray, capacity: int, count: int | None = None) -> None:
        """Add the next kept values in stream order (``count`` of them, when
        only the first ones are given); those past ``capacity`` are only counted."""
        compared = kept[: max(0, capacity - self.compared)]
        if len(compared):
            if self.table is None:
                self._make_table(capacity)
            at = self.compared
            self.log[at:at + len(compared)] = compared
            self.repeats += _counts.set_insert(self.table, self.fill, np.ascontiguousarray(compared, dtype=np.uint64))
        self.kept += len(kept) if count is None else count

    def _state_export(self) -> dict[str, Any]:
        """The block's state (randqa.battery._state): its counts and the values compared, as they lie."""
        compared = self.log[:self.compared] if self.table is not None else self.log
        return {"kept": self.kept, "repeats": self.repeats, "compared_values": compared}

    def _state_import(self, values: dict[str, Any], where: str) -> None:
        from randqa.battery._state import StateError

        compared = values["compared_values"]
        kept, repeats = values["kept"], values["repeats"]
        if not (compared.ndim == 1 and type(kept) is int and type(repeats) is int
                and 0 <= repeats <= len(compared) <= kept):
            raise StateError(f"{where}: not a block's state")
        self.kept, self.repeats = kept, repeats
        # the set is made again at its next value, when its capacity is known (``add``)
        self.table, self.log = None, compared
        self.fill = np.array([len(compared) - repeats, 0], dtype=np.int64)


class Head:
    """The kept values before a part's first block boundary, in stream order
    (the first ``capacity``): a part that starts inside a block cannot compare
    them before the part ahead of it is merged."""

    def __init__(self) -> None:
        self.kept = 0
        self.parts: list[np.ndarray] = []

    @property
    def stored(self) -> int:
        return sum(len(part) for part in self.parts)

    def add(self, kept: np.ndarray, capacity: int) -> None:
        room = max(0, capacity - self.stored)
        if room and len(kept):
            self.parts.append(kept[:room].copy())
        self.kept += len(kept)


@dataclass(eq=False, repr=False, kw_only=True)
class DecimatedCollisions(WholeBlockTest):
    name = "decimated_collisions"
    parameter_ranges: ClassVar[dict[str, Range]] = {
        "word_bytes": Range(4, 8), "bits": Range(16, 64), "zero_bits": Range(0, 48), "values": Range(2, 1 << 30)}

    word_bytes: int = 8
    bits: int = 64
    zero_bits: int = 0
    values: int = 1 << 16

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        p = cls.with_defaults(params)
        capacity = block_capacity(p["values"])
        words = chunk_bytes // p["word_bytes"] + 1
        # the set of the block in progress, 8 bytes a slot; a chunk's words as
        # values, the mask of the kept ones and the kept ones.  A part that
        # starts inside a block (a segment on a worker) also holds its own
        # kept values until it is merged: 2^-zero_bits of its words, 8 bytes
        # each; finalize counts them in a set of their own.  The values
        # compared are also listed in order, 8 bytes each: the block's state.
        return MemoryNeed(8 * table_slots(capacity) + 8 * capacity + OBJECT_BYTES,
                          17 * words + 8 * min(words, capacity))

    def __post_init__(self) -> None:
        word_bytes, bits, zero_bits, values = self.word_bytes, self.bits, self.zero_bits, self.values
        if word_bytes not in (4, 8):
            raise ValueError(f"word_bytes must be 4 or 8, not {word_bytes!r}")
        if not (isinstance(bits, int) and 16 <= bits <= 8 * word_bytes):
            raise ValueError(f"bits must be from 16 to {8 * word_bytes}, not {bits!r}")
        if not (isinstance(zero_bits, int) and 0 <= zero_bits <= bits - 16):
            raise ValueError(f"zero_bits must be from 0 to bits - 16 = {bits - 16}, not {zero_bits!r}")
        if not (isinstance(values, int) and values >= 2):
            raise ValueError(f"values must be an integer >= 2, not {values!r}")
        self.capacity = block_capacity(values)
        self.cells = 1 << (bits - zero_bits)
        if self.capacity > MAX_LOAD * self.cells:
            raise ValueError(f"{self.capacity} values compared among 2^{bits - zero_bits} is over 2^-10 per value, "
                             "where the law of the repeats is not exact enough: keep fewer values or more bits")
        super().__init__(word_bytes)
        self.block_words = values << zero_bits
        self.first_word = 0  # stream index of the first word this part sees (begin_at)
        self.words_seen = 0
        self.head = Head()  # the words before the first block boundary after first_word, if it is not on one
        self.current = Block()  # the block in progress
        self.blocks = 0  # complete blocks
        self.repeats = 0  # theirs
        self.kept = 0
        self.binomial_sums = [0] * (MAX_TERM + 1)  # sum over complete blocks of C(n, j), n the values compared

    @property
    def phase(self) -> int:
        return self.block_words * self.word_bytes

    def _begin_at(self, position: int) -> None:
        self.first_word = position // self.word_bytes

    @property
    def _head_words(self) -> int:
        """Words from first_word to the first block boundary."""
        return -self.first_word % self.block_words

    def _scan(self, run: np.ndarray) -> None:
        words = run.view(f"<u{self.word_bytes}")
        at = 0
        while at < len(words):
            index = self.first_word + self.words_seen
            in_head = self.words_seen < self._head_words
            take = min(len(words) - at, (self._head_words - self.words_seen) if in_head
                       else self.block_words - index % self.block_words)
            (self.head if in_head else self.current).add(self._kept(words[at : at + take]), self.capacity)
            at += take
            self.words_seen += take
            if not in_head and (index + take) % self.block_words == 0:
                self._close_block()

    def _kept(self, words: np.ndarray) -> np.ndarray:
        values = words.astype(np.uint64, copy=False)
        if self.bits < 64:
            values = values & np.uint64((1 << self.bits) - 1)
        if self.zero_bits:
            values = values[(values & np.uint64((1 << self.zero_bits) - 1)) == 0]
        return values

    def _close_block(self) -> None:
        n = self.current.compared
        for j in range(2, MAX_TERM + 1):
            self.binomial_sums[j] += math.comb(n, j)
        self.blocks += 1
        self.repeats += self.current.repeats
        self.kept += self.current.kept
        self.current = Block()

    def _add_counts(self, other: "DecimatedCollisions") -> None:
        # the right part's head continues this part's block in progress, which
        # is this part's own head if it has not reached a block boundary yet
        reached = other.words_seen >= other._head_words  # the right part reached a boundary
        into = self.head if self.words_seen < self._head_words else self.current
        for part in other.head.parts:
            into.add(part, self.capacity)
        into.kept += other.head.kept - other.head.stored
        if into is self.current and reached and other._head_words:  # the block ends where the right part's first starts
            self._close_block()
        if reached:
            self.blocks += other.blocks
            self.repeats += other.repeats
            self.kept += other.kept
            self.binomial_sums = [a + b for a, b in zip(self.binomial_sums, other.binomial_sums)]
            self.current = other.current
        self.words_seen += other.words_seen

    def _counts(self) -> tuple[list[int], int, int]:
        """(sums of C(n, j), repeats, kept) with the unfinished blocks counted as they stand."""
        sums, repeats, kept = list(self.binomial_sums), self.repeats, self.kept
        head = Block()
        for part in self.head.parts:
            head.add(part, self.capacity)
        head.kept = self.head.kept
        for n, r, k in ((head.compared, head.repeats, head.kept),
                        (self.current.compared, self.current.repeats, self.current.kept)):
            for j in range(2, MAX_TERM + 1):
                sums[j] += math.comb(n, j)
            repeats += r
            kept += k
        return sums, repeats, kept

    def finalize(self) -> list[TestResult]:
        label = f"{self.name}[bits={self.bits},zero_bits={self.zero_bits}]"
        sums, repeats, kept = self._counts()
        if sums[2] == 0:
            return [insufficient(label, "at least two kept values in one block (about "
                                 f"{2 << self.zero_bits} words whose low {self.zero_bits} bits are zero)")]
        k = float(self.cells)
        mean = sum((-1) ** j * sums[j] / k ** (j - 1) for j in range(2, MAX_TERM + 1))
        pvalue_low = self._no_repeat_probability(sums) if repeats == 0 else poisson_cdf(repeats, mean)
        return [TestResult(
            name=label, statistic=float(repeats), pvalue=poisson_sf(repeats - 1, mean), pvalue_low=pvalue_low,
            pvalue_kind="discrete",
            details={"complete_blocks": self.blocks, "kept_values": kept, "expected": mean,
                     "cells": f"2^{self.bits - self.zero_bits}", "values_per_block": self.values})]

    def _no_repeat_probability(self, sums: list[int]) -> float:
        """prod over blocks of prod_{m<n} (1 - m/k): its log is -sum_r P_r / (r k^r), P_r = sum_m m^r."""
        k = self.cells
        # power sums of m < n from the binomial ones: m = C(m,1), m^2 = 2C(m,2) + C(m,1), ...
        p1 = sums[2]
        p2 = 2 * sums[3] + sums[2]
        p3 = 6 * sums[4] + 6 * sums[3] + sums[2]
        p4 = 24 * sums[5] + 36 * sums[4] + 14 * sums[3] + sums[2]
        return math.exp(-(p1 / k + p2 / (2 * k**2) + p3 / (3 * k**3) + p4 / (4 * k**4)))

