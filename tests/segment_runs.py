"""What the tests of segment-parallel runs share (tests/engine/test_parallel.py,
tests/engine/test_segment_threads.py): a run's JSON minus how it ran, and
pcg64's first bytes as a file that a generator, pread and a producer all read."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from randqa.sources import open_source, read_full


def comparable(result) -> dict:
    """A run's JSON without what may differ between executions: timings, how
    it ran, and the source (a generator, a file or a stream of the same bytes)."""
    doc = result.to_json() if not isinstance(result, dict) else dict(result)
    for key in ("elapsed_s", "execution", "command", "date", "source"):
        doc.pop(key, None)
    if "lengths" in doc:
        doc["lengths"] = [{k: v for k, v in entry.items() if k != "elapsed_s"} for entry in doc["lengths"]]
    return doc


def write_pcg64(path: Path, size: int, seed: int) -> Path:
    """The first ``size`` bytes of pcg64 seeded ``seed``, written to ``path``."""
    data = np.empty(size, dtype=np.uint8)
    with open_source("pcg64", seed=seed) as source:
        assert read_full(source, memoryview(data)) == size
    data.tofile(path)
    return path
