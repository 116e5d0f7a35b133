"""The accumulator protocol every test in the battery follows.

A test sees the stream as a sequence of chunks (numpy uint8 arrays) and
keeps only small state, so a 100 GB stream costs the memory of a 100 MB one.
Three rules make results independent of how the stream is cut:

1. ``update(a); update(b)`` equals ``update(a + b)`` for any split.
2. ``x.merge(y)`` equals having fed x's bytes and then y's bytes to one
   accumulator, provided the number of bytes x saw is a multiple of
   ``x.alignment`` (the test's block size; 1 for most tests).  This is what
   lets a stream be tested in parallel pieces.
3. A bit stream whose length is not a multiple of 8 (``--format bits``)
   ends with ``update_tail_bits``; byte-oriented tests ignore those bits and
   say so through ``bits_seen``.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from functools import partial
from typing import Any, Callable, ClassVar

import numpy as np

from randqa.battery._state import export_state, import_state
from randqa.results import TestResult


class Accumulator(ABC):
    """Base class of all tests: subclass, set ``name``, implement ``_update``,
    ``_merge`` and ``finalize``.

    The base does the bookkeeping every test shares: ``update`` and ``merge``
    count ``bytes_seen`` (while ``_update`` and ``_merge`` run it is still
    the count *before* the new bytes: the stream position of the chunk's
    first byte), skip empty chunks, and check that a merge is allowed.
    """

    #: the name used in suite files; ``randqa/battery/<name>.py`` holds the code
    name: ClassVar[str]

    def __init__(self) -> None:
        self.bytes_seen = 0

    @property
    def alignment(self) -> int:
        """Byte multiple at which this accumulator may be split and merged."""
        return 1

    def update(self, chunk: np.ndarray) -> None:
        """Consume the next bytes of the stream (a contiguous uint8 array)."""
        if len(chunk):
            self._update(chunk)
            self.bytes_seen += len(chunk)

    @abstractmethod
    def _update(self, chunk: np.ndarray) -> None:
        """Add a non-empty chunk, which starts at stream position ``bytes_seen``."""

    def update_tasks(self, chunk: np.ndarray, parts: int) -> list[Callable[[], None]]:
        """Callables that together do ``update(chunk)`` and may run in
        parallel threads (the engine's ``--jobs``): one by default; up to
        ``parts`` for a test whose blocks are independent (``_parallel_parts``)."""
        split = self._parallel_parts(chunk, parts) if len(chunk) else None
        if split is None:
            return [partial(self.update, chunk)]
        self.bytes_seen += len(chunk)
        return split

    def _parallel_parts(self, chunk: np.ndarray, parts: int) -> list[Callable[[], None]] | None:
        """None, or callables that add independent parts of the non-empty
        ``chunk`` to the counts, in any order and side by side; whatever
        must happen in stream order (carrying an unfinished block) is done
        here, before they run."""
        return None

    def update_tail_bits(self, bits: np.ndarray) -> None:
        """Consume the final 1-7 bits of a bit stream (values 0/1); ignored by default."""

    def merge(self, other: "Accumulator") -> None:
        """Absorb ``other``, which saw the bytes that follow this one's."""
        self._check_mergeable(other)
        self._merge(other)
        self.bytes_seen += other.bytes_seen

    @abstractmethod
    def _merge(self, other: Any) -> None:
        """Add the counts of ``other`` (same test and parameters; it saw the
        bytes after this one's ``bytes_seen``)."""

    @abstractmethod
    def finalize(self) -> list[TestResult]:
        """Statistic and p-value of everything seen so far (state is not changed)."""

    def _check_mergeable(self, other: "Accumulator") -> None:
        if type(other) is not type(self) or other.parameters() != self.parameters():
            raise ValueError(f"cannot merge {other!r} into {self!r}: different test or parameters")
        if self.bytes_seen % self.alignment:
            raise ValueError(f"{self.name}: left part of a merge must end on a {self.alignment}-byte boundary")

    def state(self) -> dict[str, Any]:
        """Everything this accumulator has counted, as plain data (numpy
        arrays and JSON values; see randqa/battery/_state.py): what a
        checkpoint saves and what workers send back."""
        return export_state(self)

    def load_state(self, state: dict[str, Any]) -> None:
        """Take the counts of ``state`` (from ``state()`` of an accumulator
        built from the same suite entry); StateError if it does not fit."""
        import_state(self, state)

    def parameters(self) -> dict[str, Any]:
        """The keyword parameters this instance was built with (for reports)."""
        return {p: getattr(self, p) for p in parameter_defaults(type(self))}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.parameters().items())
        return f"{type(self).__name__}({args})"


def parameter_defaults(cls: type) -> dict[str, Any]:
    """The keyword parameters a test class accepts, with their defaults."""
    sig = inspect.signature(cls.__init__)
    return {p.name: p.default for p in sig.parameters.values() if p.kind is p.KEYWORD_ONLY}
