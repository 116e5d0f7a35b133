"""Low-bits folding: the low bits of every word of a stream, as PractRand's
[Low1/8], [Low4/32] and [Low8/32] sub-streams see it.

Source: C. Doty-Humphrey, PractRand 0.94, doc/RNG_test.txt ("folding": the
core tests are also run on the low bits of each word, where LCGs and
lagged-Fibonacci generators are weakest).

``fold_low_bits`` turns a stream of little-endian words into the byte
stream made of the low ``low_bits`` bits of each word, most significant of
those bits first, in stream order, packed most significant bit first: for
low_bits = 8 it is the low byte of every word; for low_bits = 1 and 8-bit
words, 8 input bytes give one output byte whose top bit is the first
input byte's lowest bit.  It streams: the carry holds the start of an
incomplete word and the pending 0-7 output bits.

Both a folded source (``--word-bits``, randqa/sources/folded.py) and a
folded suite entry (``fold_word_bits``, randqa/battery/_folding.py) use
it, so it lives below both; ``check_folding`` is the one check of a
folding's parameters wherever they come from.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from randqa import _folding

#: word sizes a stream can be folded at
WORD_BITS = (8, 16, 32, 64)


def check_folding(word_bits: object, low_bits: object) -> None:
    """Raise ValueError unless ``word_bits``-bit words keep 1 to word_bits - 1 low bits."""
    if not isinstance(word_bits, int) or isinstance(word_bits, bool) or word_bits not in WORD_BITS:
        raise ValueError(f"folding needs words of 8, 16, 32 or 64 bits, not {word_bits!r}")
    if not isinstance(low_bits, int) or isinstance(low_bits, bool) or not 1 <= low_bits < word_bits:
        raise ValueError(f"folding keeps 1 to {word_bits - 1} low bits of each {word_bits}-bit word, not {low_bits!r}")


@dataclass(frozen=True)
class FoldCarry:
    """What one call of fold_low_bits leaves for the next."""

    partial_word: bytes = b""  # the first bytes of an incomplete word
    bits: int = 0  # the pending output bits, the oldest most significant
    bit_count: int = 0  # how many (0-7)


def fold_low_bits(
    chunk: np.ndarray, word_bytes: int, low_bits: int, carry: FoldCarry | None
) -> tuple[np.ndarray, FoldCarry]:
    """The packed low bits of the words of ``chunk`` (uint8), and the carry for the next chunk.

    ``carry`` is None at the start of a stream.  The result does not depend
    on how the stream is cut into chunks.
    """
    if word_bytes not in (1, 2, 4, 8):
        raise ValueError(f"word_bytes must be 1, 2, 4 or 8, not {word_bytes!r}")
    if not (isinstance(low_bits, int) and 1 <= low_bits <= 8 * word_bytes):
        raise ValueError(f"low_bits must be from 1 to {8 * word_bytes}, not {low_bits!r}")
    carry = carry or FoldCarry()
    data = memoryview(np.ascontiguousarray(chunk, dtype=np.uint8)).cast("B")
    pieces = []
    bits, bit_count = carry.bits, carry.bit_count
    partial = carry.partial_word
    if partial:
        take = word_bytes - len(partial)
        partial += bytes(data[:take])
        data = data[take:]
        if len(partial) < word_bytes:
            return np.zeros(0, dtype=np.uint8), FoldCarry(partial, bits, bit_count)
        out, bits, bit_count = _folding.fold_low_bits(partial, word_bytes, low_bits, bits, bit_count)
        pieces.append(out)
        partial = b""
    whole = len(data) - len(data) % word_bytes
    out, bits, bit_count = _folding.fold_low_bits(data[:whole], word_bytes, low_bits, bits, bit_count)
    pieces.append(out)
    packed = pieces[0] if len(pieces) == 1 else b"".join(pieces)
    return np.frombuffer(packed, dtype=np.uint8), FoldCarry(bytes(data[whole:]), bits, bit_count)
