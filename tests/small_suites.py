"""Suites the tests build for themselves (randqa.battery.suites.parse_suite)."""

from __future__ import annotations

from randqa.battery.suites import Suite, parse_suite


def collision_suite() -> Suite:
    """decimated_collisions twice: small blocks of 24-bit values on every word
    (many repeats), and 40-bit values on one word in 4 in blocks of 32 MiB
    of words, which span the segments of a short run."""
    return parse_suite(b"""name = "collisions"
[[tests]]
test = "decimated_collisions"
bits = 24
values = 8192
[[tests]]
test = "decimated_collisions"
bits = 40
zero_bits = 2
values = 4194304
""", "collisions.toml")
