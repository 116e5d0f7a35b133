"""s2n-tls's /dev/urandom question: what checking the cached descriptor
with fstat before each read, and opening the device on every call, cost
over the plain cached descriptor, per read() call, at several read sizes
(``randqa bench urandom-strategies``).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass
class StrategyRow:
    """Per-call time of each strategy for one read size."""

    call_bytes: int
    calls: int
    #: strategy -> median microseconds per read() call
    micros: dict[str, float]

    def overhead(self, strategy: str) -> float:
        """Percent longer than the plain cached descriptor."""
        return 100.0 * (self.micros[strategy] / self.micros["cached"] - 1.0)


def _time_reader(strategy: str, call_bytes: int, calls: int, buffer: np.ndarray) -> float:
    from randqa.sources._urandom import UrandomReader
    from randqa.sources.urandom import URANDOM_PATH

    reader = UrandomReader(URANDOM_PATH, strategy, call_bytes)
    chunk = max(call_bytes, len(buffer) // call_bytes * call_bytes)
    if chunk > len(buffer):
        buffer = np.empty(chunk, dtype=np.uint8)
    view = memoryview(buffer)
    left = calls * call_bytes
    start = time.perf_counter()
    while left > 0:
        n = min(chunk, left)
        reader.fill(view[:n])
        left -= n
    elapsed = time.perf_counter() - start
    reader.close()
    return elapsed / calls * 1e6


def urandom_strategy_table(call_sizes: tuple[int, ...] = (16, 48, 2048, 1 << 20), nbytes: int = 64 << 20,
                           max_calls: int = 200_000, repeats: int = 5,
                           on_row: Callable[[StrategyRow], None] | None = None) -> list[StrategyRow]:
    """Microseconds per read() call for cached fd, fd + fstat check, and
    open-per-call; strategies interleave within each repeat so drift in
    machine speed hits all three alike."""
    from randqa.sources.urandom import STRATEGIES

    buffer = np.empty(1 << 20, dtype=np.uint8)
    rows = []
    for call in call_sizes:
        calls = max(16, min(max_calls, nbytes // call))
        for strategy in STRATEGIES:  # warm-up: page cache, branch predictors, device open path
            _time_reader(strategy, call, min(calls, 1000), buffer)
        samples: dict[str, list[float]] = {s: [] for s in STRATEGIES}
        for _ in range(repeats):
            for strategy in STRATEGIES:
                samples[strategy].append(_time_reader(strategy, call, calls, buffer))
        row = StrategyRow(call, calls, {s: statistics.median(v) for s, v in samples.items()})
        rows.append(row)
        if on_row:
            on_row(row)
    return rows
