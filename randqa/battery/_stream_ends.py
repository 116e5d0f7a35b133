"""The first and the last bytes of a part of the stream, for tests whose
windows span many words (lagged_difference, lagged_mod3, lagged_repeats).

A window that starts near the end of one chunk ends in the next, and one
that starts near the end of a part ends in the part merged after it: the
test counts it once it has the last ``span`` bytes before the join (the
``history``) and the first ``span`` bytes after it (the other part's
``head``).

The history is kept in a buffer of twice the span, appended to in place
and moved to the front only when full: each byte is copied about twice
whatever the chunk size.  Keeping it as a fresh array of the last ``span``
bytes would copy the whole span at every chunk, which for a span of 32 MiB
read in 4 MiB chunks is 8 copies of every byte of the stream.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class StreamEnds:
    """The first and the last ``span`` bytes of the bytes appended (all of
    them while there are fewer)."""

    def __init__(self, span: int = 0) -> None:
        self.span = span
        self._head = np.zeros(0, dtype=np.uint8)
        self._head_length = 0
        self._buffer = np.zeros(0, dtype=np.uint8)
        self._end = 0  # the history is the span bytes before it in _buffer

    @property
    def head(self) -> np.ndarray:
        """The first <= span bytes, as a view."""
        return self._head[:self._head_length]

    @property
    def history(self) -> np.ndarray:
        """The last <= span bytes, as a view (valid until the next append)."""
        return self._buffer[max(0, self._end - self.span):self._end]

    def append(self, data: np.ndarray) -> None:
        """Add ``data`` (uint8) after the bytes seen."""
        self._add_head(data)
        self._add_history(data)

    def join(self, other: "StreamEnds") -> None:
        """Add the bytes of ``other``, the part that follows this one."""
        self._add_head(other.head)
        self._add_history(other.history)

    def _add_head(self, data: np.ndarray) -> None:
        if self._head_length < self.span:  # then every byte seen so far is in head
            if len(self._head) < self.span:
                self._head = np.concatenate([self.head, np.empty(self.span - self._head_length, dtype=np.uint8)])
            taken = data[: self.span - self._head_length]
            self._head[self._head_length:self._head_length + len(taken)] = taken
            self._head_length += len(taken)

    def _add_history(self, data: np.ndarray) -> None:
        span, n = self.span, len(data)
        if len(self._buffer) < 2 * span:
            grown = np.empty(2 * span, dtype=np.uint8)  # pages are touched only as the history reaches them
            grown[:self._end] = self._buffer[:self._end]
            self._buffer = grown
        if n >= span:
            self._buffer[:span] = data[n - span:]
            self._end = span
            return
        if self._end + n > len(self._buffer):
            keep = min(self._end, span)
            self._buffer[:keep] = self._buffer[self._end - keep:self._end]  # numpy copies overlapping ranges safely
            self._end = keep
        self._buffer[self._end:self._end + n] = data
        self._end += n

    def _state_export(self) -> dict[str, Any]:
        """Its state (randqa.battery._state): the span and the two ends, not the spare buffer."""
        return {"span": self.span, "head": self.head.copy(), "history": self.history.copy()}

    def _state_import(self, values: dict[str, Any], where: str) -> None:
        from randqa.battery._state import StateError

        span, head, history = values["span"], values["head"], values["history"]
        if not (type(span) is int and span >= 0 and head.ndim == 1 and history.ndim == 1
                and len(head) <= span and len(history) <= span and (len(head) == span or len(head) == len(history))):
            raise StateError(f"{where}: not the ends of a stream")
        self.span, self._head, self._head_length = span, head.copy(), len(head)
        self._buffer, self._end = history.copy(), len(history)
