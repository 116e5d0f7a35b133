"""Cutting a stream into whole blocks across chunk boundaries.

Many tests work on blocks (words, points, matrices) that a chunk boundary
may cut in two; these classes keep the unfinished block so that the test
only ever sees whole ones and its result does not depend on the chunking.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from typing import Any

import numpy as np

from randqa.battery.base import Accumulator


def pending_block_bytes(block_bytes: int, chunk_bytes: int) -> tuple[int, int]:
    """(held, working) of carrying an unfinished block across chunks: the
    block itself; while a chunk completes it, the old and the grown copy
    and the chunk's piece."""
    return block_bytes, 2 * block_bytes + min(chunk_bytes, block_bytes)


def pending_bits_bytes(unit_bits: int, chunk_bytes: int) -> tuple[int, int]:
    """(held, working) of BitBlocks for blocks of ``unit_bits`` bits: the
    unfinished unit as in pending_block_bytes, and at ``finalize`` its
    ``remainder`` (the unit unpacked to one byte per bit, joined to the tail
    bits, packed again: 18 bytes per byte of the unit)."""
    unit = math.lcm(unit_bits, 8) // 8
    held, update = pending_block_bytes(unit, chunk_bytes)
    return held, max(update, 18 * unit + 64)


class WholeBlocks:
    """Hands back the runs of whole ``block_bytes``-byte blocks of each chunk.

    ``split`` returns at most two contiguous arrays (the block completed from
    the previous chunk's remainder, then the chunk's own whole blocks) and
    keeps the unfinished block for the next call.
    """

    def __init__(self, block_bytes: int) -> None:
        self.block_bytes = block_bytes
        # grown in place: a block of many chunks (50 MiB of 64-bit points)
        # is copied once, not once per chunk
        self.pending = bytearray()

    def split(self, chunk: np.ndarray) -> list[np.ndarray]:
        runs = []
        if self.pending:
            need = self.block_bytes - len(self.pending)
            self.pending += memoryview(chunk[:need])
            chunk = chunk[need:]
            if len(self.pending) < self.block_bytes:
                return runs
            runs.append(np.frombuffer(self.pending, dtype=np.uint8))
            self.pending = bytearray()  # the run above keeps the full one
        whole = len(chunk) - len(chunk) % self.block_bytes
        if whole:
            runs.append(chunk[:whole])
        self.pending = bytearray(chunk[whole:])
        return runs

    def take_over(self, other: "WholeBlocks") -> None:
        """After a merge, the right part's unfinished block ends the stream."""
        self.pending = bytearray(other.pending)


class WholeBlockTest(Accumulator):
    """Base of the tests that read whole words or blocks of ``block_bytes``
    bytes (gap, chi_square on 16-bit words, bit_linear_complexity,
    birthday_spacings): ``_scan`` sees runs of whole blocks only and
    ``_add_counts`` absorbs a merged accumulator's counts; the unfinished
    block across chunks and merges is handled here."""

    def __init__(self, block_bytes: int) -> None:
        super().__init__()
        self._blocks = WholeBlocks(block_bytes)

    @property
    def alignment(self) -> int:
        return self._blocks.block_bytes

    @abstractmethod
    def _scan(self, run: np.ndarray) -> None:
        """Add the counts of a run of whole blocks."""

    @abstractmethod
    def _add_counts(self, other: Any) -> None:
        """Add ``other``'s counts to this accumulator's."""

    def _update(self, chunk: np.ndarray) -> None:
        for run in self._blocks.split(chunk):
            self._scan(run)

    def _merge(self, other: Any) -> None:
        self._add_counts(other)
        self._blocks.take_over(other._blocks)


class BitBlocks(WholeBlocks):
    """Cuts a byte stream, plus a final 1-7 bits, into whole blocks of ``block_bits`` bits.

    ``split`` hands back runs of whole *units* - lcm(block_bits, 8) bits, the
    shortest stretch that is both whole blocks and whole bytes - and keeps
    the unfinished unit.  ``remainder`` gives that unfinished unit and the
    tail bits packed MSB-first, for ``finalize`` to count the whole blocks
    they hold without changing any state.
    """

    def __init__(self, block_bits: int) -> None:
        super().__init__(math.lcm(block_bits, 8) // 8)
        self.block_bits = block_bits
        self.tail = np.zeros(0, dtype=np.uint8)

    def set_tail(self, bits: np.ndarray) -> None:
        self.tail = np.asarray(bits, dtype=np.uint8) & 1

    def remainder(self) -> tuple[bytes, int]:
        """The bits after the last whole unit, packed MSB-first, and how many there are."""
        bits = np.concatenate([np.unpackbits(np.frombuffer(self.pending, dtype=np.uint8)), self.tail])
        return np.packbits(bits).tobytes(), len(bits)

    def take_over(self, other: "BitBlocks") -> None:
        super().take_over(other)
        self.tail = other.tail.copy()


class BitBlockTest(Accumulator):
    """Base of the tests that count whole blocks of a bit stream
    (block_frequency, longest_run, matrix_rank, linear_complexity).

    Subclasses add the counts of a run of whole units in ``_count`` and
    another accumulator's counts in ``_add_counts``; cutting the stream,
    the final tail bits and the merge bookkeeping are done here.  In
    ``finalize`` they count ``self._units.remainder()`` into copies.
    """

    def __init__(self, unit_bits: int) -> None:
        super().__init__()
        self.tail_bits = 0
        self._units = BitBlocks(unit_bits)

    @property
    def alignment(self) -> int:
        return self._units.block_bytes

    @property
    def bits_seen(self) -> int:
        """Every bit fed so far, the final tail bits included."""
        return 8 * self.bytes_seen + self.tail_bits

    @abstractmethod
    def _count(self, data: np.ndarray, nbits: int) -> None:
        """Add the blocks of the first ``nbits`` bits of ``data`` to the counts."""

    @abstractmethod
    def _add_counts(self, other: "BitBlockTest") -> None:
        """Add ``other``'s counts to this accumulator's."""

    def _update(self, chunk: np.ndarray) -> None:
        for run in self._units.split(chunk):
            self._count(run, 8 * len(run))

    def update_tail_bits(self, bits: np.ndarray) -> None:
        self.tail_bits = len(bits)
        self._units.set_tail(bits)

    def _merge(self, other: Accumulator) -> None:
        self._add_counts(other)
        self.tail_bits = other.tail_bits
        self._units.take_over(other._units)
