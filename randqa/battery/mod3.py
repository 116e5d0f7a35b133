"""Mod-3 test: overlapping tuples of the remainders mod 3 of 8-, 16-, 32-,
... bit blocks.

Sources: G. Jones, gjrand (gjrand.sourceforge.net), its ``mod3`` test
(overlapping 9-tuples of 32-bit words mod 3); C. Doty-Humphrey,
PractRand 0.94, doc/versions.txt and include/PractRand/Tests/mod3.h,
``mod3n`` ("based upon the mod3 test in gjrand, but it targets 8, 16, 32,
64, 128, etc bit blocks, all simultaneously, the same way BCFN does"; it
finds flea32x1, ara32 and ibaa32, which are otherwise hard to catch);
I. J. Good, Proc. Cambridge Philos. Soc. 49 (1953) 276-284, and
G. Marsaglia, J. Statistical Software 14 (2005) (for overlapping t-letter
words with any letter probabilities, Q_t - Q_(t-1), the difference of the
naive Pearson sums of the t- and (t-1)-letter word counts read
circularly, is chi-square with d^t - d^(t-1) degrees of freedom).

Level L reads the stream as blocks of B = 8 * 2^L bits.  A block's value
mod 3 is the sum of its bytes mod 3 in either byte order (256 = 1 mod 3),
so one pass makes every level.  A uniform B-bit block is 0 mod 3 with
probability p_0 = (2^B + 2) / (3 * 2^B) and 1 or 2 with
p_1 = p_2 = (2^B - 1) / (3 * 2^B) (86/256 and 85/256 for bytes).  The
overlapping t-tuples of remainders are counted circularly (the first t-1
remainders appended at the end, so the (t-1)-tuple counts are sums of the
t-tuple ones), and Q_t - Q_(t-1) is compared with chi-square with
3^t - 3^(t-1) degrees of freedom (upper tail; the lower is reported too).
The counts are kept for t = ``tuple_length``; with fewer remainders the
tuples are shortened (summed over their oldest remainders) to the longest
t whose rarest tuple still has ``MIN_EXPECTED`` expected, so a level gives
a result from 43 remainders on (14 / p_1) and reaches t = 9 at
14 / p_1^9 remainders: 279 KiB for bytes, 1.1 MiB for 32-bit words.

A generator whose outputs are sums or products of few words carries their
remainders mod 3 from one output to the next (flea32x1's 32-bit words,
PractRand's "mod3n(5):(2,...)" fails it at 64 KB); bit tests see nothing,
since mod 3 mixes every bit of a word.

Parameters:
  levels        block sizes 8 * 2^L bits for L < levels, 1 to 16 (default 6:
                8 to 256 bits); one result each
  tuple_length  the longest t, 1 to 11 (default 9: 19,683 cells, gjrand's)
  every         1 to 1024 (default 1): test the 64 KiB stretches of the
                stream whose number is a multiple of ``every`` (the first
                one included), read as one stream, for speed, as PractRand's
                mod3n(5) reads 1/32 of its stream; for a random stream the
                stretches joined are as random as the stream, so the law
                is the same
A level's result needs 43 blocks (and at least ``tuple_length``) of
the tested stretches; below that it is ``insufficient``.
The chi-square law of Q_t - Q_(t-1) is close at the fail threshold only
with enough expected per cell, and few cells need more
(randqa/battery/_tuple_law.py: 14 suffice from t = 6, 19,683 cells, on):
below that only a tail under fail_at_once gives a verdict, which leaves
t <= 5, under about 32 Ki blocks, to the decisive failures (flea32x1's).
Memory: 8 * 3^tuple_length bytes per level (157 KiB for t = 9).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from randqa.battery import _mod3
from randqa.battery._tuple_law import withhold_unless_close
from randqa.battery.base import OBJECT_BYTES, Accumulator, MemoryNeed, Range
from randqa.results import TestResult, chi_square_result, insufficient, pearson_statistic

#: expected tuples in the rarest cell for the chi-square law (as bcfn)
MIN_EXPECTED = 14
MAX_LEVELS = 16
MAX_TUPLE_LENGTH = 11
#: int64 items of the kernel's state per level: index, remainders seen, pending half, whether it is there
STATE_ITEMS = 4
#: bytes per pass of the kernel (its buffers: the remainders and the indices)
KERNEL_PIECE = 32768
#: with every > 1, the stream is tested in stretches of this many bytes (a
#: multiple of every level's block), one in every ``every``
STRETCH_BYTES = 1 << 16
MAX_EVERY = 1024


def remainder_probabilities(block_bits: int) -> np.ndarray:
    """P(X mod 3 = r), r = 0, 1, 2, for X uniform on 0 .. 2^block_bits - 1
    (block_bits even: 2^block_bits = 1 mod 3, so 0 has one value more)."""
    if block_bits % 2:
        raise ValueError(f"block_bits must be even, not {block_bits}")
    # (2^B + 2) / (3 * 2^B) = 1/3 + 2 / (3 * 2^B), in floats without 2^B itself
    excess = math.ldexp(1.0, -block_bits) / 3
    return np.array([1 / 3 + 2 * excess, 1 / 3 - excess, 1 / 3 - excess])


def tuple_probabilities(probs: np.ndarray, length: int) -> np.ndarray:
    """Probabilities of the 3^length tuples, indexed as base-3 numbers with
    the oldest remainder the most significant digit."""
    out = np.ones(1)
    for _ in range(length):
        out = np.outer(out, probs).ravel()
    return out


class Mod3(Accumulator):
    name = "mod3"
    parameter_ranges: ClassVar[dict[str, Range]] = {
        "levels": Range(1, MAX_LEVELS), "tuple_length": Range(1, MAX_TUPLE_LENGTH), "every": Range(1, MAX_EVERY)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        p = cls.with_defaults(params)
        cells = 3 ** p["tuple_length"]
        held = OBJECT_BYTES + p["levels"] * (8 * cells + 8 * STATE_ITEMS) + cls._head_bytes(p["levels"], p["tuple_length"])
        # the kernel's buffers; at finalize one level's counts copied and
        # shortened, the tuples' probabilities (and the outer products that
        # make them), the expected counts and the Pearson sum's temporaries
        working = max(6 * KERNEL_PIECE, 10 * 8 * cells)
        return MemoryNeed(held, working, p["levels"])

    @staticmethod
    def _head_bytes(levels: int, tuple_length: int) -> int:
        return (tuple_length - 1) << (levels - 1)

    def __init__(self, *, levels: int = 6, tuple_length: int = 9, every: int = 1) -> None:
        super().__init__()
        if not (isinstance(levels, int) and not isinstance(levels, bool) and 1 <= levels <= MAX_LEVELS):
            raise ValueError(f"levels must be an integer from 1 to {MAX_LEVELS}, not {levels!r}")
        if not (isinstance(tuple_length, int) and not isinstance(tuple_length, bool) and 1 <= tuple_length <= MAX_TUPLE_LENGTH):
            raise ValueError(f"tuple_length must be an integer from 1 to {MAX_TUPLE_LENGTH}, not {tuple_length!r}")
        if not (isinstance(every, int) and not isinstance(every, bool) and 1 <= every <= MAX_EVERY):
            raise ValueError(f"every must be an integer from 1 to {MAX_EVERY}, not {every!r}")
        self.levels = levels
        self.tuple_length = tuple_length
        self.every = every
        self.cells = 3**tuple_length
        self.counts = np.zeros((levels, self.cells), dtype=np.int64)
        self.scan_state = np.zeros((levels, STATE_ITEMS), dtype=np.int64)
        #: the stream's first bytes: the first t-1 blocks of every level, for
        #: the tuples that wrap around and those that span a merge
        self.head = b""

    @property
    def alignment(self) -> int:
        return 1 << (self.levels - 1)

    @property
    def phase(self) -> int:
        return self.alignment if self.every == 1 else STRETCH_BYTES * self.every

    def _update(self, chunk: np.ndarray) -> None:
        if self.every == 1:
            self._scan(chunk)
            return
        # only the stretches whose number is a multiple of every, read as one stream
        position = self.start + self.bytes_seen
        offset = 0
        while offset < len(chunk):
            stretch, into = divmod(position + offset, STRETCH_BYTES)
            take = min(STRETCH_BYTES - into, len(chunk) - offset)
            if stretch % self.every == 0:
                self._scan(chunk[offset : offset + take])
            offset += take

    def _scan(self, data: np.ndarray) -> None:
        want = self._head_bytes(self.levels, self.tuple_length) - len(self.head)
        if want > 0:
            self.head += bytes(data[:want])
        _mod3.mod3_tuple_scan(data, self.levels, self.tuple_length, self.counts, self.scan_state)

    def _stream_bytes(self, tested: int) -> int:
        """The stream's length at which ``tested`` bytes of it have been tested."""
        stretches = -(-tested // STRETCH_BYTES)
        if self.every == 1 or stretches <= 1:
            return tested
        return (stretches - 1) * STRETCH_BYTES * self.every + tested - (stretches - 1) * STRETCH_BYTES

    def _letters(self, data: bytes, level: int) -> list[int]:
        """The remainders of the whole 2^level-byte blocks of ``data``."""
        block = 1 << level
        whole = len(data) // block * block
        sums = np.frombuffer(data[:whole], dtype=np.uint8).astype(np.int64).reshape(-1, block).sum(axis=1)
        return [int(x) for x in sums % 3]

    def _recent(self, level: int) -> list[int]:
        """The level's last min(seen, t-1) remainders, oldest first (digits of its index)."""
        index, seen = int(self.scan_state[level, 0]), int(self.scan_state[level, 1])
        k = min(seen, self.tuple_length - 1)
        return [(index // 3**j) % 3 for j in range(k - 1, -1, -1)]

    def _add_tuples(self, counts: np.ndarray, letters: list[int], first_end: int) -> None:
        """Count the t-tuples of ``letters`` that end at index first_end or later."""
        t = self.tuple_length
        for end in range(max(first_end, t - 1), len(letters)):
            index = 0
            for r in letters[end - t + 1 : end + 1]:
                index = 3 * index + r
            counts[index] += 1

    def _merge(self, other: "Mod3") -> None:
        t = self.tuple_length
        for level in range(self.levels):
            before = self._recent(level)
            theirs_head = self._letters(other.head, level)[: t - 1]
            self._add_tuples(self.counts[level], before + theirs_head, len(before))
            self.counts[level] += other.counts[level]
            # the index holds the latest min(seen, t) remainders, as one pass would
            theirs_seen = int(other.scan_state[level, 1])
            shift = 3 ** min(theirs_seen, t)
            self.scan_state[level, 0] = (int(self.scan_state[level, 0]) * shift + int(other.scan_state[level, 0])) % self.cells
            self.scan_state[level, 1] += theirs_seen
            # the left part ended on a whole block of every level: the right part's unfinished pair is the one left
            self.scan_state[level, 2:] = other.scan_state[level, 2:]
        self.head = (self.head + other.head)[: self._head_bytes(self.levels, t)]

    def finalize(self) -> list[TestResult]:
        return [self._level_result(level) for level in range(self.levels)]

    def _level_result(self, level: int) -> TestResult:
        block_bits = 8 << level
        label = f"{self.name}[block_bits={block_bits}]"
        probs = remainder_probabilities(block_bits)
        n = int(self.scan_state[level, 1])
        rarest = float(probs.min())
        # the longest t whose rarest tuple has MIN_EXPECTED expected
        t = 0
        while t < self.tuple_length and n * rarest ** (t + 1) >= MIN_EXPECTED:
            t += 1
        if t == 0 or n < self.tuple_length:
            needed = max(math.ceil(MIN_EXPECTED / rarest), self.tuple_length)
            return insufficient(label, f"at least {self._stream_bytes(needed << level)} bytes ({needed} blocks)", blocks=n)
        counts = self.counts[level].copy()
        # the tuples that wrap around: the last t-1 remainders then the first t-1
        tail = self._recent(level)
        self._add_tuples(counts, tail + self._letters(self.head, level)[: self.tuple_length - 1], len(tail))
        counts = counts.reshape(-1, 3**t).sum(axis=0)  # t-tuples: summed over the oldest remainders
        word_probs = tuple_probabilities(probs, t)
        shorter = counts.reshape(-1, 3).sum(axis=1)
        shorter_probs = word_probs.reshape(-1, 3).sum(axis=1)
        statistic = pearson_statistic(counts, n * word_probs) - pearson_statistic(shorter, n * shorter_probs)
        dof = 3**t - 3 ** (t - 1)
        result = chi_square_result(label, statistic, dof, {"blocks": n, "tuple_length": t, "dof": dof,
                                                           "letter_probabilities": probs.tolist()})
        withhold_unless_close(result, n * word_probs, dof)
        return result
