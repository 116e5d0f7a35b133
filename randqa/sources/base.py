"""What every source of bytes provides (cf. numpy's BitGenerator: it only
makes bits; the engine and the tests consume them)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Callable, Literal

import numpy as np

from randqa.interleaving import StreamLayout

#: how segments of a source's stream can be made: "pread" (a regular file,
#: read at any offset), "jump" (a generator placed at any offset in
#: O(log N)), "independent" (not reproducible: each reader draws its own)
#: or "sequential" (only in order, by one producer)
SplitMethod = Literal["jump", "pread", "sequential", "independent"]

#: every split method
SPLIT_METHODS: tuple[SplitMethod, ...] = ("jump", "pread", "sequential", "independent")


class NotSplittable(ValueError):
    """The source can only be read in order (its split method is "sequential")."""


class Source(ABC):
    """A stream of bytes that fills caller-owned buffers.

    ``unit_bits`` is 8 for byte streams and 1 for ``--format bits`` text,
    whose length may not be a multiple of 8: its last 1-7 bits come from
    :meth:`read_bits`.
    """

    #: short name shown in reports (backend name, "stdin", or the path)
    name: str = "source"
    #: the seed a generator was started from, recorded in every report
    seed: int | None = None
    #: how many bits one unit of ``--bytes`` counts
    unit_bits: int = 8
    #: True for generators, which never run out
    endless: bool = False
    #: opens this stream afresh from its start, with the seed it recorded
    #: (set by whoever opened it by name; None: it cannot be opened again)
    reopen: Callable[[], "Source"] | None = None

    @abstractmethod
    def readinto(self, buffer: memoryview) -> int:
        """Fill ``buffer`` with up to len(buffer) bytes; return the count, 0 at the end."""

    def read_bits(self, max_bits: int) -> np.ndarray:
        """Up to ``max_bits`` (< 8) further bits as a 0/1 uint8 array; empty for byte streams."""
        return np.zeros(0, dtype=np.uint8)

    def describe(self) -> dict[str, Any]:
        """The ``source`` object of the JSON report."""
        return {"name": self.name, "seed": self.seed}

    @property
    def reproducible(self) -> bool:
        """Whether opening it again gives the same stream (False for OS entropy,
        callables and instances not at a known seed's start): what a seed sweep
        and seeded streams need."""
        return self.describe().get("reproducible") is not False

    @property
    def split_method(self) -> SplitMethod:
        """How segments of this stream can be made (see :data:`SplitMethod`)."""
        return "sequential"

    @property
    def size(self) -> int | None:
        """Bytes the source holds, when known before reading it (a regular file); None otherwise."""
        return None

    @property
    def layout(self) -> StreamLayout | None:
        """How its streams are interleaved, when it interleaves several (--streams); None for one stream."""
        return None

    def open_at(self, offset: int, length: int | None = None) -> "Source":
        """A new source of this stream from byte ``offset`` (at most ``length``
        bytes when given), whatever this one has read; NotSplittable when the
        stream can only be read in order."""
        raise NotSplittable(f"{self.name}: can only be read in order")

    def close(self) -> None:
        """Release what the source holds (files, devices)."""

    def __enter__(self) -> "Source":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class GeneratorSource(Source):
    """An endless stream of a seeded generator's output words.

    A generator that can be put ``N`` words ahead in O(log N) work owns that
    jump (:meth:`_jump`, with :attr:`can_jump` saying whether it has one);
    one that can be opened again from its seed gives :meth:`reopen`.  With
    both, segments of its stream are made by jumping.
    """

    endless = True
    #: bytes per output word
    word_bytes: int = 4

    @property
    def can_jump(self) -> bool:
        """Whether this generator can be moved ahead in O(log N) (:meth:`advance`)."""
        return False

    def _jump(self, words: int) -> None:
        """Move ``words`` > 0 words ahead, in place (only called when :attr:`can_jump`)."""
        raise NotSplittable(f"{self.name} cannot jump: it can only be generated in order")

    def advance(self, words: int) -> None:
        """Move ``words`` of its words ahead, in place, in O(log words) work.
        The source must be between words (not inside one)."""
        if words < 0:
            raise ValueError("words must be >= 0")
        if not self.can_jump:
            raise NotSplittable(f"{self.name} cannot jump: it can only be generated in order")
        if words:
            self._jump(words)

    def skip_bytes(self, offset: int) -> None:
        """Move a generator that has not been read from to byte ``offset`` of
        its stream: whole words jumped, a split word's leading bytes read and dropped."""
        words, skip = divmod(offset, self.word_bytes)
        self.advance(words)
        if skip:
            self.readinto(memoryview(bytearray(skip)))

    @property
    def split_method(self) -> SplitMethod:
        """Jump when it can jump and can be opened again; sequential otherwise."""
        return "jump" if self.can_jump and self.reopen is not None else "sequential"

    def open_at(self, offset: int, length: int | None = None) -> "Source":
        if self.split_method != "jump" or self.reopen is None:
            raise NotSplittable(f"{self.name} cannot jump: it can only be generated in order")
        fresh = self.reopen()
        fresh.name = self.name
        try:
            if not isinstance(fresh, GeneratorSource):
                raise NotSplittable(f"{self.name} cannot jump: it can only be generated in order")
            fresh.skip_bytes(offset)
        except BaseException:
            fresh.close()
            raise
        return fresh


class UnseededSource(Source):
    """An endless source of OS or library entropy, which no seed can
    reproduce: a --seed given to it is recorded as ignored, not pretended to."""

    endless = True

    def __init__(self, *, ignored_seed: int | None = None) -> None:
        self.ignored_seed = ignored_seed

    @property
    def split_method(self) -> SplitMethod:
        return "independent"

    def open_at(self, offset: int, length: int | None = None) -> "Source":
        """A fresh opening: no run of it can be repeated, so any offset is as good."""
        if self.reopen is None:
            return super().open_at(offset, length)
        return self.reopen()

    def describe(self) -> dict[str, Any]:
        data = super().describe()
        data["reproducible"] = False
        if self.ignored_seed is not None:
            data["seed_ignored"] = self.ignored_seed
        return data


def read_full(source: Source, buffer: memoryview) -> int:
    """Fill as much of ``buffer`` as the source can give before it ends.

    Pipes hand over data in pieces of any size; looping here means that a
    chunk is only short at the end of the stream.  A stop signal raises
    ReadInterrupted, which says how much had arrived.
    """
    filled = 0
    try:
        while filled < len(buffer):
            got = source.readinto(buffer[filled:])
            if got == 0:
                break
            filled += got
    except KeyboardInterrupt:
        raise ReadInterrupted(filled) from None
    return filled


class ReadInterrupted(KeyboardInterrupt):
    """A stop signal during :func:`read_full`, after ``filled`` bytes had
    arrived in the buffer: a stalled pipe's data is tested, not dropped."""

    def __init__(self, filled: int) -> None:
        super().__init__(filled)
        self.filled = filled
