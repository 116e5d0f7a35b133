"""Arguments of the API's functions checked and converted as the CLI's options are, and the
outputs (JSON, HTML) its runs write."""

from __future__ import annotations

import contextlib
import json as _json
import numbers
import os
import uuid
import warnings
from collections.abc import Iterator, Sequence
from typing import Any, ContextManager, Union

import numpy as np

from randqa.engine.options import OPTIONS, check_value, size_option
from randqa.errors import RandqaError


#: a size: a whole number of bytes (bits with ``format="bits"``) or a string such as ``"64M"``
Size = Union[int, str]
#: a path the API writes or reads
PathLike = Union[str, "os.PathLike[str]"]


def _view_id(kind: str) -> str:
    """A prefix for the SVG ids of one notebook view, unique across kernel restarts
    (outputs of earlier sessions stay in the notebook)."""
    return f"randqa-{kind}{uuid.uuid4().hex[:12]}"


# ---------------------------------------------------------------- errors and arguments

@contextlib.contextmanager
def _python_errors() -> Iterator[None]:
    """randqa's one-line errors (usage, input, suite files) as ValueError, same text."""
    try:
        yield
    except RandqaError as exc:
        raise ValueError(str(exc)) from None


def _size(value: object, keyword: str) -> int | None:
    """A size keyword: None, a whole number, or a string as the CLI takes it
    (parsed by the CLI's own callback, so a refusal is the CLI's line)."""
    if value is None:
        return None
    if isinstance(value, str) or (isinstance(value, numbers.Integral) and not isinstance(value, bool)):
        with _python_errors():
            return size_option(None, OPTIONS[keyword].click_option(keyword), str(value if isinstance(value, str) else int(value)))
    raise TypeError(f"{keyword} must be a whole number of bytes or a size string such as '64M', "
                    f"not {type(value).__name__}")


def _whole(value: object, keyword: str) -> int | None:
    """An integer keyword (seed, threads, ...): None or a whole number (ranges are the plan's)."""
    if value is None:
        return None
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    raise TypeError(f"{keyword} must be a whole number, not {type(value).__name__}")


def _threads(threads: object, jobs: object, function: str, default: object) -> tuple[object, int | None]:
    """``threads``, or the deprecated ``jobs`` given instead (the CLI's
    --jobs counts worker processes; the API's threads run in this process):
    the value as given, for the call's text, and as a whole number (a
    TypeError names the keyword it came from; ``threads`` out of its range
    gets its line)."""
    if jobs is None:
        value = _whole(threads, "threads")
        with _python_errors():
            check_value("threads", value)
        return threads, value
    warnings.warn(f"randqa.{function}(jobs=...) is deprecated: use threads=, the threads in this process "
                  "(randqa's --jobs counts worker processes)", DeprecationWarning, stacklevel=3)
    if threads != default:
        raise TypeError(f"randqa.{function}: give threads, not both threads and jobs")
    return jobs, _whole(jobs, "jobs")


def _flag(value: object, keyword: str) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{keyword} must be True or False, not {type(value).__name__}")


def _text(value: object, keyword: str) -> str:
    if isinstance(value, str):
        return value
    raise TypeError(f"{keyword} must be a string, not {type(value).__name__}")


def _test_names(value: object) -> str | None:
    """``tests``: None, "a,b" as the CLI takes it, or a sequence of names."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        return ",".join(value)
    raise TypeError(f"tests must be a comma-separated string or a list of test names, not {type(value).__name__}")


def _path(value: object, keyword: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        if isinstance(path, str):
            return path
    raise TypeError(f"{keyword} must be a path (str or os.PathLike), not {type(value).__name__}")


def _progress_bar(enabled: bool, total: int | None, desc: str | None = None) -> ContextManager[Any]:
    """The CLI's progress bar on stderr, or a no-op (imported only when wanted)."""
    if not enabled:
        return contextlib.nullcontext(None)
    from randqa.cli.common import ProgressBar

    return ProgressBar(True, total, desc=desc)


def _call_text(function: str, source: object, options: dict[str, Any], defaults: dict[str, Any]) -> str:
    """The call as a line of Python for the report's ``command``: the options that differ from their defaults."""
    from randqa.sources.python_objects import public_name

    if isinstance(source, (str, os.PathLike)):
        first = repr(os.fspath(source))
    elif isinstance(source, (list, tuple)) and all(isinstance(s, (str, os.PathLike)) for s in source):
        first = repr([os.fspath(s) for s in source])
    elif isinstance(source, type):
        first = f"<{public_name(source)} class>"
    elif isinstance(source, (bytes, bytearray, memoryview, np.ndarray)):
        size = source.nbytes if isinstance(source, (np.ndarray, memoryview)) else len(source)
        first = f"<{type(source).__name__} of {size} bytes>"
    elif callable(source) and not hasattr(source, "random_raw"):
        first = f"<callable {getattr(source, '__qualname__', type(source).__name__)}>"
    else:
        first = f"<{public_name(type(source))} instance>"
    given = [f"{k}={v!r}" for k, v in options.items() if v != defaults.get(k)]
    return f"randqa.{function}(" + ", ".join([first] + given) + ")"


def _environment() -> dict[str, Any]:
    from randqa._report.environment import environment

    return environment()


def _write_outputs(document: dict[str, Any], json_path: str | None, html_path: str | None) -> None:
    with _python_errors():
        if json_path:
            from randqa._report.json_report import write_json

            write_json(document, json_path)
        if html_path:
            from randqa._report.html import write_html_report

            write_html_report([document], html_path)


def _plain_json(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` as the JSON file holds it: plain dicts, lists, str, numbers (no enums or tuples)."""
    plain: dict[str, Any] = _json.loads(_json.dumps(document, allow_nan=False))
    return plain


