"""What a run tests: its limit, or the doubling lengths of a progressive run,
from its first length to its last (each rule here once)."""

from __future__ import annotations

from dataclasses import dataclass

from randqa.errors import UsageError


#: a --max this large means "until the input ends"
UNTIL_END = 1 << 62


@dataclass
class Plan:
    """What to test: ``limit`` units (None: until the data ends), judged at
    the end, or at each of ``lengths`` when progressive."""

    limit: int | None = None
    progressive: bool = False
    lengths: tuple[int, ...] = ()
    keep_going: bool = False


def last_length(max_size: int | None, size: int | None, endless_default: int | None = None) -> int:
    """The last length of a progressive run: --max, else -n, else
    ``endless_default`` (a generator's default; None for data), else until
    the data ends (UNTIL_END)."""
    return max_size or size or endless_default or UNTIL_END


def check_first_length(min_size: int, last: int | None, last_name: str = "--max") -> None:
    """UsageError when a progressive run's first length is past its last (None: not known yet)."""
    if last is not None and min_size > last:
        raise UsageError(f"--min ({min_size}) is larger than {last_name} ({last})")


def progressive_lengths(first: int, last: int) -> int:
    """How many lengths a progressive run from ``first`` to ``last`` judges (doubling)."""
    return max(1, last // max(first, 1)).bit_length() + 1


def doubling_lengths(min_units: int, max_units: int) -> tuple[int, ...]:
    """min, 2 min, 4 min, ..., max: the lengths a progressive run judges."""
    check_first_length(min_units, max_units)
    lengths = [min_units]
    while lengths[-1] < max_units:
        lengths.append(min(2 * lengths[-1], max_units))
    return tuple(lengths)
