"""Shared machinery of the NIST SP 800-22 tests that need the whole sequence.

Tests such as cumulative sums (largest excursion of the walk), random
excursions (cycles of the walk) or serial (patterns read with wrap-around)
cannot be computed from small running summaries: they keep the first
``max_bits`` bits of the stream, packed MSB-first as the standard reads a
byte stream, and test those.  Memory stays bounded for endless streams
(2**24 bits = 2 MiB by default); beyond ``max_bits`` the bits are only
counted, and the results say which part was tested.

The numeric helpers work on slices of at most ``SLICE_BITS`` positions so
their temporaries stay small whatever ``max_bits`` is.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, ClassVar, Iterator

import numpy as np

from randqa.battery.base import OBJECT_BYTES, Accumulator, MemoryNeed, Range
from randqa.results import TestResult

DEFAULT_MAX_BITS = 1 << 24

#: positions handled per numpy pass (bounds temporaries to a few MB)
SLICE_BITS = 1 << 20

#: longest window ``window_values`` reads: a byte offset (0-7) plus the
#: window must fit the 32-bit word it is cut from
MAX_WINDOW_BITS = 25

#: zero bytes after the kept bits, so windows near the end read zeros
_PAD_BYTES = 4

#: the most ``max_bits`` a suite may ask for (1 GiB kept); the memory check
#: refuses whatever of that this machine cannot hold
MAX_KEPT_BITS = 1 << 33


def walk_bytes(n: int) -> int:
    """Temporaries of ``walk`` over n bits: two slices alive at once (the one
    the caller holds, the next being made), each 1 byte per bit unpacked and
    8 as int64 sums, with room to spare."""
    return 20 * min(n, SLICE_BITS)


def pattern_count_bytes(n: int, m: int) -> int:
    """Temporaries of ``pattern_counts`` over n bits for m-bit patterns: a
    slice's windows (4 bytes per bit, their 32-bit words, and the 8-byte
    copy bincount makes of them), the bincount and the counts (8 bytes per
    pattern each), with room to spare."""
    return 16 * min(n, SLICE_BITS) + 16 * (1 << m)


class BitBuffer:
    """The first ``max_bits`` bits of a stream, packed MSB-first."""

    def __init__(self, max_bits: int) -> None:
        self.max_bits = max_bits
        self.bits_seen = 0
        self.bits_kept = 0
        self._data = bytearray()  # bits past bits_kept in the last byte are junk

    def append_bytes(self, chunk: np.ndarray) -> None:
        self.bits_seen += 8 * len(chunk)
        take = min(self.max_bits - self.bits_kept, 8 * len(chunk))
        if take <= 0:
            return
        if self.bits_kept % 8 == 0:
            self._data += chunk[: -(-take // 8)].tobytes()
            self.bits_kept += take
        else:
            self._append_unaligned(np.unpackbits(chunk[: -(-take // 8)])[:take])

    def append_bits(self, bits: np.ndarray) -> None:
        """Append bit values (0/1), e.g. the final 1-7 bits of bit text."""
        bits = np.asarray(bits, dtype=np.uint8)
        self.bits_seen += len(bits)
        take = min(self.max_bits - self.bits_kept, len(bits))
        if take > 0:
            self._append_unaligned(bits[:take])

    def _append_unaligned(self, bits: np.ndarray) -> None:
        used = self.bits_kept % 8
        if used:
            head = np.unpackbits(np.frombuffer(bytes(self._data[-1:]), dtype=np.uint8))[:used]
            del self._data[-1]
            bits = np.concatenate([head, bits])
        self._data += np.packbits(bits).tobytes()
        self.bits_kept += len(bits) - used

    def extend(self, other: "BitBuffer") -> None:
        """Append everything ``other`` saw, as if it had come through this buffer."""
        seen = self.bits_seen + other.bits_seen
        packed = other.packed()
        if self.bits_kept % 8 == 0:
            self.append_bytes(packed[: other.bits_kept // 8])
            rest = other.bits_kept % 8
            if rest:
                self.append_bits(np.unpackbits(packed[other.bits_kept // 8 : other.bits_kept // 8 + 1])[:rest])
        else:
            self.append_bits(np.unpackbits(packed)[: other.bits_kept])
        self.bits_seen = seen

    def packed(self) -> np.ndarray:
        """The kept bits packed MSB-first, junk bits cleared, then zero padding bytes."""
        out = np.zeros(len(self._data) + _PAD_BYTES, dtype=np.uint8)
        out[: len(self._data)] = np.frombuffer(bytes(self._data), dtype=np.uint8)
        rest = self.bits_kept % 8
        if rest:
            out[self.bits_kept // 8] &= (0xFF << (8 - rest)) & 0xFF
        return out


def pack_bits(bits: np.ndarray) -> np.ndarray:
    """Pack 0/1 values MSB-first, followed by zero padding bytes."""
    out = np.zeros(-(-len(bits) // 8) + _PAD_BYTES, dtype=np.uint8)
    packed = np.packbits(np.asarray(bits, dtype=np.uint8))
    out[: len(packed)] = packed
    return out


def unpack_bits(packed: np.ndarray, start: int, stop: int) -> np.ndarray:
    """Bits ``start`` to ``stop - 1`` of a packed sequence, as 0/1 uint8."""
    first = start >> 3
    bits = np.unpackbits(packed[first : (stop + 7) >> 3])
    return bits[start - 8 * first : stop - 8 * first]


def with_wraparound(packed: np.ndarray, n: int, extra: int) -> np.ndarray:
    """The n-bit sequence followed by its own first ``extra`` bits (cyclically),
    as the serial and approximate entropy tests read it."""
    if extra == 0:
        return packed
    if n < 64:  # short sequences may need to wrap more than once
        bits = unpack_bits(packed, 0, n)
        return pack_bits(np.resize(bits, n + extra))
    whole = n // 8
    tail = np.concatenate([unpack_bits(packed, 8 * whole, n), unpack_bits(packed, 0, extra)])
    return np.concatenate([packed[:whole], pack_bits(tail)])


def window_values(packed: np.ndarray, start: int, stop: int, m: int) -> np.ndarray:
    """The m-bit value read at each bit position start..stop-1 (MSB first),
    as a uint32 array: the integer rolling window of the standard's tests.

    Each byte position's big-endian 32-bit word holds the windows of its
    8 bit offsets, so the work is a few vector operations per byte.
    Positions whose window runs past the data read zero bits.
    """
    if not 1 <= m <= MAX_WINDOW_BITS:
        raise ValueError(f"window length must be 1..{MAX_WINDOW_BITS}, not {m}")
    if stop <= start:
        return np.zeros(0, dtype=np.uint32)
    first = start >> 3
    count = ((stop - 1) >> 3) + 1 - first
    seg = packed[first : first + count + 3].astype(np.uint32)
    if len(seg) < count + 3:
        seg = np.concatenate([seg, np.zeros(count + 3 - len(seg), dtype=np.uint32)])
    words = (seg[:count] << 24) | (seg[1 : count + 1] << 16) | (seg[2 : count + 2] << 8) | seg[3 : count + 3]
    out = np.empty((count, 8), dtype=np.uint32)
    mask = np.uint32((1 << m) - 1)
    for offset in range(8):
        np.bitwise_and(words >> np.uint32(32 - m - offset), mask, out=out[:, offset])
    skip = start - 8 * first
    return out.reshape(-1)[skip : skip + stop - start]


def pattern_counts(packed: np.ndarray, start: int, stop: int, m: int) -> np.ndarray:
    """How often each m-bit value occurs at positions start..stop-1 (int64, 2**m bins)."""
    counts = np.zeros(1 << m, dtype=np.int64)
    for lo in range(start, stop, SLICE_BITS):
        counts += np.bincount(window_values(packed, lo, min(stop, lo + SLICE_BITS), m), minlength=1 << m)
    return counts


def cyclic_pattern_counts(packed: np.ndarray, n: int, m: int) -> np.ndarray:
    """How often each m-bit value occurs over the n windows of the n-bit
    sequence read as a cycle (its first m - 1 bits appended), as the serial
    and approximate entropy tests count patterns."""
    return pattern_counts(with_wraparound(packed, n, m - 1), 0, n, m)


def cyclic_pattern_count_bytes(n: int, m: int) -> int:
    """Temporaries of ``cyclic_pattern_counts``: the wrapped-around copy of
    the bits and those of ``pattern_counts``."""
    return n // 8 + 8 + pattern_count_bytes(n + m, m)


def walk(packed: np.ndarray, n: int) -> Iterator[np.ndarray]:
    """The random walk S_k = sum of (2 bit - 1) over the first k bits, k = 1..n,
    in consecutive int64 slices."""
    level = 0
    for lo in range(0, n, SLICE_BITS):
        steps = unpack_bits(packed, lo, min(n, lo + SLICE_BITS)).astype(np.int64)
        steps *= 2
        steps -= 1
        sums = np.cumsum(steps, out=steps)
        sums += level
        level = int(sums[-1])
        yield sums


def template_from_string(text: str) -> int:
    """The integer (MSB first) of a template written as a string of 0s and 1s."""
    if not text or set(text) - {"0", "1"}:
        raise ValueError(f"a template is a string of 0s and 1s, not {text!r}")
    return int(text, 2)


class WholeSequenceTest(Accumulator):
    """An accumulator that keeps the first ``max_bits`` bits and tests them
    in ``finalize``; subclasses implement ``_evaluate`` and state what it
    takes in ``_evaluation_bytes``."""

    parameter_ranges: ClassVar[dict[str, Range]] = {"max_bits": Range(1, MAX_KEPT_BITS)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        """The kept bits (a bytearray, with its spare capacity), one chunk's
        copy while appending, and at ``finalize`` the packed copy (the
        buffer's bytes, then the zero-padded array) plus ``_evaluate``'s
        temporaries for n = max_bits (or the ``stream_bits`` that arrive)."""
        p = cls.with_defaults(params)
        n = p["max_bits"] if stream_bits is None else min(p["max_bits"], stream_bits)
        kept = -(-n // 8)
        held = kept + kept // 4 + OBJECT_BYTES
        update = min(chunk_bytes, kept)
        finalize = 2 * kept + _PAD_BYTES + cls._evaluation_bytes(n, p)
        return MemoryNeed(held, max(update, finalize), cls._result_count(p))

    @classmethod
    def _evaluation_bytes(cls, n: int, params: dict[str, Any]) -> int:
        """Temporaries of ``_evaluate`` on n kept bits, beyond the packed bits."""
        raise NotImplementedError(f"{cls.__name__} does not state its evaluation's memory")

    @classmethod
    def _result_count(cls, params: dict[str, Any]) -> int:
        return 1

    def __init__(self, *, max_bits: int = DEFAULT_MAX_BITS) -> None:
        super().__init__()
        if not isinstance(max_bits, int) or isinstance(max_bits, bool) or max_bits < 1:
            raise ValueError(f"max_bits must be a positive integer, not {max_bits!r}")
        self.max_bits = max_bits
        self.buffer = BitBuffer(max_bits)

    def _update(self, chunk: np.ndarray) -> None:
        self.buffer.append_bytes(chunk)

    def update_tail_bits(self, bits: np.ndarray) -> None:
        self.buffer.append_bits(bits)

    def _merge(self, other: Accumulator) -> None:
        self.buffer.extend(other.buffer)

    def finalize(self) -> list[TestResult]:
        n = self.buffer.bits_kept
        results = self._evaluate(self.buffer.packed(), n)
        if self.buffer.bits_seen > n:
            note = f"tested the first {n} of {self.buffer.bits_seen} bits (max_bits = {self.max_bits})"
            for result in results:
                result.details["bits_seen"] = self.buffer.bits_seen
                result.details["note"] = note
        return results

    @abstractmethod
    def _evaluate(self, packed: np.ndarray, n: int) -> list[TestResult]:
        """Results for the n-bit sequence ``packed`` (zero-padded at the end)."""
