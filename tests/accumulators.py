"""Feeding accumulators in pieces, and comparing and judging their results."""

from __future__ import annotations

import numpy as np

from randqa.results import Thresholds, classify


def feed_in_pieces(acc, data: bytes | np.ndarray, cuts: list[int]) -> None:
    """Feed ``data`` to an accumulator cut at the given offsets."""
    arr = np.frombuffer(data, dtype=np.uint8)
    bounds = [0, *sorted(cuts), len(arr)]
    for lo, hi in zip(bounds, bounds[1:]):
        acc.update(arr[lo:hi])


def feed_in_sizes(acc, data: np.ndarray, sizes: tuple[int, ...] = (1, 7, 4093, 3, 10_000, 997)) -> None:
    """Feed ``data`` in chunks of the given sizes, cycling through them."""
    pos = 0
    while pos < len(data):
        step = sizes[pos % len(sizes)]
        acc.update(data[pos : pos + step])
        pos += step


def results_of(acc, data: np.ndarray, cuts: list[int] | None = None):
    """Feed data (optionally cut at the given offsets) and return the results."""
    feed_in_pieces(acc, data, cuts or [])
    return acc.finalize()


def summary(results) -> list[tuple]:
    return [(r.name, r.statistic, r.pvalue, r.pvalue_low, r.verdict) for r in results]


def same_results(a: list, b: list) -> None:
    assert [(r.name, r.statistic, r.pvalue, r.verdict, r.details) for r in a] == \
           [(r.name, r.statistic, r.pvalue, r.verdict, r.details) for r in b]


def failed(results, thresholds: Thresholds = Thresholds()) -> list[str]:
    """The names of the results below the fail threshold: failed at once, or
    unconfirmed (a failure once it repeats on fresh data, which a run checks)."""
    return [r.name for r in results if classify(r, thresholds) in ("fail", "unconfirmed")]
