"""The engine: streams a source's bytes through a suite's accumulators.

- ``run``: ``feed`` and ``run``, ``run_progressive`` (one pass, judged at
  doubling lengths), ``judge``;
- ``seed_sweep``: the starts of many seeded streams;
- ``compare``: several sources, speed next to quality.
"""

from randqa.engine.run import CHUNK_BYTES, UNTIL_END, InterruptGuard, feed, judge, run, run_progressive

__all__ = ["CHUNK_BYTES", "UNTIL_END", "InterruptGuard", "feed", "judge", "run", "run_progressive"]
