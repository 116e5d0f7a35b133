"""The one way to open a source: a generator name, '-' (stdin), a path, the
user's own generator (``./mygen.py:NAME`` or ``mygen:NAME``), or a Python
object (bytes, arrays, file objects, chunks, callables, BitGenerators and
lists of them), with one seed rule and one format rule.  The user's
generator named by a spec and the same object given to the API are read by
one rule (randqa.sources.python_objects.python_object_source).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from randqa.errors import UsageError
from randqa.sources.backends import find_backend, open_named_backend
from randqa.sources.base import Source
from randqa.sources.python_objects import open_user_code, seed_for
from randqa.sources.streams import is_data_spec
from randqa.sources.user_code import is_user_code_spec

if TYPE_CHECKING:
    from randqa.interleaving import StreamLayout

#: what --format accepts
FORMATS = ("bytes", "bits")

def check_format(kind: str, fmt: str) -> None:
    """--format bits reads text data: a UsageError for any other kind of source."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}: use bytes or bits")
    if fmt != "bytes" and kind not in ("file", "data"):
        raise UsageError("--format bits applies to stdin and files, not to generators")


def open_source(what: str | os.PathLike[str] | Any, *, seed: int | None = None, fmt: str = "bytes",
                fold: tuple[int, int] | None = None, layout: StreamLayout | None = None,
                name: str | None = None, interleave: int | None = None,
                generators_only: bool = False) -> Source:
    """Open what a run reads.

    ``what`` is '-' (stdin), a file path, a generator backend name (``randqa
    list``), the user's generator (``./mygen.py:NAME``, ``mygen:NAME``:
    randqa.sources.user_code), or a Python object
    (randqa.sources.python_objects); a list of BitGenerator instances is
    their interleaved streams, every ``interleave`` bytes.  ``seed`` follows
    :func:`seed_for`, ``fmt`` :func:`check_format`; ``layout`` opens the
    --streams of a generator; ``fold`` is (word bits, low bits) of
    --word-bits/--low-bits; ``name`` renames the source in reports.
    """
    if layout is not None:
        from randqa.sources.multistream import open_streams

        if not isinstance(what, (str, os.PathLike)):
            raise UsageError("--streams needs a generator (randqa list), not stdin or a file")
        source: Source = open_streams(os.fspath(what), seed, layout)
    elif isinstance(what, (str, os.PathLike)):
        source = _open_spec(os.fspath(what), seed, fmt, generators_only)
    else:
        source = _open_object(what, seed, fmt, interleave, fold)
    if name is not None:
        source.name = name
    if fold is None:
        return source
    from randqa.sources.folded import fold_source

    return fold_source(source, *fold)


def _open_spec(spec: str, seed: int | None, fmt: str, generators_only: bool) -> Source:
    from randqa.sources.streams import BitTextStream, ByteStream

    kind = "file" if is_data_spec(spec) else "generator"
    seed = seed_for(kind, seed, generators_only=generators_only)
    check_format(kind, fmt)
    if kind == "file":
        return BitTextStream(spec) if fmt == "bits" else ByteStream(spec)
    if is_user_code_spec(spec) and find_backend(spec.partition(":")[0]) is None:  # not a NAME:PARAM backend
        return open_user_code(spec, seed)
    return open_named_backend(spec, seed, what="source", alternatives="not a file, '-' or a backend name")


def _open_object(obj: Any, seed: int | None, fmt: str, interleave: int | None,
                 fold: tuple[int, int] | None) -> Source:
    from randqa.sources.python_objects import bitgenerator_list, python_object_source
    from randqa.sources.streams import BitTextStream

    if bitgenerator_list(obj):
        from randqa.sources.multistream import given_streams
        from randqa.sources.python_objects import GIVEN_STREAMS_TAKE_NO_OPTIONS, bitgenerator_instance_source

        if seed is not None or fold is not None or fmt != "bytes":
            raise UsageError(GIVEN_STREAMS_TAKE_NO_OPTIONS)
        return given_streams([bitgenerator_instance_source(b) for b in obj], interleave)
    source, kind = python_object_source(obj, seed=seed)
    try:
        seed_for(kind, seed)
        check_format(kind, fmt)
        return BitTextStream(source) if fmt == "bits" else source
    except BaseException:
        source.close()
        raise
