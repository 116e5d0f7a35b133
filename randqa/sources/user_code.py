"""A user's code run as a source (``module:attr`` backends, plugins, the
Python API's objects): what it raises or returns is checked at every call,
so a broken plugin ends the run with one line instead of a traceback, zeros
or an endless loop."""

from __future__ import annotations

from typing import Any

import numpy as np

from randqa.errors import InputError, one_line
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
        return self.inner.read_bits(max_bits)

    def describe(self) -> dict[str, Any]:
        data = self.inner.describe()
        data.update(name=self.name, seed=self.seed)
        return data

    def close(self) -> None:
        self.inner.close()
