"""Conditional Walsh: the parity of a few bits near a carry-free bit of
16-bit words, by the value of the bits above it in the word between them:
the leak of add-rotate-xor generators with 16-bit words.

Sources: C. Doty-Humphrey, PractRand 0.94, src/RNGs/other/simple.cpp
(arx16, hara16, harx16, learx16, hlearx16: three 16-bit words updated by
a ^= rotl16(b + c, 3) or a += rotl16(b + c, 3), then b and c alike with
rotations 5 and 7 (learx16 and hlearx16 add c + (c << 3) and a + (a << 3)
instead), the output being a); J. L. Walsh, "A closed set of normal
orthogonal functions", Amer. J. Math. 45 (1923), pp. 5-24 (the Walsh
functions: the transform of a table of counts over 9 bits gives every
parity of those bits at once).  The cells and their law are written here
from the generators' arithmetic: the lowest bit of b + c has no carry, so
bit r = 3 of x_n ^ x_(n+1) (of x_(n+1) - x_n for the additive ones) is the
xor of two state bits, and how it changes two outputs later depends on the
carries out of bits r .. r+7 of x_(n+1).

Formula.  The stream is read as little-endian 16-bit words x_0, x_1, ...
and sampled at the word positions n = 0, step, 2 step, ...  Each sample
(the window x_n .. x_(n+3)) has a key v = bits r .. r+7 of x_(n+1) (256
values; bit numbers mod 16) and 9 selected bits s: s0 = bit r of D_n,
s1 = bit r of D_(n+2), s2 .. s8 = bits r .. r+6 of x_(n+2).  Two tables
T[v][s] of 256 x 512 counts are kept: the xor table, D_k = x_k ^ x_(k+1),
and the arith table, D_k = x_(k+1) - x_k mod 2^16.  For every nonzero mask
m of the 9 bits (511) and table

    W_m(v) = sum_s T[v][s] (-1)^popcount(m & s),   c_v = sum_s T[v][s],
    X_m = sum over the keys with c_v > 0 of W_m(v)^2 / c_v,

and X_m is asymptotically chi-square with K degrees of freedom, K the keys
with c_v > 0 (each term W_m(v)^2 / c_v is asymptotically chi-square with
1).  Law: for independent uniform words, given the key, s is uniform on
its 512 values (s0 involves x_n, s1 x_(n+3), s2 .. s8 x_(n+2), none of
them the key's word, and x_(n+1) - x_n is uniform whatever x_(n+1) is),
so W_m(v) given c_v is a sum of c_v independent signs: mean 0, variance
c_v.  Because step >= 4 the windows share no word and the samples
are independent.  ``pvalue`` is the smallest chi-square tail over both
tables and all masks times 2 * 511 (Bonferroni: the masks' statistics
share the samples), a bound.  The transforms are computed at finalize
(2 x 256 fast Walsh-Hadamard transforms of 512 counts).

Parameters:
  rotation  r, the bit whose carry-free sums are followed (default 3, the
            rotation of the generators' first update; 0 to 15)
  step      one sample every ``step`` words (default 16; 4 to 2^40: at
            least 4 so that the 4-word windows share no word)
Minimum data: ``MIN_SAMPLES`` (65,536) samples, 256 expected per key, so
that each term's chi-square law holds: (65,536 - 1) * 2 * step + 8 bytes
(2,097,128 bytes, 2 MiB, with the defaults).  With the defaults
learx16 and hlearx16 give p < 1e-20 at 16 MiB (1e-38 and 1e-24 at 8 MiB),
hara16 and harx16 at 512 MiB (the first doubling from 16 MiB).
Memory: 2 x 131,072 32-bit counts, moved to 64-bit totals before they can
wrap (3 MiB), and about 14 MiB at finalize; time: 2 increments per sample
(about 0.16 CPU-s per GiB with the defaults, which read every 64-byte
line of the stream; ``step`` = 4 costs about 0.55 and fails hara16 and
harx16 at 128 and 256 MiB).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from randqa.battery import _conditional_walsh
from randqa.battery._stream_ends import StreamEnds
from randqa.battery._wide_counts import WideCounts
from randqa.battery.base import OBJECT_BYTES, Accumulator, MemoryNeed, Range, is_whole
from randqa.results import TestResult, chi_square_sf, insufficient

TABLES = ("xor", "arith")
KEYS = 256
SELECTED = 512
CELLS = len(TABLES) * KEYS * SELECTED
#: nonzero masks times tables: the Bonferroni factor
LOOKS = len(TABLES) * (SELECTED - 1)
#: 256 samples expected per key
MIN_SAMPLES = 65536
MAX_STEP = 1 << 40
#: bytes of one sample's window: four 16-bit words
WINDOW = 8


def selected_bits(rotation: int) -> list[str]:
    """The names of the 9 selected bits s0 .. s8."""
    return ([f"D_n[{rotation}]", f"D_n+2[{rotation}]"]
            + [f"x_n+2[{(rotation + j) % 16}]" for j in range(7)])


def bytes_needed(samples: int, step: int) -> int:
    """The bytes from the stream's start that hold ``samples`` windows."""
    return (samples - 1) * 2 * step + WINDOW


