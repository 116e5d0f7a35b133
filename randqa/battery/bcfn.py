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

The bytes are read once: block sizes that divide one another form a chain
whose smallest level counts the bit weights of the bytes and each larger
level's block weight is the sum of the weights of the level below's blocks
(randqa/battery/_block_weights.c), so a level costs one addition and one
count per block of its own (bytes alone go through _counts' SSSE3 kernel).
Every doubling level from 16 to 16384 bits costs about 1.5 times the five
levels of today's standard entry together (benchmarks/profile_suite.py).

Parameters:
  block_bits    list of block sizes in bits, multiples of 8 up to 2^20
                (default [8, 32, 256, 2048, 16384]); one result each
  letters       d, 2 to 16 (default 5)
  tuple_length  t, 2 to 16, with ceil(log2 d) * t <= 20 (default 4)
  min_tuple_length
                while a level has too few blocks for t-letter words, it tests
                the longest words it has enough blocks for, down to this
                length (default t: none shorter), as PractRand's BCFN does;
                the shorter words' counts are sums of the t-letter ones
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

from randqa.battery import _block_weights, _counts
from randqa.battery._tuple_law import withhold_unless_close
from randqa.battery._blocks import WholeBlocks, pending_block_bytes
from randqa.battery.base import OBJECT_BYTES, Accumulator, MemoryNeed, Range
from randqa.results import TestResult, chi_square_result, insufficient, pearson_statistic

MIN_EXPECTED = 14
#: from this many in the rarest cell on, a tail below fail_at_once fails
DECISIVE_MIN_EXPECTED = 5
MAX_BLOCK_BITS = 2**20
MAX_TUPLE_LENGTH = 16
#: per level: the index of the latest letters, blocks seen, and the unfinished block's weight and parts
STATE_ITEMS = 4


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


def tuple_counts_memory(block_bits: list[int], letters: int, tuple_length: int, chunk_bytes: int, *,
                        finalize_arrays: int) -> tuple[int, int]:
    """(held, working) bytes of counting overlapping ``tuple_length``-tuples
    of Hamming-weight letters at each block size: the counts by packed
    index, an unfinished block, the weight table; at the peak of a call the
    first t-1 blocks' letters (one byte per bit), or at finalize
    ``tuple_length + finalize_arrays`` arrays of 8 bytes per cell."""
    t = tuple_length
    cells = 1 << (max(1, (letters - 1).bit_length()) * t)
    held, working = OBJECT_BYTES, 0
    for bits in block_bits:
        block = bits // 8
        pending_held, pending_working = pending_block_bytes(block, chunk_bytes)
        held += 8 * cells + pending_held + 16 * (bits + 1)
        working = max(working, pending_working + 24 * t * block, (t + finalize_arrays) * 8 * cells)
    return held, working


class _Level:
    """What one block size is: its letters, their probabilities, its word
    count.  Its counts are kept by packed index (each letter in
    ``letter_bits`` bits, the newest lowest: no division per block), in its
    chain's arrays (``_Chain.rows``)."""

    def __init__(self, block_bits: int, letters: int, tuple_length: int) -> None:
        self.block_bytes = block_bits // 8
        self.table, self.probs = weight_letters(block_bits, letters)
        self.letters = len(self.probs)
        self.letter_bits = max(1, (self.letters - 1).bit_length())
        self.cells = self.letters**tuple_length
        self.packed_cells = 2 ** (self.letter_bits * tuple_length)
        self.tuple_length = tuple_length

    def recent_letters(self, state: np.ndarray) -> list[int]:
        """The last min(blocks, tuple_length - 1) letters, oldest first."""
        k = min(int(state[1]), self.tuple_length - 1)
        mask = (1 << self.letter_bits) - 1
        return [(int(state[0]) >> (self.letter_bits * j)) & mask for j in range(k - 1, -1, -1)]

    def head(self, state: np.ndarray, heads: np.ndarray) -> list[int]:
        """The first min(blocks, tuple_length - 1) letters."""
        return [int(x) for x in heads[: min(int(state[1]), self.tuple_length - 1)]]

    def add_words(self, counts: np.ndarray, letters: list[int], first_end: int) -> None:
        """Count the t-letter words of ``letters`` that end at index first_end or later."""
        add_packed_words(counts, letters, first_end, self.tuple_length, self.letter_bits)

    def word_counts(self, packed: np.ndarray) -> np.ndarray:
        """Packed counts turned into counts of base-``letters`` words (first letter most significant)."""
        return packed_to_word_counts(packed, self.tuple_length, self.letter_bits, self.letters)


def add_packed_words(counts: np.ndarray, letters: list[int], first_end: int, tuple_length: int,
                     letter_bits: int) -> None:
    """Count the ``tuple_length``-letter words of ``letters`` that end at
    index first_end or later, by packed index (``letter_bits`` bits a
    letter, the newest lowest)."""
    t = tuple_length
    for end in range(max(first_end, t - 1), len(letters)):
        index = 0
        for letter in letters[end - t + 1 : end + 1]:
            index = (index << letter_bits) | letter
        counts[index] += 1


def packed_to_word_counts(packed: np.ndarray, tuple_length: int, letter_bits: int, letters: int) -> np.ndarray:
    """Counts by packed index turned into counts of base-``letters`` words
    (first letter most significant); packed indices with a digit of
    ``letters`` or more never occur and are dropped."""
    t, b = tuple_length, letter_bits
    indices = np.arange(len(packed))
    digits = [(indices >> (b * j)) & ((1 << b) - 1) for j in range(t - 1, -1, -1)]
    valid = np.all([d < letters for d in digits], axis=0)
    word = np.zeros(len(packed), dtype=np.int64)
    for d in digits:
        word = word * letters + d
    counts = np.zeros(letters**t, dtype=np.int64)
    np.add.at(counts, word[valid], packed[valid].astype(np.int64))  # in integers: float weights round past 2^53
    return counts


class _Chain:
    """Levels whose block sizes each divide the next: the bytes are read once,
    as blocks of the smallest size, and each larger level's block weights are
    sums of the level below's (randqa/battery/_block_weights.c)."""

    def __init__(self, levels: list[_Level]) -> None:
        self.levels = levels
        self.base_bytes = levels[0].block_bytes
        self.groups = np.array([1] + [b.block_bytes // a.block_bytes for a, b in zip(levels, levels[1:])], dtype=np.int64)
        self.letter_bits = np.array([level.letter_bits for level in levels], dtype=np.int64)
        self.tables = b"".join(level.table.tobytes() for level in levels)
        self.offsets = np.cumsum([0] + [level.packed_cells for level in levels]).tolist()
        self.counts = np.zeros(self.offsets[-1], dtype=np.int64)
        self.state = np.zeros((len(levels), STATE_ITEMS), dtype=np.int64)
        self.heads = np.zeros((len(levels), levels[0].tuple_length - 1), dtype=np.int64)
        self.splitter = WholeBlocks(self.base_bytes)

    def rows(self, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Level k's counts, state (index, blocks, unfinished block's weight
        and parts) and first letters: views, made when asked for, since a
        loaded state replaces the arrays."""
        return self.counts[self.offsets[k] : self.offsets[k + 1]], self.state[k], self.heads[k]

    def update(self, chunk: np.ndarray) -> None:
        if self.base_bytes == 1 and len(self.levels) == 1:
            self._update_bytes(chunk)
            return
        for run in self.splitter.split(chunk):
            _block_weights.block_weight_tuples(
                run, self.base_bytes, self.groups, self.letter_bits, self.tables, self.levels[0].tuple_length,
                self.counts, self.state, self.heads)

    def _update_bytes(self, chunk: np.ndarray) -> None:
        """Bytes as blocks, through _counts' kernel, which counts them with SSSE3."""
        level = self.levels[0]
        t = level.tuple_length
        state, heads = self.state[0], self.heads[0]
        blocks = int(state[1])
        if blocks < t - 1:
            first = chunk[: t - 1 - blocks]
            heads[blocks : blocks + len(first)] = level.table[np.unpackbits(first).reshape(-1, 8).sum(axis=1)]
        index, _ = _counts.hamming_tuple_scan(
            chunk, 1, self.tables, int(self.letter_bits[0]), t, self.counts, int(state[0]), min(blocks, t))
        state[0], state[1] = index, blocks + len(chunk)

    def join(self, other: "_Chain") -> None:
        """Become the chain of this stream followed by ``other``'s (cut at a
        whole block of the largest size, so nothing is unfinished here)."""
        for k, level in enumerate(self.levels):
            counts, state, heads = self.rows(k)
            their_counts, their_state, their_heads = other.rows(k)
            t = level.tuple_length
            counts += their_counts
            # the words that span the join: our last t-1 letters then their first
            before = level.recent_letters(state)
            their_head = level.head(their_state, their_heads)
            level.add_words(counts, before + their_head, len(before))
            head = (level.head(state, heads) + their_head)[: t - 1]
            index = 0
            for letter in (before + level.recent_letters(their_state))[-(t - 1) :]:
                index = (index << level.letter_bits) | letter
            blocks = int(state[1] + their_state[1])
            state[:] = their_state
            state[0], state[1] = index, blocks
            heads[: len(head)] = head
        self.splitter.take_over(other.splitter)


def checked_letter_blocks(block_bits: list[int] | tuple[int, ...], letters: int) -> list[int]:
    """``block_bits`` as a list, checked with ``letters``, as bcfn and
    hamming_patterns take them: distinct multiples of 8 up to
    MAX_BLOCK_BITS, and 2 to 16 letters; ValueError otherwise."""
    block_bits = list(block_bits)
    if not block_bits or any(
        not isinstance(b, int) or isinstance(b, bool) or b < 8 or b % 8 or b > MAX_BLOCK_BITS for b in block_bits
    ):
        raise ValueError(f"block_bits must be a non-empty list of multiples of 8 up to {MAX_BLOCK_BITS}, not {block_bits!r}")
    if len(set(block_bits)) != len(block_bits):
        raise ValueError(f"block_bits must not repeat a size: {block_bits!r}")
    if not (isinstance(letters, int) and not isinstance(letters, bool) and 2 <= letters <= 16):
        raise ValueError(f"letters must be an integer from 2 to 16, not {letters!r}")
    return block_bits


def divisibility_chains(block_bits: list[int]) -> list[list[int]]:
    """The block sizes, smallest first, grouped so that each divides the next
    in its group: each size joins the first group whose largest divides it
    (bytes are a group of their own)."""
    chains: list[list[int]] = []
    for bits in sorted(block_bits):
        # bytes alone: _counts' kernel counts them twice as fast as a level of a chain
        for chain in chains if bits > 8 else []:
            if bits % chain[-1] == 0 and chain[0] > 8:
                chain.append(bits)
                break
        else:
            chains.append([bits])
    return chains


class BCFN(Accumulator):
    name = "bcfn"
    parameter_ranges: ClassVar[dict[str, Range]] = {
        "block_bits": Range(8, MAX_BLOCK_BITS, items=16), "letters": Range(2, 16), "tuple_length": Range(2, MAX_TUPLE_LENGTH),
        "min_tuple_length": Range(2, MAX_TUPLE_LENGTH)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        p = cls.with_defaults(params)
        # at finalize the counts turned into counts of words: the packed
        # indices, their t digits, the words and their counts
        held, working = tuple_counts_memory(p["block_bits"], p["letters"], p["tuple_length"], chunk_bytes,
                                            finalize_arrays=8)
        return MemoryNeed(held, working, len(p["block_bits"]))

    def __init__(
        self,
        *,
        block_bits: list[int] | tuple[int, ...] = (8, 32, 256, 2048, 16384),
        letters: int = 5,
        tuple_length: int = 4,
        min_tuple_length: int | None = None,
    ) -> None:
        super().__init__()
        block_bits = checked_letter_blocks(block_bits, letters)
        if not (isinstance(tuple_length, int) and 2 <= tuple_length <= MAX_TUPLE_LENGTH
                and (letters - 1).bit_length() * tuple_length <= 20):
            raise ValueError(
                f"tuple_length must be from 2 to {MAX_TUPLE_LENGTH} with bits_per_letter * tuple_length <= 20 "
                f"({(letters - 1).bit_length()} bits per letter for {letters} letters), not {tuple_length!r}"
            )
        if min_tuple_length is None:
            min_tuple_length = tuple_length
        if not (isinstance(min_tuple_length, int) and not isinstance(min_tuple_length, bool)
                and 2 <= min_tuple_length <= tuple_length):
            raise ValueError(f"min_tuple_length must be from 2 to tuple_length ({tuple_length!r}), not {min_tuple_length!r}")
        self.min_tuple_length = min_tuple_length
        self.block_bits = block_bits
        self.letters = letters
        self.tuple_length = tuple_length
        by_size = {b: _Level(b, letters, tuple_length) for b in block_bits}
        chains = divisibility_chains(block_bits)
        self.chains = [_Chain([by_size[b] for b in chain]) for chain in chains]
        # each result's chain and place in it, in the order asked for
        self.places = [next((c, chain.index(b)) for c, chain in enumerate(chains) if b in chain) for b in block_bits]

    @property
    def alignment(self) -> int:
        return math.lcm(*(bits // 8 for bits in self.block_bits))

    def _update(self, chunk: np.ndarray) -> None:
        for chain in self.chains:
            chain.update(chunk)

    def _merge(self, other: Accumulator) -> None:
        for mine, theirs in zip(self.chains, other.chains):
            mine.join(theirs)

    def finalize(self) -> list[TestResult]:
        return [self._level_result(self.chains[c], k) for c, k in self.places]

    def _level_result(self, chain: _Chain, k: int) -> TestResult:
        level = chain.levels[k]
        level_counts, state, heads = chain.rows(k)
        blocks = int(state[1])
        label = f"{self.name}[block_bits={8 * level.block_bytes}]"
        rarest = level.probs.min()

        def needed(t: int, expected: float) -> int:
            return math.ceil(expected / rarest**t)

        # the longest tuples with enough blocks, down to min_tuple_length: the
        # length depends on the number of blocks only, never on the counts
        t = level.tuple_length
        while t > self.min_tuple_length and blocks < needed(t, MIN_EXPECTED):
            t -= 1
        needs = f"at least {needed(t, MIN_EXPECTED) * level.block_bytes} bytes ({needed(t, MIN_EXPECTED)} blocks)"
        if blocks < needed(t, DECISIVE_MIN_EXPECTED):
            return insufficient(label, needs, blocks=blocks)
        word_probs = level.probs
        for _ in range(t - 1):
            word_probs = np.outer(word_probs, level.probs).ravel()
        packed = level_counts.copy()
        # the words that wrap around: the last t-1 letters then the first t-1
        tail = level.recent_letters(state)
        level.add_words(packed, tail + level.head(state, heads), len(tail))
        # counted circularly, the words of their first t letters are the t-letter words
        counts = level.word_counts(packed).reshape(level.letters**t, -1).sum(axis=1)
        n = blocks
        shorter = counts.reshape(-1, level.letters).sum(axis=1)  # (t-1)-letter words
        shorter_probs = word_probs.reshape(-1, level.letters).sum(axis=1)
        q_t = pearson_statistic(counts, n * word_probs)
        q_t1 = pearson_statistic(shorter, n * shorter_probs)
        statistic = q_t - q_t1
        cells = level.letters**t
        dof = cells - cells // level.letters
        result = chi_square_result(label, statistic, dof, {"blocks": n, "letters": level.letters, "tuple_length": t,
                                                           "dof": dof, "letter_probabilities": level.probs.tolist()})
        if n < needed(t, MIN_EXPECTED):
            result.withhold_verdict_unless_decisive(needs)
        else:
            # few cells (short or 2-letter words) need more than MIN_EXPECTED for the chi-square law
            withhold_unless_close(result, n * word_probs, dof)
        return result
