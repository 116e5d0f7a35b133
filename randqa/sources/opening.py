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

from randqa.errors import InputError, UsageError
from randqa.sources.backends import find_backend, open_named_backend
from randqa.sources.base import Source
from randqa.sources.streams import is_data_spec
from randqa.sources.user_code import USER_CODE_ERRORS, exception_line, is_user_code_spec, resolve_user_object

if TYPE_CHECKING:
    from randqa.interleaving import StreamLayout

#: what --format accepts
FORMATS = ("bytes", "bits")

#: the kinds of source a seed applies to: generator names, classes and make(seed) functions
SEEDED_KINDS = ("generator", "class")

#: why --seed is refused, by the kind of source it was given to
_SEED_REFUSED = {
    "file": "--seed applies to generator backends, not to stdin or files",
    "data": "--seed applies to generator names and BitGenerator classes, not to data (bytes, arrays, files, chunks)",
    "instance": "--seed applies to generator names and BitGenerator classes, not to a BitGenerator instance, "
                "which is tested from its current state",
    "callable": "--seed applies to generator names and BitGenerator classes, not to a callable source "
                "f(k) -> bytes (seed it inside the function, or give a class or a function make(seed))",
}


def seed_for(kind: str, seed: int | None, *, generators_only: bool = False) -> int | None:
    """The seed a source of ``kind`` opens with.

    A seed applies to generators (names and BitGenerator classes); given to
    anything else it is a UsageError saying so, or, with ``generators_only``
    (one seed for a run of several sources, as ``compare --seed``), it is
    left to the generators among them.
    """
    if seed is None or kind in SEEDED_KINDS:
        return seed
    if generators_only:
        return None
    raise UsageError(_SEED_REFUSED[kind])


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


def open_user_code(spec: str, seed: int | None = None) -> Source:
    """The source ``spec`` names in the user's code, read by the one rule
    randqa.sources.python_objects.python_object_source has for the Python
    API's objects (a class is constructed with the seed, a function ``f(k)``
    returns up to k bytes, an instance is tested from its current state);
    named ``spec`` in reports.  It opens again (``Source.reopen``) with the
    seed it recorded.  Whatever the user's code raises, ``sys.exit()``
    included, is a UsageError (or an InputError mid-stream) naming ``spec``."""
    from randqa.sources.python_objects import describe_forms, kind_of, python_object_source

    obj = resolve_user_object(spec)
    try:
        if kind_of(obj) is None:
            raise UsageError(f"{spec} is a {type(obj).__name__}; randqa tests {describe_forms()}")
        source, kind = python_object_source(obj, seed=seed, name=spec, imported=True)
    except (UsageError, InputError):
        raise
    except USER_CODE_ERRORS as exc:  # noqa: BLE001 - the user's object failed while being opened
        raise UsageError(f"{spec}: opening it raised {exception_line(exc)}") from None
    if not (kind == "instance" and seed is not None and seed == source.seed):  # its own start's seed, as recorded
        try:
            seed_for(kind, seed)
        except UsageError as exc:
            source.close()
            raise UsageError(f"{spec}: {exc}") from None
    recorded = seed if source.seed is None else source.seed
    source.reopen = lambda: open_user_code(spec, recorded)
    return source


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
