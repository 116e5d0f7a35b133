"""Measuring generation speed, apart from testing, so test cost never
pollutes a generator's MB/s."""

from __future__ import annotations

import statistics
import time
from typing import Callable

import numpy as np

from randqa.sources.base import Source, read_full


def generation_speed(open_source: Callable[[], Source], nbytes: int, repeats: int = 5,
                     buffer_bytes: int = 1 << 20) -> float:
    """Median MB/s (10^6 bytes per second) of reading ``nbytes`` from fresh
    sources made by ``open_source``, over ``repeats`` runs."""
    buffer = np.empty(min(buffer_bytes, nbytes), dtype=np.uint8)
    view = memoryview(buffer)
    rates = []
    for _ in range(repeats):
        with open_source() as source:
            left = nbytes
            start = time.perf_counter()
            while left > 0:
                got = read_full(source, view[: min(left, len(view))])
                if got == 0:
                    break
                left -= got
            elapsed = time.perf_counter() - start
        rates.append((nbytes - left) / elapsed / 1e6 if elapsed > 0 else float("inf"))
    return statistics.median(rates)
