"""The engine: streams a source's bytes through a suite's accumulators.

- ``request`` and ``execute``: a run as data (``RunRequest``, what a
  checkpoint stores) and the one entry that runs it (``execute``), for
  ``randqa test``, ``resume``, ``compare``, the seed sweep and the API;
- ``plan`` and ``options``: the options checked once, into a request;
- ``run_mode``: one process, threads or a cluster, picked from the
  suite's cost per byte, the run's length and the cores;
- ``loop`` with ``workloads``, ``jobs``, ``feeding``, ``retests``,
  ``segment_policy``, ``records``: the run itself, in this process or in
  segments on workers (``parallel``; ``scheduler``: where a cluster is),
  with checkpoints (``checkpoint``);
- ``run``: ``run`` and ``run_progressive`` of an opened source in this
  process; ``feed`` and ``judge``;
- ``seed_sweep``: the starts of many seeded streams;
- ``compare``: several sources, speed next to quality.
"""

from randqa.engine.feeding import CHUNK_BYTES, feed
from randqa.engine.judging import judge
from randqa.engine.lengths import UNTIL_END
from randqa.engine.run import run, run_progressive
from randqa.engine.signals import InterruptGuard

__all__ = ["CHUNK_BYTES", "UNTIL_END", "InterruptGuard", "feed", "judge", "run", "run_progressive"]
