"""Tables of counts that a C kernel increments at scattered cells, kept as
32-bit counts and moved to 64-bit totals before any cell could wrap
(affine_digraph, conditional_walsh).

Each increment of such a table touches a cache line of its own: 32-bit
counts take half the cache lines of 64-bit ones, so more of the table stays
in cache.  A 32-bit cell wraps only after 2^32 increments, so before each
kernel call the caller names the most that call may add, and the counts are
added to the 64-bit totals (and zeroed) when the increments since the last
move could then exceed 2^32 - 1.  A cell's count is its total plus its
count.
"""

from __future__ import annotations

import numpy as np

#: increments the 32-bit counts may hold before they move to the totals
MAX_UNMOVED = (1 << 32) - 1


class WideCounts:
    """``size`` cells: ``counts``, the uint32 array the kernel increments,
    and ``totals``, int64, what was moved out of it."""

    def __init__(self, size: int = 0) -> None:
        self.counts = np.zeros(size, dtype=np.uint32)
        self.totals = np.zeros(size, dtype=np.int64)
        self.unmoved = 0  # increments in counts, not yet in totals

    def make_room(self, most: int) -> None:
        """Move the counts to the totals if ``most`` more increments could wrap a cell."""
        if self.unmoved + most > MAX_UNMOVED:
            self.move()

    def added(self, n: int) -> None:
        """Note ``n`` increments the kernel made in ``counts``."""
        self.unmoved += n

    def move(self) -> None:
        """Add the counts to the totals and zero them."""
        self.totals += self.counts
        self.counts[:] = 0
        self.unmoved = 0

    def merge(self, other: "WideCounts") -> None:
        """Add the cells of ``other`` (of the same size)."""
        self.move()  # the totals take both parts' counts: no 32-bit sum that could wrap
        self.totals += other.totals
        self.totals += other.counts

    def total(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """The cells ``start`` to ``stop`` (all by default), as a new int64 array."""
        return np.add(self.totals[start:stop], self.counts[start:stop], dtype=np.int64)
