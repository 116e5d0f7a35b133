"""Fluhrer-McGrew digraph test: RC4's long-term biases, cell by cell.

Source: S. R. Fluhrer and D. A. McGrew, "Statistical analysis of the
alleged RC4 keystream generator", FSE 2000, LNCS 1978, pp. 19-30, table of
digraph probabilities.  Away from its start, RC4's output is biased only in
a few byte pairs whose probability depends on the index i: for example
(0, 0) at 2^-16 (1 + 2^-8) for most i, (255, i+1) and (i+1, 255) likewise,
(0, i+1) and (255, 255) at 2^-16 (1 - 2^-8).  A chi-square over all 65,536
pairs of every position class (``digraph`` with position_mod = 256) spreads
these few cells over 16.7 million degrees of freedom and finds nothing in
16 GiB; PractRand needs 512 GiB to 1 TiB.  Summing only the biased cells
with the sign of their bias finds RC4 after a few tens of GiB.

The pair of bytes at stream positions p, p+1 is in class c = p mod 256.
Where the stream started relative to RC4's i is unknown (libdnet's variant
starts at i = 255, plain RC4 at 1, after dropped bytes anywhere), so the
test tries every phase f, taking i = c + f (mod 256), and computes

    S_f = sum over the biased cells (i, a, b) of w (N[c, a, b] - m_c / 65536)

with w = +1 for a 2^-8 excess, +1/2 for 2^-9, -1 for a 2^-8 deficit, and
m_c the pairs of class c.  For independent uniform bytes S_f has mean 0 and
a variance computed exactly, including the covariance of overlapping pairs
(pairs p and p+1 share a byte); z_f = S_f / sd is nearly normal.  Its upper
tail takes one Edgeworth term for the skewness of the counts (third
cumulant sum w^3 E[N]): at 64 MiB the plain normal tail would be 16% too
small at the fail threshold.  The result is the phase with the smallest
tail, one-sided (RC4's biases have known signs), with the Sidak p-value
over the 256 phases; ``details`` name the phase.  The phases share most of
their cells ((0, 0), (0, 1) and (255, 255) hold for almost every i), so
their z_f are positively correlated (0.43-0.57) and Sidak is conservative:
nearly exact at 1e-6, but on random data the p-values sit mostly near 1.

Which cells are biased does not affect the test's validity on a good
generator, only its power on RC4.  Needs 64 MiB: about 7,000 expected
counts in the cells, where the normal approximation is good.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from randqa.battery import _counts
from randqa.battery._pairs import BytePairTest
from randqa.battery.base import OBJECT_BYTES, MemoryNeed
from randqa.results import TestResult, insufficient, smallest_of

MIN_BYTES = 64 << 20
PAIR = 2.0**-16
LOW_ROWS = {0: 0, 129: 1, 255: 2}  # first bytes counted in the `low` table


def biased_cells(i: int) -> dict[tuple[int, int], float]:
    """{(a, b): weight} for RC4's index i: the sign and size (in 2^-8) of
    each pair's bias in Fluhrer and McGrew's table."""
    cells: dict[tuple[int, int], float] = {}

    def add(a: int, b: int, weight: float) -> None:
        key = (a % 256, b % 256)
        cells[key] = cells.get(key, 0.0) + weight

    if i == 1:
        add(0, 0, 0.5)
    elif i != 255:
        add(0, 0, 1)
    if i not in (0, 1):
        add(0, 1, 1)
    if i != 254:
        add(i + 1, 255, 1)
    if i not in (1, 254):
        add(255, i + 1, 1)
    if i not in (0, 253, 254, 255):
        add(255, i + 2, 1)
    if i == 254:
        add(255, 0, 1)
    if i == 255:
        add(255, 1, 1)
    if i in (0, 1):
        add(255, 2, 1)
    if i == 2:
        add(129, 129, 1)
    if i != 254:
        add(255, 255, -1)
    if i not in (0, 255):
        add(0, i + 1, -1)
    return cells


class CellTables(NamedTuple):
    """Flat arrays over every biased cell (i, a, b) of every index i, and per
    i the moments of one pair's weighted indicator w 1[pair = (a, b)]."""

    index: np.ndarray  # i of each cell
    table: np.ndarray  # 0: its count is in `low`, 1: in `high`
    slot: np.ndarray  # its place in that table's row of a position class
    weight: np.ndarray  # w
    variance: np.ndarray  # per i
    covariance: np.ndarray  # per i, with the next pair's (whose index is i + 1)
    third_moment: np.ndarray  # per i, E[w^3 1] (about 0: the third cumulant of the counts)


