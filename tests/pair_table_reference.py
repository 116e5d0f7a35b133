"""What six tests count, derived in numpy from the table of overlapping byte
pairs P[a, b] (how often byte a is followed by byte b) and the stream's
first and last byte.  Reference code for the tests; bits are read most
significant first in each byte, as the tests read them.

- byte histogram H[v]: the row sums of P, plus 1 for the last byte (the only
  byte that starts no pair); equally the column sums plus 1 for the first.
- the circular table C = P + [the pair (last, first)]: every byte starts
  exactly one circular pair, so both its row and column sums are H.
- ones (frequency): sum over v of H[v] popcount(v).
- bit transitions (runs): those inside bytes, sum of H[v] times the
  transitions of v's 8 bits, plus those across byte boundaries, the sum of
  P[a, b] over a's last bit != b's first bit.
- lag-1 products (serial correlation): sum of P[a, b] a b; ENT's circular
  sum uses C instead.
- circular m-bit pattern counts for m <= 9 (overlapping serial): a window
  of m bits that starts at bit k of a byte ends in that byte or the next
  (k + m <= 16), so each cell (a, b) of C contributes one window at each
  offset k = 0..7, the bits k..k+m-1 of the 16-bit word a b.
"""

from __future__ import annotations

import numpy as np

VALUES = np.arange(256)
POPCOUNT = np.array([bin(v).count("1") for v in range(256)])
#: adjacent bit pairs that differ inside each byte value (7 pairs per byte)
INSIDE_TRANSITIONS = np.array([bin((v ^ (v >> 1)) & 0x7F).count("1") for v in range(256)])
#: 1 where the last bit of a differs from the first bit of b
ACROSS_TRANSITION = ((VALUES[:, None] & 1) != (VALUES[None, :] >> 7)).astype(np.int64)


def pair_table(data: np.ndarray) -> np.ndarray:
    """P as a 256 x 256 int64 array, by numpy (in slices, to bound memory)."""
    table = np.zeros(65536, dtype=np.int64)
    step = 8 << 20
    for lo in range(0, len(data) - 1, step):
        hi = min(lo + step, len(data) - 1)
        table += np.bincount((data[lo:hi].astype(np.int64) << 8) | data[lo + 1 : hi + 1], minlength=65536)
    return table.reshape(256, 256)


def circular(pairs: np.ndarray, first: int, last: int) -> np.ndarray:
    table = pairs.copy()
    table[last, first] += 1
    return table


def byte_histogram(pairs: np.ndarray, last: int) -> np.ndarray:
    hist = pairs.sum(axis=1)
    hist[last] += 1
    return hist


def ones_and_transitions(pairs: np.ndarray, last: int) -> tuple[int, int]:
    hist = byte_histogram(pairs, last)
    return int(hist @ POPCOUNT), int(hist @ INSIDE_TRANSITIONS) + int(np.sum(pairs * ACROSS_TRANSITION))


def lag1_products(pairs: np.ndarray) -> int:
    """Sum of x_i x_{i+1} (exact in int64 for streams below 2^47 bytes)."""
    return int(np.sum(pairs * np.outer(VALUES, VALUES)))


def pattern_counts(circular_pairs: np.ndarray, m: int) -> np.ndarray:
    """Counts of the circular overlapping m-bit patterns, 1 <= m <= 9."""
    if not 1 <= m <= 9:
        raise ValueError("windows longer than 9 bits can span three bytes")
    words = (VALUES[:, None] << 8 | VALUES[None, :]).ravel()
    counts = np.zeros(1 << m, dtype=np.int64)
    for offset in range(8):
        np.add.at(counts, (words >> (16 - m - offset)) & ((1 << m) - 1), circular_pairs.ravel())
    return counts
