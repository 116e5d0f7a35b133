"""Birthday spacings on a decimated stream: one word in every ``step``.

Source: A. L. Voskov, SmokeRand (github.com/alvoskov/SmokeRand), the
``bspace4_8d_dec`` test and its docs/tests.md, "Birthday spacings test with
decimation"; the birthday spacings test itself as in birthday_spacings.py
(Marsaglia; Knuth, TAOCP vol. 2, 3.3.2 J; L'Ecuyer and Simard, Math. Comput.
Simul. 55 (2001) 131-137, for points made of several words).

The stream is read as little-endian words of ``word_bytes`` bytes and only
word 0, word ``step``, word 2 ``step``, ... (counted from the start of the
stream) are kept.  From each kept word three fields of ``bits_per_word``
bits are taken: its lowest bits, its highest bits, and its highest bits in
reversed order.  ``dims`` consecutive kept words make one point of
``dims * bits_per_word`` bits per field (the first word most significant),
and ``points`` points make a block, in which the repeated spacings Y are
counted as in birthday_spacings.py.  Each field's Y is summed over the
blocks and compared with Poisson(blocks * E[Y]), E[Y] from
birthday_spacings.expected_collisions (exact to 6e-7 for n/k up to 2^-14),
in both tails: three results, six tail checks.  4096 points of 8 x 4 bits
per block (the defaults) make lambda = 4; with one word in 4096 of 64-bit
words a block spans 1 GiB of the stream.

Why it bites: an LCG modulo 2^K keeps its lattice under decimation, and
its outputs taken ``step`` = 2^s apart are an LCG whose multiplier a^(2^s)
is 1 modulo 2^(s+2): a far poorer lattice than a's.  Truncating the state
to its top bits hides the low-bit patterns PractRand looks at, but not
this.  SmokeRand reports 128-bit LCGs with their low 64 bits dropped caught
with step 4096 in 1 GiB (PractRand 0.94: 64 GiB) and with their low 96
bits dropped with step 2^18 (PractRand: none to 32 TiB).  The fields are
4 bits wide so that a block needs only 32,768 kept words: the cost is
reading one word in ``step``, nearly nothing.

Parameters:
  word_bytes     bytes per word: 4 or 8 (default 8)
  step           keep one word in every ``step`` (default 1: every word,
                 SmokeRand's bspace4_8d; the suites use 4096 and 2^18)
  points         n, points per block (default 4096)
  bits_per_word  bits of each field (default 4)
  dims           kept words per point (default 8); dims * bits_per_word <= 64
Needs one complete block: step * points * dims * word_bytes bytes from the
start of the stream; lambda = n^3 / (4 k) at most 16 and n / k at most 2^-14,
as birthday_spacings.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from randqa.battery import _spacings
from randqa.battery._blocks import WholeBlockTest
from randqa.battery.base import OBJECT_BYTES, MemoryNeed, Range
from randqa.battery.birthday_spacings import block_law, kernel_scratch_bytes
from randqa.results import TestResult, insufficient, poisson_cdf, poisson_sf
from randqa.sizes import format_size

#: the fields of a kept word, as result names show them (for 4 bits of 64-bit words)
FIELDS = ("low{bits}/{width}", "high{bits}/{width}", "high{bits}/{width},reversed")


@lru_cache(maxsize=None)
def reversal(bits: int) -> np.ndarray:
    """v -> v with its ``bits`` bits in reverse order, for every v < 2**bits."""
    table = np.zeros(1 << bits, dtype=np.uint64)
    for b in range(bits):
        table |= ((np.arange(1 << bits, dtype=np.uint64) >> np.uint64(b)) & np.uint64(1)) << np.uint64(bits - 1 - b)
    table.setflags(write=False)
    return table


@dataclass(eq=False, repr=False, kw_only=True)
class DecimatedSpacings(WholeBlockTest):
    name = "decimated_spacings"
    parameter_ranges: ClassVar[dict[str, Range]] = {
        "word_bytes": Range(4, 8), "step": Range(1, 1 << 30), "points": Range(2, 1 << 16),
        "bits_per_word": Range(1, 16), "dims": Range(1, 64)}

    word_bytes: int = 8
    step: int = 1
    points: int = 4096
    bits_per_word: int = 4
    dims: int = 8

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        p = cls.with_defaults(params)
        kept = p["points"] * p["dims"]
        cell_bits = p["dims"] * p["bits_per_word"]
        # the kept words before the first block boundary and of the block in
        # progress; per block a field's values, points and keys (8 bytes a
        # kept word each) and the kernel's scratch; a chunk's kept words
        held = 2 * 8 * kept + (8 << p["bits_per_word"]) + OBJECT_BYTES
        working = 4 * 8 * kept + kernel_scratch_bytes(p["points"], cell_bits) + 8 * (chunk_bytes // p["step"] + 2)
        return MemoryNeed(held, working, len(FIELDS))

    def __post_init__(self) -> None:
        word_bytes, step, points, bits_per_word, dims = (
            self.word_bytes, self.step, self.points, self.bits_per_word, self.dims)
        if word_bytes not in (4, 8):
            raise ValueError(f"word_bytes must be 4 or 8, not {word_bytes!r}")
        if not (isinstance(step, int) and step >= 1):
            raise ValueError(f"step must be a positive integer, not {step!r}")
        if not (isinstance(bits_per_word, int) and 1 <= bits_per_word <= 16):
            raise ValueError(f"bits_per_word must be from 1 to 16, not {bits_per_word!r}")
        if not (isinstance(dims, int) and dims >= 1 and dims * bits_per_word <= 64):
            raise ValueError(f"dims * bits_per_word must be at most 64, not {dims} * {bits_per_word}")
        super().__init__(word_bytes)
        self.cell_bits = dims * bits_per_word
        self.lambda_per_block, self.mean_per_block = block_law(points, self.cell_bits)
        self.block_words = points * dims  # kept words per block
        self.first_word = 0  # stream index of the first word this part sees (begin_at)
        self.words_seen = 0
        self.kept_start = 0  # index among the kept words of the first one this part sees
        self.kept_seen = 0
        # the kept words before the first block boundary at or after
        # kept_start (a part that starts inside a block), and those of the
        # block in progress
        self.head = np.zeros(self.block_words, dtype=np.uint64)
        self.tail = np.zeros(self.block_words, dtype=np.uint64)
        self.blocks = 0
        self.collisions = [0] * len(FIELDS)

    @property
    def phase(self) -> int:
        return self.step * self.block_words * self.word_bytes  # where the pattern of kept words and blocks repeats

    def _begin_at(self, position: int) -> None:
        self.first_word = position // self.word_bytes
        self.kept_start = -(-self.first_word // self.step)

    @property
    def _head_size(self) -> int:
        """Kept words from kept_start to the first block boundary."""
        return -self.kept_start % self.block_words

    @property
    def _head_words(self) -> int:
        return min(self.kept_seen, self._head_size)

    def _scan(self, run: np.ndarray) -> None:
        words = run.view(f"<u{self.word_bytes}")
        first = -(self.first_word + self.words_seen) % self.step
        self.words_seen += len(words)
        self._add_kept(words[first :: self.step].astype(np.uint64))

    def _add_kept(self, kept: np.ndarray) -> None:
        """Add kept words, in stream order, to the head, the block in progress
        and the complete blocks."""
        at = 0
        while at < len(kept):
            if self.kept_seen < self._head_size:
                take = min(self._head_size - self.kept_seen, len(kept) - at)
                self.head[self.kept_seen : self.kept_seen + take] = kept[at : at + take]
            else:
                filled = (self.kept_start + self.kept_seen) % self.block_words
                take = min(self.block_words - filled, len(kept) - at)
                self.tail[filled : filled + take] = kept[at : at + take]
                if filled + take == self.block_words:
                    self._count_block(self.tail)
            at, self.kept_seen = at + take, self.kept_seen + take

    def _count_block(self, words: np.ndarray) -> None:
        mask = np.uint64((1 << self.bits_per_word) - 1)
        high = words >> np.uint64(8 * self.word_bytes - self.bits_per_word)
        key_bytes = 4 if self.cell_bits <= 32 else 8
        counts = np.empty(1, dtype=np.int64)
        for f, values in enumerate((words & mask, high, reversal(self.bits_per_word)[high])):
            keys = np.zeros(self.points, dtype=np.uint64)
            for d, column in enumerate(values.reshape(self.points, self.dims).T):  # the first word most significant
                keys |= column << np.uint64(self.bits_per_word * (self.dims - 1 - d))
            keys <<= np.uint64(8 * key_bytes - self.cell_bits)  # the kernel reads the top cell_bits of each key
            _spacings.spacing_collisions(keys.astype(f"<u{key_bytes}"), self.points, key_bytes, self.cell_bits, 1, counts)
            self.collisions[f] += int(counts[0])
        self.blocks += 1

    def _add_counts(self, other: "DecimatedSpacings") -> None:
        self.words_seen += other.words_seen
        head = other._head_words
        self._add_kept(other.head[:head])
        if other.kept_seen > head:  # the right part reached a block boundary, and so has this one now
            self.blocks += other.blocks
            self.collisions = [a + b for a, b in zip(self.collisions, other.collisions)]
            self.tail = other.tail.copy()
            self.kept_seen += other.kept_seen - head

    def finalize(self) -> list[TestResult]:
        names = [f"{self.name}[{field.format(bits=self.bits_per_word, width=8 * self.word_bytes)},step={self.step}]"
                 for field in FIELDS]
        if self.blocks == 0:
            needs = (f"at least {format_size(self.step * self.block_words * self.word_bytes)} from the start of the "
                     f"stream (one block of {self.points} points)")
            return [insufficient(name, needs) for name in names]
        mean = self.blocks * self.mean_per_block
        return [TestResult(name=name, statistic=float(total), pvalue=poisson_sf(total - 1, mean),
                           pvalue_low=poisson_cdf(total, mean), pvalue_kind="discrete",
                           details={"blocks": self.blocks, "expected": mean, "lambda_per_block": self.lambda_per_block,
                                    "cell_bits": self.cell_bits, "kept_words": self.blocks * self.block_words})
                for name, total in zip(names, self.collisions)]
