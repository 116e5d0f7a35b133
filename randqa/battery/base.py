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

Every test also states, from its parameters alone and before anything is
allocated, the memory it will take (``memory_need``), and the values a suite
file may give each parameter (``parameter_ranges``): the suite validator
refuses values outside them, and the CLI refuses a suite whose total need
is over ``--max-memory`` before the run.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, ClassVar

import numpy as np

from randqa.battery._state import export_state, import_state
from randqa.results import TestResult


#: Python objects of one accumulator, its module's constants and its
#: results, beyond its arrays: a bound measured with room to spare
OBJECT_BYTES = 512 << 10

#: one result held as a TestResult and again as its JSON dict (a
#: progressive run keeps the JSON of every length)
RESULT_BYTES = 2 << 10


@dataclass(frozen=True)
class MemoryNeed:
    """The memory one accumulator takes, in bytes, as an upper bound.

    ``held``: from construction on (counts, kept bits, an unfinished block);
    ``working``: on top of that at the peak of one ``update`` or ``finalize``
    call (temporaries, freed when the call returns); ``results``: how many
    results ``finalize`` returns at most, which a progressive run keeps
    once per length (RESULT_BYTES each).
    """

    held: int
    working: int
    results: int = 1

    @property
    def peak(self) -> int:
        return self.held + self.working


@dataclass(frozen=True)
class Range:
    """The values a suite file may give one parameter: a number from ``low``
    to ``high`` (a whole number unless either bound is a float), or with
    ``items`` a list of 1 to ``items`` such numbers; ``text`` parameters are
    strings whose length is from ``low`` to ``high`` (or lists of them)."""

    low: int | float
    high: int | float
    items: int | None = None
    text: bool = False


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
    #: what a suite file may give each keyword parameter (see Range)
    parameter_ranges: ClassVar[dict[str, Range]] = {}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        """The memory an accumulator built with ``params`` (missing ones take
        their defaults; values within ``parameter_ranges``) takes while fed
        chunks of up to ``chunk_bytes`` bytes: computed from the parameters,
        nothing is allocated.  Every test states its own."""
        raise NotImplementedError(f"{cls.__name__} does not state its memory need")

    @classmethod
    def with_defaults(cls, params: dict[str, Any]) -> dict[str, Any]:
        """``params`` completed with the defaults of the parameters not given."""
        return {**parameter_defaults(cls), **params}

    def __init__(self) -> None:
        self.bytes_seen = 0
        #: stream position (bytes) of the first byte this accumulator sees (begin_at)
        self.start = 0

    @property
    def alignment(self) -> int:
        """Byte multiple at which this accumulator may be split and merged
        (the right part placed at its position with ``begin_at``)."""
        return 1

    @property
    def phase(self) -> int:
        """Byte multiple at which a right part that was not placed with
        ``begin_at`` may follow: where what the test does at a position (the
        sequences it samples, say) repeats.  By default the alignment."""
        return self.alignment

    def begin_at(self, position: int) -> None:
        """Place a fresh accumulator at stream byte ``position``, a multiple
        of ``alignment``: a segment-parallel run starts each segment's
        accumulators where the segment starts, so that a test whose work
        depends on the position counts as one pass over the stream would."""
        if self.bytes_seen:
            raise ValueError(f"{self.name}: begin_at on an accumulator that has seen bytes")
        if position < 0 or position % self.alignment:
            raise ValueError(f"{self.name}: a part may start only on a {self.alignment}-byte boundary, not at {position}")
        self.start = position
        self._begin_at(position)

    def _begin_at(self, position: int) -> None:
        """Set up what depends on the stream position (nothing, by default)."""

    def update(self, chunk: np.ndarray) -> None:
        """Consume the next bytes of the stream (a contiguous uint8 array)."""
        if len(chunk):
            self._update(chunk)
            self.bytes_seen += len(chunk)

    @abstractmethod
    def _update(self, chunk: np.ndarray) -> None:
        """Add a non-empty chunk, which starts at stream position ``bytes_seen``."""

    def stretches_read(self, position: int, length: int) -> list[tuple[int, int]] | None:
        """The stretches [a, b) of stream bytes [position, position + length)
        that this test reads, in order, or None for all of them.  A test that
        passes over the rest (binary_rank between its ranked matrices) lets a
        folded entry fold only these and ``skip_unread`` the others."""
        return None

    def skip_unread(self, length: int) -> None:
        """Pass over the next ``length`` bytes, which ``stretches_read`` left out."""
        self.bytes_seen += length

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
        if other.start == self.start + self.bytes_seen and other.start:
            boundary = self.alignment  # the right part was placed where this one ends
        elif other.start == 0:
            boundary = self.phase
        else:
            raise ValueError(f"{self.name}: the right part of a merge starts at byte {other.start}, "
                             f"not where the left part ends ({self.start + self.bytes_seen})")
        if self.bytes_seen % boundary:
            raise ValueError(f"{self.name}: left part of a merge must end on a {boundary}-byte boundary")

    def state(self) -> dict[str, Any]:
        """Everything this accumulator has counted, as plain data (numpy
        arrays and JSON values; see randqa/battery/_state.py): what a
        checkpoint saves and what workers send back.  What an object
        declares saved elsewhere (``_state_saved_elsewhere``) is left out:
        load the states of a suite's list together."""
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


def is_whole(value: object) -> bool:
    """An int that is not a bool: what a parameter counted in whole units must be."""
    return isinstance(value, int) and not isinstance(value, bool)
