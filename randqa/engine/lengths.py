"""What a run tests: its limit, or the doubling lengths of a progressive run."""

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


def doubling_lengths(min_units: int, max_units: int) -> tuple[int, ...]:
    """min, 2 min, 4 min, ..., max: the lengths a progressive run judges."""
    if min_units > max_units:
        raise UsageError(f"--min ({min_units}) is larger than --max ({max_units})")
    lengths = [min_units]
    while lengths[-1] < max_units:
        lengths.append(min(2 * lengths[-1], max_units))
    return tuple(lengths)
