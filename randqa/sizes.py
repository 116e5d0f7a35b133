"""Parsing of human sizes such as ``1000``, ``64K``, ``16MiB``, ``2G``.

Suffixes are binary: K/KiB = 2**10, M/MiB = 2**20, G/GiB = 2**30,
T/TiB = 2**40 (case-insensitive, an optional trailing ``B``), because
generator periods and PractRand's lengths are powers of two.  A plain
number is a count of units (bytes, or bits with ``--format bits``).
Digits are ASCII only, and a size is at most ``MAX_SIZE`` (2**62): beyond
that no stream is meant, and the engine's counters stay far from overflow.
"""

import re

from randqa.errors import UsageError

_SUFFIXES = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
#: the largest size accepted (the engine's "until the input ends")
MAX_SIZE = 1 << 62
_SIZE = re.compile(r"^\s*([0-9]+)\s*([kmgt]?)(i?b)?\s*$", re.IGNORECASE | re.ASCII)


def parse_size(text: str) -> int:
    """Return the positive integer size that ``text`` names, or raise UsageError."""
    shown = repr(text if len(text) <= 40 else text[:37] + "...")
    match = _SIZE.match(text)
    if not match or (match.group(3) and match.group(3).lower() == "ib" and not match.group(2)):
        raise UsageError(f"invalid size {shown}: use a whole number with an optional K, M, G or T suffix (binary, e.g. 64K, 16MiB, 2G)")
    digits = match.group(1)
    # a thousand digits would be a slow int(); anything over 19 digits is over MAX_SIZE anyway
    value = int(digits) * _SUFFIXES[match.group(2).lower()] if len(digits.lstrip("0")) <= 20 else MAX_SIZE + 1
    if value <= 0:
        raise UsageError(f"invalid size {shown}: must be greater than zero")
    if value > MAX_SIZE:
        raise UsageError(f"invalid size {shown}: sizes go up to 2^62 (4 Ei)")
    return value


def format_size(n: float, *, compact: bool = False, approximate: bool = False) -> str:
    """A byte count with a binary suffix: the shortest exact form (65536 ->
    '64 KiB', 1536 -> '1536 B'), for chart axes a compact one (65536 ->
    '64K', 1536 -> '1.5K', 100 -> '100'), or for memory figures an
    approximate one (2151677952 -> '2.0 GiB', 1536 -> '1.5 KiB')."""
    if approximate:
        for suffix, unit in (("T", 2**40), ("G", 2**30), ("M", 2**20), ("K", 2**10)):
            if n >= unit:
                return f"{n / unit:.1f} {suffix}iB"
        return f"{n:.0f} B"
    for suffix, unit in (("T", 2**40), ("G", 2**30), ("M", 2**20), ("K", 2**10)):
        if n >= unit and (compact or n % unit == 0):
            value = n / unit
            if value != int(value):
                return f"{value:.3g}{suffix}"
            return f"{int(value)}{suffix}" if compact else f"{int(value)} {suffix}iB"
    return f"{n:.0f}" if compact else f"{n} B"
