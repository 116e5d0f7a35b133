"""Counter-affine digraph: pairs of consecutive bytes whose bias moves with
a counter that advances one step per byte, as RC4's index i does.

Sources: S. R. Fluhrer and D. A. McGrew, "Statistical analysis of the
alleged RC4 keystream generator", FSE 2000, LNCS 1978, pp. 19-30 (RC4's
digraph biases, cells such as (i + 1, 255) and (255, i + 1) that follow the
index i, which advances by one per output byte); C. Doty-Humphrey,
PractRand 0.94, src/RNGs/other/indirection.cpp (rc4_weakenedC, which
outputs S[S[j]] after RC4's swap, and rc4_weakenedD, S[S[j]] + j: RC4
variants whose pairs lean on cells that move with i at other slopes,
(1, 2) for rc4_weakenedD).  The family of cells
and the exact binomial law of each count are written here from the
arithmetic; randqa/battery/fluhrer_mcgrew.py tests RC4's own cells.

Formula.  A bias of the form (z_t, z_(t+1)) = (alpha i + c0, beta i + c1),
i = t + f mod 256 with f the unknown phase between the stream position t
and the generator's counter, falls in one cell of the table

    H_ab[(z_t - alpha t) mod 256][(z_(t+1) - beta t) mod 256]

whatever f is: the phase only moves the cell to (c0 + alpha f, c1 + beta
f).  For each of the 8 slopes (alpha, beta) in {0, 1, 2}^2 other than
(0, 0) (Fluhrer and McGrew's biases have slopes 0 and 1) the pairs are
counted in such a 65,536-cell table.  For independent uniform bytes each
cell count is exactly Binomial(m, 2^-16), m the pairs counted: each pair
counted, minus its offsets, is a uniform 16-bit value, independent of the
other pairs, which share no byte with it (below).  The statistic is the most
extreme cell of all tables and both tails: ``pvalue`` is its exact binomial
tail (randqa.results.binomial_tails) times 8 * 65,536 * 2 (Bonferroni over
the cells and tails: the tables share pairs), a conservative bound.

The pairs counted share no byte: in the first ``block`` bytes (an even
number) of every ``period`` the pairs (z_t, z_(t+1)) with t even, so that
the law above is exact.  (Overlapping pairs would make a count's variance
up to 2^-7 larger than the binomial's where z_(t+1) = z_t + 1, in the
table of slopes (1, 1); disjoint pairs cost the same per pair counted and
give the same power per pair.)  Sampling keeps the cost low: counting
every pair costs 8 scattered increments per byte into 4 MiB of tables,
about 20 CPU-s per GiB.  Positions are the stream's: a pair cut by a chunk
or by the join of two merged parts is counted once, by the part that holds
its second byte.

Parameters:
  block   the bytes read at the start of each period, an even number from
          2 to ``period`` (default 8,192: 4,096 pairs)
  period  one block every ``period`` bytes, a multiple of 256 from 256 to
          2^40 (default 524,288: 1 byte in 64 read, 1 pair in 128
          positions; with block = period every byte is read)
Minimum data: ``MIN_PAIRS`` (65,536) pairs, one expected per cell: 15
periods and one block with the defaults (7,872,512 bytes, 7.5 MiB).
Memory: 8 tables of 65,536 32-bit counts, moved to 64-bit totals before
they can wrap (6 MiB); time: 8 increments per pair counted (about 0.1
CPU-s per GiB with the defaults).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from randqa.battery import _affine_pairs
from randqa.battery._stream_ends import StreamEnds
from randqa.battery._wide_counts import WideCounts
from randqa.battery.base import OBJECT_BYTES, Accumulator, MemoryNeed, Range, is_whole
from randqa.results import TestResult, binomial_tails, insufficient

#: the slopes (alpha, beta) of the tables, in the kernel's order
SLOPES = ((0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2))
CELLS = 65536
CELL_PROBABILITY = 2.0**-16
#: cells times tails: the Bonferroni factor
LOOKS = len(SLOPES) * CELLS * 2
#: one pair expected per cell
MIN_PAIRS = CELLS
MAX_PERIOD = 1 << 40


def bytes_needed(pairs: int, block: int, period: int) -> int:
    """The bytes from a multiple of ``period`` that hold ``pairs`` sampled pairs."""
    whole, rest = divmod(pairs, block // 2)
    if rest == 0:
        return (whole - 1) * period + block
    return whole * period + 2 * rest


class AffineDigraph(Accumulator):
    name = "affine_digraph"
    parameter_ranges: ClassVar[dict[str, Range]] = {"block": Range(2, MAX_PERIOD), "period": Range(256, MAX_PERIOD)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        # held: the 32-bit tables and the 64-bit totals, the byte at either
        # end; working: the kernel's cells of one run (8 KiB on its stack),
        # and finalize's sum of one table's two and the tails of the extremes
        cells = len(SLOPES) * CELLS
        return MemoryNeed(12 * cells + 64 + OBJECT_BYTES, 8 * CELLS + 65536)

    def __init__(self, *, block: int = 8192, period: int = 524288) -> None:
        if not (is_whole(period) and 256 <= period <= MAX_PERIOD and period % 256 == 0):
            raise ValueError(f"period must be a multiple of 256 from 256 to 2^40, not {period!r}")
        if not (is_whole(block) and 2 <= block <= period and block % 2 == 0):
            raise ValueError(f"block must be an even number from 2 to period ({period}), not {block!r}")
        super().__init__()
        self.block = block
        self.period = period
        self.cells = WideCounts(len(SLOPES) * CELLS)  # the 8 tables, one after another
        self.pairs = 0
        # the first and last byte: the pair across a chunk's or a merge's join
        self.ends = StreamEnds(1)

    @property
    def phase(self) -> int:
        # a right part not placed with begin_at numbers its bytes from 0: it
        # samples the stream's positions, and t mod 256 agrees, when the left
        # part ends on a whole period (a multiple of 256)
        return self.period

    def _count(self, data: np.ndarray, position: int) -> None:
        last = self.ends.history
        previous = int(last[0]) if len(last) else -1  # -1: no byte before data
        # one pair per two bytes of data, and the one with the byte before it
        self.cells.make_room(len(data) // 2 + 1)
        counted = _affine_pairs.affine_pair_count(data, previous, position, self.period, self.block, self.cells.counts)
        self.pairs += counted
        self.cells.added(counted)

    def _update(self, chunk: np.ndarray) -> None:
        self._count(chunk, self.start + self.bytes_seen)
        self.ends.append(chunk)

    def _merge(self, other: "AffineDigraph") -> None:
        if len(self.ends.history) and len(other.ends.head):
            # the pair of this part's last byte and the other's first
            self._count(other.ends.head, self.start + self.bytes_seen)
        self.cells.merge(other.cells)
        self.pairs += other.pairs
        self.ends.join(other.ends)

    def finalize(self) -> list[TestResult]:
        label = f"{self.name}[block={self.block},period={self.period}]"
        m = self.pairs
        if m < MIN_PAIRS:
            needed = bytes_needed(MIN_PAIRS, self.block, self.period)
            return [insufficient(label, f"at least {needed} bytes ({MIN_PAIRS} pairs of bytes, "
                                        f"{self.block // 2} every {self.period} bytes)", pairs=m)]
        extremes = []  # per table: the highest count, its cell, the lowest, its cell
        for k in range(len(SLOPES)):
            counts = self.cells.total(k * CELLS, (k + 1) * CELLS)  # one table at a time: 512 KiB, not 4 MiB
            top, bottom = int(counts.argmax()), int(counts.argmin())
            extremes.append((int(counts[top]), top, int(counts[bottom]), bottom))
        highest, lowest = np.array([e[0] for e in extremes]), np.array([e[2] for e in extremes])
        # in one table every cell has the same law: its extremes have its smallest tails
        upper = binomial_tails(highest, m, CELL_PROBABILITY)[0]
        lower = binomial_tails(lowest, m, CELL_PROBABILITY)[1]
        tails = np.concatenate([upper, lower])
        worst = int(np.argmin(tails))
        table, high = worst % len(SLOPES), worst < len(SLOPES)
        count, cell = extremes[table][:2] if high else extremes[table][2:]
        expected = m * CELL_PROBABILITY
        tail = float(tails[worst])
        return [TestResult(
            name=label,
            statistic=float((count - expected) / np.sqrt(expected * (1 - CELL_PROBABILITY))),
            pvalue=min(1.0, tail * LOOKS),
            details={
                "pairs": m,
                "slopes": list(SLOPES[table]),
                "cell": [cell >> 8, cell & 255],
                "count": count,
                "expected": round(expected, 3),
                "tail": "upper" if high else "lower",
                "worst_pvalue": tail,
            },
            pvalue_kind="bound",
        )]