def walsh_transform(tables: np.ndarray) -> np.ndarray:
    """W[..., m] = sum_s tables[..., s] (-1)^popcount(m & s), over the last axis (a power of 2)."""
    w = np.asarray(tables, dtype=np.int64)
    lead, size = w.shape[:-1], w.shape[-1]
    h = 1
    while h < size:
        # bit log2(h) of the index: the butterfly between its 0 and 1 halves
        w = w.reshape(*lead, size // (2 * h), 2, h)
        w = np.stack((w[..., 0, :] + w[..., 1, :], w[..., 0, :] - w[..., 1, :]), axis=-2)
        h *= 2
    return w.reshape(*lead, size)


def mask_statistics(tables: np.ndarray) -> tuple[np.ndarray, int]:
    """X[t, m] for the tables T[t][v][s] (m = 0 .. 511; X[:, 0] is the keys' total,
    not a statistic) and K, the keys with a sample."""
    w = walsh_transform(tables)
    c = w[..., 0]  # the transform at m = 0: the keys' counts (the same in both tables)
    seen = c[0] > 0
    wf = w[:, seen, :].astype(np.float64)
    x = (wf * wf / c[:, seen, None]).sum(axis=1)
    return x, int(seen.sum())


class ConditionalWalsh(Accumulator):
    name = "conditional_walsh"
    parameter_ranges: ClassVar[dict[str, Range]] = {"rotation": Range(0, 15), "step": Range(4, MAX_STEP)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        # held: the 32-bit counts and 64-bit totals, the 7 bytes at either
        # end; working: finalize's int64 tables, the transform's stages
        # (each stage builds two halves and their stack) and the float squares
        return MemoryNeed(12 * CELLS + 64 + OBJECT_BYTES, 7 * 8 * CELLS + 65536)

    def __init__(self, *, rotation: int = 3, step: int = 16) -> None:
        if not (is_whole(rotation) and 0 <= rotation <= 15):
            raise ValueError(f"rotation must be a whole number from 0 to 15, not {rotation!r}")
        if not (is_whole(step) and 4 <= step <= MAX_STEP):
            raise ValueError(f"step must be a whole number from 4 to 2^40 (windows of 4 words share none), "
                             f"not {step!r}")
        super().__init__()
        self.rotation = rotation
        self.step = step
        self.cells = WideCounts(CELLS)  # its 32-bit counts: 1 MiB, which stays in L2
        self.samples = 0
        # the first and last 7 bytes: the windows across a chunk's or a merge's join
        self.ends = StreamEnds(WINDOW - 1)

    @property
    def phase(self) -> int:
        # a right part not placed with begin_at numbers its bytes from 0: its
        # samples are the stream's when the left part ends on a whole period
        return 2 * self.step

    def _count(self, history: np.ndarray, data: np.ndarray, position: int) -> None:
        # the windows that may start in these bytes: one in every 2 * step, rounded up
        self.cells.make_room((len(history) + len(data)) // (2 * self.step) + 1)
        counted = _conditional_walsh.conditional_walsh_count(history, data, position, self.step, self.rotation,
                                                             self.cells.counts)
        self.samples += counted
        self.cells.added(counted)

    def _update(self, chunk: np.ndarray) -> None:
        self._count(self.ends.history, chunk, self.start + self.bytes_seen)
        self.ends.append(chunk)

    def _merge(self, other: "ConditionalWalsh") -> None:
        # the windows that start in this part and end in the other's first 7 bytes
        # (a window is 8 bytes, so none lies inside them)
        if len(other.ends.head):
            self._count(self.ends.history, other.ends.head, self.start + self.bytes_seen)
        self.cells.merge(other.cells)
        self.samples += other.samples
        self.ends.join(other.ends)

    def tables(self) -> np.ndarray:
        """The counts T[t][v][s] so far (t: xor, arith), as int64."""
        # the kernel interleaves the tables: cell (v * 512 + s) * 2 + t
        both = self.cells.total().reshape(KEYS, SELECTED, len(TABLES))
        return np.ascontiguousarray(both.transpose(2, 0, 1))

    def finalize(self) -> list[TestResult]:
        label = f"{self.name}[rotation={self.rotation},step={self.step}]"
        if self.samples < MIN_SAMPLES:
            needed = bytes_needed(MIN_SAMPLES, self.step)
            return [insufficient(label, f"at least {needed} bytes ({MIN_SAMPLES} windows of 4 16-bit words, "
                                        f"one every {self.step} words; {self.samples} so far)",
                                 samples=self.samples)]
        x, keys = mask_statistics(self.tables())
        x = x[:, 1:]  # m = 0 is no test
        worst = np.unravel_index(int(np.argmax(x)), x.shape)  # one law for all: the largest has the smallest tail
        table, mask = int(worst[0]), int(worst[1]) + 1
        statistic = float(x[worst])
        tail = chi_square_sf(statistic, keys)
        names = selected_bits(self.rotation)
        return [TestResult(
            name=label,
            statistic=statistic,
            pvalue=min(1.0, tail * LOOKS),
            details={
                "samples": self.samples,
                "keys": keys,
                "table": TABLES[table],
                "mask": mask,
                "bits": [names[i] for i in range(9) if mask >> i & 1],
                "worst_pvalue": tail,
                "largest_per_table": [round(float(v), 3) for v in x.max(axis=1)],
            },
            pvalue_kind="bound",
        )]
