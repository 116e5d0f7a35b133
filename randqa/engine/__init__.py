"""The engine: streams a source's bytes through a suite's accumulators.

- ``run``: ``feed`` and ``run``, ``run_progressive`` (one pass, judged at
  doubling lengths), ``judge``;
- ``seed_sweep``: the starts of many seeded streams;
- ``compare``: several sources, speed next to quality.
"""

from randqa.engine.feeding import CHUNK_BYTES, feed
from randqa.engine.judging import judge
from randqa.engine.lengths import UNTIL_END
from randqa.engine.run import run, run_progressive
from randqa.engine.signals import InterruptGuard

__all__ = ["CHUNK_BYTES", "UNTIL_END", "InterruptGuard", "feed", "judge", "run", "run_progressive"]
