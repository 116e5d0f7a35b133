"""A user's code run as a source (``module:attr`` and ``./file.py:attr``
specs, plugins, the Python API's objects): what it raises or returns is
checked at every call, so a broken plugin ends the run with one line
instead of a traceback, zeros or an endless loop.

A spec names an object in the user's code in one of two forms, both read
from the folder the user stands in:

- ``./mygen.py:MyGen`` (any path ending in ``.py``, then ``:`` and the
  attribute): the file is imported by its location, as ``python mygen.py``
  would run it (its folder on the import path, so it imports its neighbours);
- ``mygen:MyGen`` (``package.module:attribute``): the module is imported,
  with the current folder on the import path after everything else, so an
  installed module of the same name wins and nothing installed is shadowed.

What the object is decides how it is read and how a seed applies
(randqa.sources.python_objects.python_object_source, the rule the Python
API's objects follow too).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import re
import sys
from typing import Any

import numpy as np

from randqa.errors import InputError, UsageError, one_line
from randqa.sources.base import Source

#: what the user's code may raise that ends the run with one line (exit 2):
#: any exception, and sys.exit() too, which is the code's failure, not randqa's exit
USER_CODE_ERRORS = (Exception, SystemExit)


def exception_line(exc: BaseException) -> str:
    """``Type: message`` on one line, shortened."""
    message = one_line(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


class CheckedSource(Source):
    """A user's Source, with what its code returns checked at every call:
    ``readinto`` must return a whole number from 0 to the buffer's length
    (anything else, an exception included, is an InputError), so a broken
    plugin ends the run with one line instead of looping or a traceback."""

    def __init__(self, inner: Source) -> None:
        self.inner = inner
        self.name = inner.name
        self.seed = inner.seed
        self.unit_bits = inner.unit_bits
        self.endless = inner.endless

    def readinto(self, buffer: memoryview) -> int:
        try:
            got = self.inner.readinto(buffer)
        except USER_CODE_ERRORS as exc:  # noqa: BLE001 - the user's code failed mid-stream
            raise InputError(f"backend {self.name}: readinto raised {exception_line(exc)}") from None
        if not isinstance(got, (int, np.integer)) or isinstance(got, bool) or not 0 <= got <= len(buffer):
            raise InputError(f"backend {self.name}: readinto returned {got!r} for a buffer of {len(buffer)} bytes; "
                             f"it must return how many bytes it wrote, 0 to {len(buffer)}")
        return int(got)

    def read_bits(self, max_bits: int) -> np.ndarray:
        return self._call("read_bits", self.inner.read_bits, max_bits)

    def describe(self) -> dict[str, Any]:
        data = dict(self._call("describe", self.inner.describe))
        data.update(name=self.name, seed=self.seed)
        return data

    def close(self) -> None:
        self._call("close", self.inner.close)

    def _call(self, method: str, call: Any, *args: Any) -> Any:
        try:
            return call(*args)
        except USER_CODE_ERRORS as exc:  # noqa: BLE001 - the user's code failed
            raise InputError(f"backend {self.name}: {method} raised {exception_line(exc)}") from None


#: ``name`` or ``name.name...``: a module path or an attribute path
_DOTTED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
#: ``./mygen.py:MyGen``: a Python file by its path, and an attribute of it
_PATH_SPEC = re.compile(rf"^(?P<path>.+\.py):(?P<attribute>{_DOTTED})$")
#: ``mygen:MyGen``: a module by its import name, and an attribute of it
_MODULE_SPEC = re.compile(rf"^(?P<module>{_DOTTED}):(?P<attribute>{_DOTTED})$")
#: the files imported by path in this process, by their absolute path (one module object each)
_IMPORTED_FILES: dict[str, Any] = {}


def is_user_code_path(spec: str) -> bool:
    """Whether ``spec`` is ``path/to/file.py:attribute`` (and not the name of an existing file)."""
    return _PATH_SPEC.match(spec) is not None and not os.path.exists(spec)


def is_user_code_spec(spec: str) -> bool:
    """Whether ``spec`` names an object in the user's code: ``./file.py:attr`` or ``module:attr``."""
    return is_user_code_path(spec) or _MODULE_SPEC.match(spec) is not None


def _import_file(spec: str, path: str) -> Any:
    """The module of the Python file at ``path``, imported once per process under a private
    name (so it shadows no installed module), its folder on the import path."""
    full = os.path.abspath(path)
    if full in _IMPORTED_FILES:
        return _IMPORTED_FILES[full]
    if not os.path.isfile(full):
        raise UsageError(f"{spec}: no such file {path}" if not os.path.exists(full) else f"{spec}: {path} is not a file")
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(full))[0])
    name = f"_randqa_user_{stem}_{hashlib.sha256(full.encode()).hexdigest()[:12]}"
    found = importlib.util.spec_from_file_location(name, full)
    if found is None or found.loader is None:
        raise UsageError(f"{spec}: cannot import {path} as Python code")
    module = importlib.util.module_from_spec(found)
    _append_to_path(os.path.dirname(full))
    sys.modules[name] = module  # as an import does, so dataclasses and pickling find it
    try:
        found.loader.exec_module(module)
    except USER_CODE_ERRORS as exc:  # noqa: BLE001 - the user's file failed while importing
        del sys.modules[name]
        raise UsageError(f"{spec}: importing {path} raised {exception_line(exc)}") from None
    _IMPORTED_FILES[full] = module
    return module


def _append_to_path(folder: str) -> None:
    """Put ``folder`` last on the import path: what is installed keeps its names."""
    if not any(os.path.abspath(entry or os.curdir) == folder for entry in sys.path):
        sys.path.append(folder)


def _import_module(spec: str, module_name: str) -> Any:
    _append_to_path(os.path.abspath(os.curdir))
    try:
        return importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"cannot import module {module_name!r} for {spec!r} from the current folder or the "
                         f"import path ({exc})") from None
    except USER_CODE_ERRORS as exc:  # noqa: BLE001 - the user's module failed while importing
        raise UsageError(f"{spec}: importing {module_name} raised {exception_line(exc)}") from None


def resolve_user_object(spec: str) -> Any:
    """The object ``spec`` names (``./file.py:attr`` or ``module:attr``, see the
    module docstring); UsageError with one line when it cannot be found or
    its import fails."""
    by_path = _PATH_SPEC.match(spec)
    if by_path is not None and not os.path.exists(spec):
        where, attribute = by_path["path"], by_path["attribute"]
        obj = _import_file(spec, where)
    else:
        by_name = _MODULE_SPEC.match(spec)
        if by_name is None:
            raise UsageError(f"{spec!r} names no Python object: use ./file.py:attribute or module:attribute")
        where, attribute = by_name["module"], by_name["attribute"]
        obj = _import_module(spec, where)
    for part in attribute.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UsageError(f"{where} has no attribute {attribute!r} ({spec})") from None
        except USER_CODE_ERRORS as exc:  # noqa: BLE001 - a module __getattr__ or property failed
            raise UsageError(f"{spec}: getting {attribute} raised {exception_line(exc)}") from None
    return obj
