"""Marsaglia's birthday spacings test, parameterised as in TestU01.

Sources: G. Marsaglia, DIEHARD (1995), "birthday spacings"; D. E. Knuth,
TAOCP vol. 2, 3rd ed., section 3.3.2 J; P. L'Ecuyer and R. Simard,
"TestU01", ACM TOMS 33 (2007), smarsa_BirthdaySpacings, and L'Ecuyer and
Simard, "On the performance of birthday spacings tests with certain families
of random number generators", Math. Comput. Simul. 55 (2001) 131-137.

The stream is cut into blocks of n points.  A point is ``dims`` consecutive
little-endian words of ``word_bytes`` bytes each, keeping the top
``bits_per_word`` bits of every word, so it falls in one of
k = 2**(dims * bits_per_word) cells.  In each block the n points are sorted,
the n spacings between neighbours are taken (with wrap-around, Knuth's
definition), and Y = the number of spacing values that repeat an earlier
one.  Y is approximately Poisson with lambda = n^3 / (4 k).  As in TestU01
the Y of all N complete blocks are summed, but the sum is compared with
Poisson(N mu) rather than TestU01's Poisson(N lambda).
p-value: P(X >= total); the lower tail P(X <= total) is reported too (too
few collisions is as wrong as too many).

The mean used is mu (1 - n/2k), where mu is E[Y] in the limit of many
cells per point (``mean_collisions``) and (1 - n/2k) corrects for whole
cells (``expected_collisions``); it is exact to 6e-7 for n/k up to 2^-14,
and larger n/k is refused.  docs/notes/birthday-spacings-mean.md derives it
and shows why lambda itself drifts a good generator into failure.

Why it bites: the points of an LCG or of a lagged-Fibonacci generator lie on
a lattice, so their spacings take far fewer distinct values than random
points' do (L'Ecuyer and Simard 2001 show every LCG fails once n is about
the cube root of its period).  The default, 4096 32-bit points per 16 KiB
block (lambda = 4), exposes the byte stream of MSVC's ``rand()`` whose
four consecutive low bytes span only 2**24 of the 2**32 cells.  On full
64-bit points (SmokeRand's bspace64_1d; the frontier suite: 6,553,600
points per 50 MiB block, lambda = 3.8) the multiplicative LCG modulo the
prime 2^64 - 59 makes too few repeats, under half the mean: the lower
tail fails it at 512 MiB, where PractRand 0.94 sees nothing in 4 GiB.

Parameters:
  points         n, points per block (default 4096)
  word_bytes     bytes per word: 1, 2, 4 or 8 (default 4)
  bits_per_word  high bits kept from each word (default 8 * word_bytes)
  dims           words per point, t (default 1); dims * bits_per_word <= 64
  every          test the first block of every ``every`` (default 1: all);
                 the first block tested is the stream's first, and the
                 blocks tested stay disjoint, so the law of the sum holds
Needs one complete block (n * dims * word_bytes bytes); lambda must be at
most 16, where the Poisson approximation is good, and n/k at most 2^-14.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, ClassVar

import numpy as np

from randqa.battery import _spacings
from randqa.battery._blocks import WholeBlockTest, pending_block_bytes
from randqa.battery.base import OBJECT_BYTES, MemoryNeed, Range
from randqa.results import TestResult, insufficient, poisson_cdf, poisson_sf

MAX_LAMBDA = 16.0
MAX_POINTS_PER_CELL = 2.0**-14  # n/k, up to which mu (1 - n/2k) is within 6e-7 of E[Y]


def mean_collisions(points: int, cell_bits: int) -> float:
    """E[Y] for ``points`` uniform points in 2**cell_bits cells, in the limit
    of many cells per point (see the module doc)."""
    n, cells = points, 2.0**cell_bits
    term = n * (n - 1) ** 2 / (4 * cells)  # E[P_2]
    total, sign, j = 0.0, 1.0, 2
    # the term ratio falls with j, so a term still growing exceeds the total
    while j <= n and term > 1e-17 * abs(total):
        total += sign * term
        term *= (n - j) ** 2 * j / ((j + 1) ** 2 * cells)  # E[P_(j+1)] / E[P_j]
        sign, j = -sign, j + 1
    return total


def expected_collisions(points: int, cell_bits: int) -> float:
    """E[Y] in whole cells: the many-cells limit less its leading error, n/2k."""
    return mean_collisions(points, cell_bits) * (1 - points / 2.0 ** (cell_bits + 1))


def block_law(points: int, cell_bits: int) -> tuple[float, float]:
    """(lambda, E[Y]) of a block of ``points`` points in 2**cell_bits cells;
    ValueError where the Poisson law or the mean is not exact enough."""
    lam = points**3 / 4 / 2.0**cell_bits
    if lam > MAX_LAMBDA:
        raise ValueError(f"lambda = n^3/4k = {lam:g} is over {MAX_LAMBDA:g}: use fewer points or more bits per point")
    if points > MAX_POINTS_PER_CELL * 2.0**cell_bits:
        raise ValueError(f"{points} points in 2^{cell_bits} cells is over 2^-14 points per cell, where the expected "
                         "collision count is no longer exact enough: use more bits per point")
    return lam, expected_collisions(points, cell_bits)


def kernel_scratch_bytes(points: int, cell_bits: int) -> int:
    """What _spacings.c allocates to count blocks of ``points`` points of
    ``cell_bits`` bits (count_blocks): four buffers of the points and the
    bucket and filter tables; for blocks of more than 65,536 wide points
    (count_large_blocks) two buffers, a cache line per bucket and the
    counters, in whole 2 MiB pages."""
    log2 = points.bit_length() - 1
    if points <= 1 << 16 or cell_bits <= 32:
        bucket_bits, filter_bits = (min(max(1, log2 - 1), cell_bits), log2 + 3) if points <= 1 << 16 else (1, 1)
        return 4 * (8 if cell_bits > 32 else 4) * points + (4 << bucket_bits) + (1 << filter_bits) + (1 << 14)
    buckets, buckets2 = (1 << min(bits, max(1, log2 - 11)) for bits in (cell_bits, 64))
    most = max(buckets, buckets2)
    scratch = 16 * -(-points // 8) * 8 + 65 * most + 8 * (1 << 16) + 4 * (buckets + buckets2) + 4 * (1 << 14)
    return -(-scratch // (2 << 20)) * (2 << 20)


@dataclass(eq=False, repr=False, kw_only=True)
class BirthdaySpacings(WholeBlockTest):
    name = "birthday_spacings"
    parameter_ranges: ClassVar[dict[str, Range]] = {
        "points": Range(2, 1 << 24), "word_bytes": Range(1, 8), "bits_per_word": Range(1, 64), "dims": Range(1, 64), "every": Range(1, 1 << 24)}

    points: int = 4096
    word_bytes: int = 4
    bits_per_word: int | None = None  # None: 8 * word_bytes
    dims: int = 1
    every: int = 1

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        p = cls.with_defaults(params)
        points = p["points"]
        block = points * p["dims"] * p["word_bytes"]
        pending_held, pending_working = pending_block_bytes(block, chunk_bytes)
        # the kernel's scratch for a block's points, and a count per block
        bits_per_word = p["bits_per_word"] or 8 * p["word_bytes"]
        scan = kernel_scratch_bytes(points, p["dims"] * bits_per_word) + 48 * (chunk_bytes // block + 1)
        return MemoryNeed(pending_held + OBJECT_BYTES, pending_working + scan)

    def __post_init__(self) -> None:
        points, word_bytes, dims, every = self.points, self.word_bytes, self.dims, self.every
        if word_bytes not in (1, 2, 4, 8):
            raise ValueError(f"word_bytes must be 1, 2, 4 or 8, not {word_bytes!r}")
        if self.bits_per_word is None:
            self.bits_per_word = 8 * word_bytes
        bits_per_word = self.bits_per_word
        if not (isinstance(points, int) and points >= 2):
            raise ValueError(f"points must be an integer >= 2, not {points!r}")
        if not (1 <= bits_per_word <= 8 * word_bytes):
            raise ValueError(f"bits_per_word must be between 1 and {8 * word_bytes}, not {bits_per_word!r}")
        if not (dims >= 1 and dims * bits_per_word <= 64):
            raise ValueError(f"dims * bits_per_word must be at most 64, not {dims} * {bits_per_word}")
        if not (isinstance(every, int) and not isinstance(every, bool) and every >= 1):
            raise ValueError(f"every must be a positive integer, not {every!r}")
        self.cell_bits = dims * bits_per_word
        self.lambda_per_block, self.mean_per_block = block_law(points, self.cell_bits)
        self.block_bytes = points * dims * word_bytes
        super().__init__(self.block_bytes)
        self.blocks = 0  # blocks tested
        self.passed = 0  # whole blocks seen, tested or not
        self.collisions = 0
        self._lock = threading.Lock()

    @property
    def alignment(self) -> int:
        return self.block_bytes * self.every  # the right part's first block is one to test

    def _tested(self, run: np.ndarray) -> tuple[np.ndarray, int]:
        """The blocks of ``run`` (whole blocks, the first being block number
        ``passed`` of the stream) that are tested: (the bytes from the first
        of them on, how many there are); they lie ``every`` blocks apart."""
        blocks = len(run) // self.block_bytes
        first = -self.passed % self.every
        self.passed += blocks
        tested = max(0, -(-(blocks - first) // self.every))
        return run[first * self.block_bytes :], tested

    def _scan(self, run: np.ndarray) -> None:
        self._count(*self._tested(run))

    def _count(self, run: np.ndarray, blocks: int) -> None:
        """Count the first ``blocks`` blocks of ``run`` that lie ``every`` blocks apart."""
        if blocks == 0:
            return
        stride = self.every * self.block_bytes
        run = run[: (blocks - 1) * stride + self.block_bytes]
        counts = np.empty(blocks, dtype=np.int64)
        _spacings.spacing_collisions(run, self.points, self.word_bytes, self.bits_per_word, self.dims, counts, stride)
        with self._lock:  # the parts of one chunk may be counted in parallel
            self.blocks += len(counts)
            self.collisions += int(counts.sum())

    def _parallel_parts(self, chunk: np.ndarray, parts: int) -> list[Callable[[], None]]:
        # the unfinished block is carried over now, in stream order; the
        # whole blocks are independent, so they split into parts freely
        tasks = []
        stride = self.every * self.block_bytes
        for run in self._blocks.split(chunk):
            run, blocks = self._tested(run)
            bounds = [blocks * i // parts for i in range(parts + 1)]
            tasks += [partial(self._count, run[lo * stride :], hi - lo) for lo, hi in zip(bounds, bounds[1:]) if hi > lo]
        return tasks

    def _add_counts(self, other: "BirthdaySpacings") -> None:
        self.blocks += other.blocks
        self.passed += other.passed
        self.collisions += other.collisions

    def finalize(self) -> list[TestResult]:
        if self.blocks == 0:
            return [insufficient(self.name, f"at least {self.block_bytes} bytes (one block of {self.points} points)")]
        mean = self.blocks * self.mean_per_block
        total = self.collisions
        return [
            TestResult(
                name=self.name,
                statistic=float(total),
                pvalue=poisson_sf(total - 1, mean),
                pvalue_low=poisson_cdf(total, mean),
                pvalue_kind="discrete",
                details={"blocks": self.blocks, "expected": mean, "mean_per_block": self.mean_per_block,
                         "lambda_per_block": self.lambda_per_block, "cell_bits": self.cell_bits,
                         **({"every": self.every} if self.every > 1 else {})},
            )
        ]