def _cell_tables() -> CellTables:
    index, table, slot, weight = [], [], [], []
    mean = np.zeros(256)
    square = np.zeros(256)
    third_moment = np.zeros(256)
    cells_of = [biased_cells(i) for i in range(256)]
    for i, cells in enumerate(cells_of):
        for (a, b), w in cells.items():
            index.append(i)
            if a in LOW_ROWS:
                table.append(0)
                slot.append(LOW_ROWS[a] * 256 + b)
            else:  # b == 255: every other biased cell ends in 255
                table.append(1)
                slot.append(a)
            weight.append(w)
            mean[i] += w * PAIR
            square[i] += w * w * PAIR
            third_moment[i] += w**3 * PAIR
    covariance = np.zeros(256)
    for i in range(256):
        following = cells_of[(i + 1) % 256]
        joint = sum(w * v for (_, b), w in cells_of[i].items() for (a2, _), v in following.items() if b == a2)
        covariance[i] = joint * PAIR / 256 - mean[i] * mean[(i + 1) % 256]
    return CellTables(np.array(index), np.array(table), np.array(slot), np.array(weight), square - mean**2,
                      covariance, third_moment)


_CELLS = _cell_tables()


def phase_scores(low: np.ndarray, high: np.ndarray, pairs: int) -> tuple[np.ndarray, np.ndarray]:
    """(z_f, skewness of S_f) for the phases f = 0..255 from the kernel's
    tables after ``pairs`` pairs."""
    classes = np.arange(256)
    # pairs whose first byte is in class c, and those followed by another pair
    per_class = pairs // 256 + (classes < pairs % 256)
    adjacent = (pairs - 1) // 256 + (classes < (pairs - 1) % 256)
    index, table, slot, weight, variance, covariance, third_moment = _CELLS
    counts = np.stack([low.reshape(256, 768), np.pad(high.reshape(256, 256), ((0, 0), (0, 512)))])
    phases = classes[:, None]
    cls = (index[None, :] - phases) % 256  # class of each cell under each phase
    observed = counts[table[None, :], cls, slot[None, :]]
    deviation = (weight * (observed - per_class[cls] * PAIR)).sum(axis=1)
    i_of_class = (classes[None, :] + phases) % 256
    var = (per_class * variance[i_of_class] + 2 * adjacent * covariance[i_of_class]).sum(axis=1)
    # the counts are nearly Poisson: their third cumulant is their mean
    third = (per_class * third_moment[i_of_class]).sum(axis=1)
    return deviation / np.sqrt(var), third / var**1.5


def upper_tail(z: np.ndarray, skewness: np.ndarray) -> np.ndarray:
    """P(Z >= z) for a standardised sum with this skewness: the normal tail
    plus the first Edgeworth term."""
    from scipy import special

    # scipy.stats.norm's sf and pdf, written out (scipy.special loads much faster)
    density = np.exp(-z**2 / 2.0) / np.sqrt(2 * np.pi)
    return np.clip(special.ndtr(-z) + skewness / 6 * (z**2 - 1) * density, 0.0, 1.0)


class FluhrerMcGrew(BytePairTest):
    name = "fluhrer_mcgrew"

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        # the two count tables (2 MiB); at finalize the scores of every
        # biased cell under each of the 256 phases
        return MemoryNeed(8 * (3 * 65536 + 65536) + OBJECT_BYTES, 32 << 20)

    def __init__(self) -> None:
        super().__init__()
        self.low = np.zeros(256 * 3 * 256, dtype=np.int64)  # pairs (0|129|255, b) by class
        self.high = np.zeros(256 * 256, dtype=np.int64)  # pairs (a, 255) by class

    @property
    def alignment(self) -> int:
        return 256

    def _scan(self, data: np.ndarray, start: int, previous: int) -> None:
        _counts.rc4_digraph_counts(data, start, previous, self.low, self.high)

    def _add_counts(self, other: BytePairTest) -> None:
        self.low += other.low
        self.high += other.high

    def finalize(self) -> list[TestResult]:
        if self.bytes_seen < MIN_BYTES:
            return [insufficient(self.name, f"at least {MIN_BYTES >> 20} MiB (for the normal approximation)")]
        pairs = self.bytes_seen - 1
        z, skewness = phase_scores(self.low, self.high, pairs)
        tails = upper_tail(z, skewness)
        best = int(np.argmin(tails))
        tail = float(tails[best])
        pvalue = smallest_of(tail, 256)
        return [
            TestResult(self.name, float(z[best]), pvalue,
                       details={"phase": best, "pairs": pairs, "phases": 256, "skewness": float(skewness[best])})
        ]
