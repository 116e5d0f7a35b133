"""What ``randqa test`` and ``randqa compare`` read of a source: how many
bytes, from which seed, and whether it is judged at doubling lengths.  Both
commands' options extend ``ReadOptions``, so these are declared once."""

from __future__ import annotations

from dataclasses import dataclass

#: the first length of --progressive without --min
DEFAULT_PROGRESSIVE_MIN = 1 << 10


@dataclass(frozen=True)
class ReadOptions:
    """``-n`` (``size``), ``--seed``, ``--progressive`` and its ``--min``,
    ``--max`` and ``--keep-going``; sizes already parsed to whole numbers."""

    size: int | None = None
    seed: int | None = None
    progressive: bool = False
    min_size: int = DEFAULT_PROGRESSIVE_MIN
    max_size: int | None = None
    keep_going: bool = False
