"""What every source of bytes provides (cf. numpy's BitGenerator: it only
makes bits; the engine and the tests consume them)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np


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

    @abstractmethod
    def readinto(self, buffer: memoryview) -> int:
        """Fill ``buffer`` with up to len(buffer) bytes; return the count, 0 at the end."""

    def read_bits(self, max_bits: int) -> np.ndarray:
        """Up to ``max_bits`` (< 8) further bits as a 0/1 uint8 array; empty for byte streams."""
        return np.zeros(0, dtype=np.uint8)

    def describe(self) -> dict[str, Any]:
        """The ``source`` object of the JSON report."""
        return {"name": self.name, "seed": self.seed}

    def close(self) -> None:
        """Release what the source holds (files, devices)."""

    def __enter__(self) -> "Source":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class UnseededSource(Source):
    """An endless source of OS or library entropy, which no seed can
    reproduce: a --seed given to it is recorded as ignored, not pretended to."""

    endless = True

    def __init__(self, *, ignored_seed: int | None = None) -> None:
        self.ignored_seed = ignored_seed

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
