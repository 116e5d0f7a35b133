"""K streams interleaved every B bytes: where each stream's bytes lie.

The interleaved stream is made of rounds of K * B bytes; round r holds
bytes ``[r B, (r + 1) B)`` of stream 0, then the same bytes of stream 1,
and so on to stream K - 1.  This is how a parallel program's streams meet
in one output (randomgen's issue 241, the SHISHUA harness, numpy's
PractRand harness for SeedSequence spawn trees interleave so), and how
``randqa test GEN --streams K --interleave B`` feeds the tests.

A multi-stream source (randqa/sources/multistream.py) writes the
interleaved stream with :func:`interleave_into`; a suite entry that tests
one stream alone or a pair of streams (randqa/battery/_streams.py) reads
its stream back with :func:`deinterleave`.  Both work on pieces that start
and end anywhere, given the piece's position in the interleaved stream, so
results do not depend on how the stream is cut into chunks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

#: the most streams one run interleaves
MAX_STREAMS = 256
#: the largest block of one stream between two others' (bytes)
MAX_INTERLEAVE = 1 << 20


def check_interleaving(streams: object, block: object) -> None:
    """ValueError unless 2 <= ``streams`` <= MAX_STREAMS and 1 <= ``block`` <= MAX_INTERLEAVE."""
    for value, what, low, high in ((streams, "streams", 2, MAX_STREAMS), (block, "interleave", 1, MAX_INTERLEAVE)):
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise ValueError(f"{what} must be a whole number from {low} to {high}, not {value!r}")


def stream_position(position: int, streams: int, block: int, index: int) -> int:
    """Bytes of stream ``index`` among the first ``position`` bytes of the interleaved stream."""
    rounds, rest = divmod(position, streams * block)
    return rounds * block + min(block, max(0, rest - index * block))


def _pieces(length: int, position: int, streams: int, block: int, index: int) -> tuple[slice, slice, int, slice]:
    """Where stream ``index``'s bytes lie in a piece of ``length`` bytes that
    starts at interleaved byte ``position``: a slice in the partial round
    at the start, the start and round count of the whole rounds, and a
    slice in the partial round at the end."""
    period = streams * block
    low, high = index * block, (index + 1) * block
    offset = position % period
    head = min(length, (period - offset) % period)
    # the head covers round offsets [offset, offset + head), the tail [0, tail)
    head_slice = slice(min(head, max(0, low - offset)), min(head, max(0, high - offset)))
    rounds = (length - head) // period
    tail_start = head + rounds * period
    tail = length - tail_start
    tail_slice = slice(tail_start + min(low, tail), tail_start + min(high, tail))
    return head_slice, slice(head, tail_start), rounds, tail_slice


def _rounds(piece: np.ndarray, rounds: int, streams: int, block: int) -> np.ndarray:
    """Whole rounds as a (rounds, streams, units) array of the widest unsigned
    integers that tile a block, so a stream's column is copied word by word."""
    width = next(w for w in (8, 4, 2, 1) if block % w == 0)
    return piece.view(f"<u{width}").reshape(rounds, streams, block // width)


def deinterleave(chunk: np.ndarray, position: int, streams: int, block: int, index: int) -> np.ndarray:
    """The bytes of stream ``index`` in ``chunk`` (uint8), a piece of the
    interleaved stream that starts at byte ``position``."""
    return deinterleave_all(chunk, position, streams, block, (index,))[0]


def deinterleave_all(chunk: np.ndarray, position: int, streams: int, block: int,
                     indices: tuple[int, ...] | None = None) -> list[np.ndarray]:
    """The bytes of every stream (or of those of ``indices``) in ``chunk``
    (uint8), a piece of the interleaved stream that starts at byte ``position``."""
    wanted = range(streams) if indices is None else indices
    pieces = [_pieces(len(chunk), position, streams, block, index) for index in wanted]
    if not pieces:
        return []
    middle, rounds = pieces[0][1], pieces[0][2]
    whole = _rounds(chunk[middle], rounds, streams, block) if rounds else None
    out = []
    for index, (head, _middle, _rounds_count, tail) in zip(wanted, pieces):
        parts = [chunk[head]]
        if whole is not None:
            parts.append(np.ascontiguousarray(whole[:, index, :]).view(np.uint8).reshape(-1))
        parts.append(chunk[tail])
        parts = [p for p in parts if len(p)]
        out.append(np.ascontiguousarray(parts[0]) if len(parts) == 1 else
                   np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint8))
    return out


def interleave_into(out: np.ndarray, position: int, streams: int, block: int, index: int, data: np.ndarray) -> None:
    """Write ``data``, the next bytes of stream ``index``, where they go in
    ``out``: a piece of the interleaved stream that starts at byte
    ``position`` (``data`` holds exactly as many bytes as the piece has of
    that stream; :func:`stream_position` says how many)."""
    head, middle, rounds, tail = _pieces(len(out), position, streams, block, index)
    lengths = (head.stop - head.start, rounds * block, tail.stop - tail.start)
    if sum(lengths) != len(data):
        raise ValueError(f"stream {index} has {sum(lengths)} bytes in this piece, not {len(data)}")
    out[head] = data[:lengths[0]]
    if rounds:
        whole = _rounds(out[middle], rounds, streams, block)
        whole[:, index, :] = data[lengths[0]:lengths[0] + lengths[1]].view(whole.dtype).reshape(rounds, -1)
    out[tail] = data[lengths[0] + lengths[1]:]


# --------------------------------------------------------------------------
# Result names: what a test of one stream, or of a pair's XOR, is called

_VIEW_NAME = re.compile(r"\[stream (\d+)\]$|\[streams (\d+) xor (\d+)\]$")


def stream_suffix(index: int) -> str:
    """The suffix of a result of stream ``index`` tested alone: ``chi_square[stream 3]``."""
    return f"[stream {index}]"


def pair_suffix(first: int, second: int) -> str:
    """The suffix of a result of two streams' XOR: ``frequency[streams 0 xor 1]``."""
    return f"[streams {first} xor {second}]"


def view_of(name: str) -> tuple[int, ...] | None:
    """The stream (i,) or pair (i, j) a result name's suffix names; None for the interleaved stream."""
    match = _VIEW_NAME.search(name)
    if match is None:
        return None
    return (int(match.group(1)),) if match.group(1) is not None else (int(match.group(2)), int(match.group(3)))


@dataclass(frozen=True)
class StreamLayout:
    """How many streams, seeded how, interleaved every how many bytes
    (None: the generator's word size, resolved when the streams open)."""

    count: int
    scheme: str
    interleave: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "scheme": self.scheme, "interleave": self.interleave}

    @classmethod
    def from_json(cls, data: Any) -> "StreamLayout":
        if not isinstance(data, dict) or set(data) != {"count", "scheme", "interleave"}:
            raise ValueError("its streams are not described")
        layout = cls(data["count"], data["scheme"], data["interleave"])
        check_interleaving(layout.count, layout.interleave or 1)
        if not isinstance(layout.scheme, str):
            raise ValueError("its stream scheme is not a string")
        return layout
