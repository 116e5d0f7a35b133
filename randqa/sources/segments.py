"""Opening a source at a byte offset, so that a long run can be cut into
contiguous segments and a worker given segment k gets exactly bytes
``[k*S, (k+1)*S)`` of the stream a one-process run reads.

Each source says how its segments are made (``Source.split_method``) and
makes them (``Source.open_at``): a regular file reads its range with
``pread`` (randqa.sources.streams.PreadSource); a generator that owns a jump
(``GeneratorSource.advance``: LCG maps, GF(2) matrix powers, MT19937's
characteristic polynomial, a BitGenerator's own ``advance``; see
randqa/sources/jumps.py) is placed there; an independent source (urandom,
...) is opened afresh.  :func:`open_at` does the same from what a worker
is sent: the source's spec and the seed the run recorded.
"""

from __future__ import annotations

from typing import Any

from randqa.sources.base import SPLIT_METHODS, NotSplittable, Source, SplitMethod

__all__ = ["SPLIT_METHODS", "NotSplittable", "SplitMethod", "open_at"]


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
    from randqa.sources.opening import open_source

    if offset < 0:
        raise ValueError("offset must be >= 0")
    if streams is not None:
        from randqa.interleaving import StreamLayout
        from randqa.sources.multistream import open_streams

        if seed is None:
            raise ValueError("open_at needs the seed the run recorded: without one each worker would draw its own")
        return open_streams(spec, seed, StreamLayout.from_json(streams), offset)
    with open_source(spec, fmt=fmt, seed=seed, fold=fold) as source:
        if source.split_method == "jump" and seed is None:
            raise ValueError("open_at needs the seed the run recorded: without one each worker would draw its own")
        return source.open_at(offset, length)
