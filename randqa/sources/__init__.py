"""Sources of bytes: stdin, files, and (randqa.sources.backends) generators.

Everything downstream sees only :class:`Source`, so any test or report works
on any source unchanged.
"""

from __future__ import annotations

import difflib
import os

from randqa.errors import UsageError
from randqa.sources.backends import backend_names, open_backend
from randqa.sources.base import Source, read_full
from randqa.sources.streams import BitTextStream, ByteStream

__all__ = ["Source", "read_full", "open_source", "ByteStream", "BitTextStream", "backend_names", "open_backend", "open_named_backend", "is_data_spec"]

FORMATS = ("bytes", "bits")


def is_data_spec(spec: str) -> bool:
    """Whether ``spec`` names data (stdin '-' or a file path) rather than a generator."""
    return spec == "-" or os.path.exists(spec) or os.sep in spec


def open_source(spec: str, *, fmt: str = "bytes", seed: int | None = None) -> Source:
    """Open '-' (stdin), a file path, or a named generator backend."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}: use bytes or bits")
    if is_data_spec(spec):
        if seed is not None:
            raise UsageError("--seed applies to generator backends, not to stdin or files")
        return BitTextStream(spec) if fmt == "bits" else ByteStream(spec)
    if fmt != "bytes":
        raise UsageError("--format bits applies to stdin and files, not to generators")
    return open_named_backend(spec, seed, what="source", alternatives="not a file, '-' or a backend name")


def open_named_backend(name: str, seed: int | None = None, *, what: str = "backend",
                       alternatives: str = "not a backend name") -> Source:
    """open_backend, with an unknown name a UsageError that lists close matches."""
    try:
        return open_backend(name, seed)
    except KeyError:
        pass
    close = difflib.get_close_matches(name, backend_names(), n=4, cutoff=0.5)
    hint = f" (close matches: {', '.join(close)})" if close else "; see `randqa list`"
    raise UsageError(f"unknown {what} {name!r}: {alternatives}{hint}")
