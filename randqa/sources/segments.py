"""Opening a source at a byte offset, so that a long run can be cut into
contiguous segments and a worker given segment k gets exactly bytes
``[k*S, (k+1)*S)`` of the stream a one-process run reads.

Each source says how its segments are made (``Source.split_method``) and
makes them (``Source.open_at``): a regular file reads its range with
``pread`` (:class:`PreadSource`); a generator that owns a jump
(``GeneratorSource.advance``: LCG maps, GF(2) matrix powers, MT19937's
characteristic polynomial, a BitGenerator's own ``advance``; see
randqa/sources/jumps.py) is placed there; an independent source (urandom,
...) is opened afresh.  :func:`open_at` does the same from what a worker
is sent: the source's spec and the seed the run recorded.
"""

from __future__ import annotations

import os
import stat
from typing import Any

from randqa.sources.base import SPLIT_METHODS, NotSplittable, Source, SplitMethod

__all__ = ["SPLIT_METHODS", "NotSplittable", "PreadSource", "SplitMethod", "open_at"]


class PreadSource(Source):
    """Bytes ``[offset, offset + length)`` of a regular file (to its end when
    ``length`` is None), read with ``pread``: no file position is shared, so
    any number of readers can use one file side by side."""

    def __init__(self, path: str, offset: int = 0, length: int | None = None) -> None:
        from randqa.sources.streams import _open_input

        if offset < 0 or (length is not None and length < 0):
            raise ValueError("offset and length must be >= 0")
        self.fd, _owned, self.name = _open_input(path)
        if not _owned or not stat.S_ISREG(os.fstat(self.fd).st_mode):
            self.close()
            raise NotSplittable(f"{path}: not a regular file, so it can only be read in order")
        self.position = offset
        self.end = None if length is None else offset + length

    def readinto(self, buffer: memoryview) -> int:
        want = len(buffer) if self.end is None else max(0, min(len(buffer), self.end - self.position))
        if want == 0:
            return 0
        got = _pread_into(self.fd, memoryview(buffer)[:want], self.position)
        self.position += got
        return got

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _pread_into(fd: int, view: memoryview, offset: int) -> int:
    if hasattr(os, "preadv"):
        return os.preadv(fd, [view], offset)
    data = os.pread(fd, len(view), offset)
    view[: len(data)] = data
    return len(data)


def open_at(spec: str, seed: int | None, offset: int, *, fmt: str = "bytes", length: int | None = None,
            streams: dict[str, Any] | None = None, fold: tuple[int, int] | None = None) -> Source:
    """A fresh source reading the stream of ``spec`` (with ``seed``, the seed
    the one-process run recorded) from byte ``offset`` on.

    A file is read with pread (at most ``length`` bytes when given); a
    generator that can jump is placed there; an independent source (urandom,
    ...) is simply opened afresh, since no run of it can be repeated.  A
    sequential source raises :class:`NotSplittable`.  With ``streams`` (a
    StreamLayout's JSON, the interleave resolved) it is the interleaved
    stream of that many streams of ``spec``, each jumped to its place.
    With ``fold`` (word bits, low bits), ``offset`` counts folded bytes.
    """
    from randqa.sources import open_source

    if offset < 0:
        raise ValueError("offset must be >= 0")
    if streams is not None:
        from randqa.sources.multistream import StreamLayout, open_streams

        if seed is None:
            raise ValueError("open_at needs the seed the run recorded: without one each worker would draw its own")
        return open_streams(spec, seed, StreamLayout.from_json(streams), offset)
    with open_source(spec, fmt=fmt, seed=seed, fold=fold) as source:
        if source.split_method == "jump" and seed is None:
            raise ValueError("open_at needs the seed the run recorded: without one each worker would draw its own")
        return source.open_at(offset, length)
