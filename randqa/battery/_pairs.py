"""Tests that count the overlapping byte pairs (x_p, x_{p+1}) of a stream.

A pair may straddle two chunks, or the two parts of a merge; this base keeps
the first and last byte so that every pair is counted exactly once.
"""

from __future__ import annotations

from abc import abstractmethod

import numpy as np

from randqa.battery.base import Accumulator


class BytePairTest(Accumulator):
    """Base of the tests that count overlapping byte pairs by stream position.

    Subclasses implement ``_scan(data, start, previous)``, which counts the
    pairs whose second byte is in ``data`` (``start`` is the stream position
    of data[0], ``previous`` the byte before it or -1 at the stream's start),
    and ``_add_counts(other)``.  Merging needs ``alignment`` to be a multiple
    of the period of the position classes, so that the right part's classes
    are the left part's.
    """

    def __init__(self) -> None:
        super().__init__()
        self.first_byte = -1
        self.last_byte = -1

    @abstractmethod
    def _scan(self, data: np.ndarray, start: int, previous: int) -> None:
        """Count the pairs ending in ``data``."""

    @abstractmethod
    def _add_counts(self, other: "BytePairTest") -> None:
        """Add the counts of ``other``, whose positions continue ours."""

    def _update(self, chunk: np.ndarray) -> None:
        self._scan(chunk, self.bytes_seen, self.last_byte)
        if self.first_byte < 0:
            self.first_byte = int(chunk[0])
        self.last_byte = int(chunk[-1])

    def _merge(self, other: Accumulator) -> None:
        if other.bytes_seen == 0:
            return
        self._add_counts(other)
        if self.last_byte >= 0:  # the pair across the boundary
            self._scan(np.array([other.first_byte], dtype=np.uint8), self.bytes_seen, self.last_byte)
        else:
            self.first_byte = other.first_byte
        self.last_byte = other.last_byte
