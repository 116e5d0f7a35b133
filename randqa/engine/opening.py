"""Opening what a run names: the one place the engine turns a source's name
('-', a path, a generator, ``module:attr``), with its seed, format, fold or
stream layout, into a Source (randqa.sources opens the name itself)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from randqa.sources import Source, open_backend, open_source
from randqa.sources.folded import fold_source

if TYPE_CHECKING:
    from randqa.sources.multistream import StreamLayout


def open_named(spec: str, *, seed: int | None = None, fmt: str = "bytes", fold: tuple[int, int] | None = None,
               layout: "StreamLayout | None" = None) -> Source:
    """Open ``spec`` folded as ``fold`` (word bits, low bits) says, or its
    interleaved streams under ``layout``."""
    if layout is not None:
        from randqa.sources.multistream import open_streams

        return open_streams(spec, seed, layout)
    source = open_source(spec, fmt=fmt, seed=seed)
    return fold_source(source, fold[0], fold[1]) if fold else source


def open_seeded(name: str, seed: int) -> Source:
    """Generator ``name`` seeded ``seed``: one stream of a seed sweep."""
    return open_backend(name, seed)
