"""JSON output: the interchange format that HTML reports are built from.

Files are written whole or not at all (randqa.files.write_atomically), and
read back with a size cap, so that neither a full disk nor a hostile input
costs a result or the machine's memory.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from randqa.errors import InputError, OutputError
from randqa.files import write_atomically
from randqa.sizes import format_size

#: the largest result document ``randqa report`` reads: real ones are at most
#: a few MiB, and parsing takes about 20 times the file's size in memory
MAX_DOCUMENT_BYTES = 256 << 20
#: the most digits a number read back may have: every count and seed randqa
#: writes has far fewer, and any such integer still converts to a float
MAX_NUMBER_DIGITS = 300


def write_json(data: dict[str, Any], destination: str, option: str = "--json") -> None:
    """Write ``data`` to a path, or to stdout when destination is '-'."""
    text = json.dumps(data, indent=2, allow_nan=False) + "\n"
    if destination == "-":
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(f"{option} -: cannot write to stdout ({exc.strerror or exc})") from None
    else:
        write_output_file(destination, text.encode("utf-8"), option)


def write_output_file(path: str, data: bytes, option: str) -> None:
    """Replace the file at ``path`` with ``data`` in one step; OutputError,
    naming ``option`` and the path, leaves any previous file as it was."""
    try:
        write_atomically(path, data)
    except OSError as exc:
        raise OutputError(f"{option} {path}: cannot write ({exc.strerror or exc}); any previous file is unchanged") from None


def read_json_document(path: str) -> Any:
    """The JSON value in the file at ``path``: at most MAX_DOCUMENT_BYTES of
    UTF-8, no NaN or Infinity, nesting no deeper than Python can parse;
    InputError names the file and the problem."""
    data: bytes | None = None
    try:
        with open(path, "rb") as f:
            # a regular file that is too large is refused unread; a device or pipe is read up to the cap
            if os.fstat(f.fileno()).st_size <= MAX_DOCUMENT_BYTES:
                data = f.read(MAX_DOCUMENT_BYTES + 1)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if data is None or len(data) > MAX_DOCUMENT_BYTES:
        raise InputError(f"{path}: larger than {format_size(MAX_DOCUMENT_BYTES)}, more than any randqa result; not read")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a JSON file (not UTF-8 text)") from None
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_int=_bounded_int, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise InputError(f"{path}: not a randqa result (JSON nested too deeply)") from None
    except ValueError as exc:
        raise InputError(f"{path}: not valid JSON ({exc})") from None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _bounded_int(text: str) -> int:
    if len(text) > MAX_NUMBER_DIGITS:
        raise ValueError(f"a number of {len(text)} digits, too large for any field of a result")
    return int(text)


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text[:20]} is too large for a number")
    return value
