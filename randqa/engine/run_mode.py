"""Which run mode a run gets: one process, threads in this process (the
tests of each chunk spread over them, or segments side by side), or a
cluster of worker processes; the segment size that balances it; and the
memory its copies of the tests hold.

``pick_run_mode`` is the one place this is decided.  It weighs the run's
length (None when unknown: stdin, a stream until it ends), the suite's cost
per byte in one process (``suite_seconds_per_byte``), ``--jobs`` and the
cores, and ``--scheduler``:

- a scheduler always means its cluster;
- ``--jobs 1``, or one core, means one process;
- a run of at most ``SEGMENTS_MIN_BYTES``, or whose estimated time in one
  process is short (``SEGMENTS_MIN_S``), stays in one piece: its tests are
  spread over ``--jobs`` threads, chunk by chunk (cutting it into segments
  would cost a state copy and merge per segment for little gain);
- a longer run, or one of unknown length, is cut into segments tested side
  by side in ``--jobs`` threads of this process, each with its own copy of
  the tests (randqa/engine/segment_threads.py).  The tests' kernels release
  the GIL, so this is as parallel as worker processes, with nothing to
  start: a local Dask cluster's 1.5-3 CPU-seconds of start-up, which on 2
  cores made the standard suite on 4 GiB reach only about 1.5x one process,
  are never paid.  A stream of unknown length has its first segment tested
  here, so a short stream is never cut.

With ``--segment`` given the run's segments are what was asked for: a run
longer than one segment goes to a local cluster of worker processes (as a
seed sweep's blocks of seeds do, whose cost is not measured), started in
the background while the first segments are tested here
(randqa.engine.parallel.Workers.start_in_background); a run that ends first
never waits for it.

The suite's cost is measured once per suite and machine: the CPU time of
its fastest chunk of fixed pseudo-random bytes in this process (after one
chunk to warm up; at most ``PROBE_BYTES`` or ``PROBE_MAX_S``), cached under
randqa's cache folder by the suite's content and randqa's version.  It counts the tests only, not the source:
a slow generator makes a run slower than estimated, never faster.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from randqa._version import __version__
from randqa.battery.suites import Suite

ONE_PROCESS = "one-process"
THREADS = "threads"
SEGMENT_THREADS = "segment-threads"
CLUSTER = "cluster"

#: runs no longer than this are never cut into segments (nor is the suite measured)
SEGMENTS_MIN_BYTES = 64 << 20
#: estimated CPU-seconds in one process from which segments side by side pay:
#: below it a segment's state copy and merge (about 30 ms of CPU for the
#: standard suite) and a last round with a thread idle cost about what they save
SEGMENTS_MIN_S = 1.0
#: bytes the suite is timed on when its cost is measured, after one chunk to warm up
PROBE_BYTES = 16 << 20
#: CPU-seconds after which the measurement stops short of PROBE_BYTES
PROBE_MAX_S = 0.25
#: segments per worker a run is cut into by default: enough that the last
#: round, and what this process tests before a cluster is up, leave no worker idle long
SEGMENTS_PER_WORKER = 4
#: the shortest default segment: its state copy and merge stay a few percent of its test
MIN_SEGMENT_BYTES = 32 << 20
#: the cache of measured suite costs, under randqa's cache folder
COST_CACHE = "suite-costs.json"

_measured: dict[str, float] = {}


@dataclass(frozen=True)
class RunMode:
    """How a run executes, and why (recorded in its JSON's ``execution``)."""

    kind: str
    #: threads for the suite's tests on each chunk tested in this process
    threads: int
    #: unit position from which segments go to the threads or the cluster
    #: (the cluster is started in the background there)
    start_at: int = 0
    reason: str = ""
    #: segment threads side by side (segment-threads only)
    side_by_side: int = 0

    @property
    def cluster(self) -> bool:
        return self.kind == CLUSTER

    @property
    def segments(self) -> bool:
        """Whether the run is cut into segments tested side by side (in threads or on a cluster)."""
        return self.kind in (SEGMENT_THREADS, CLUSTER)

    def to_json(self) -> dict[str, Any]:
        return {"run_mode": self.kind, "run_mode_reason": self.reason}


def machine_cores() -> int:
    """The cores the run mode counts on (tests set it to cut runs as on a machine of that many)."""
    return os.cpu_count() or 1


def pick_run_mode(length: int | None, *, jobs: int, scheduler: bool = False, seconds_per_byte: float | None = None,
                  segment: int, segment_given: bool = False, cores: int | None = None, unit: str = "bytes") -> RunMode:
    """The run mode of a run of ``length`` units (None: unknown) with
    ``--jobs`` ``jobs`` as a ceiling, a ``scheduler`` or not, the suite's
    ``seconds_per_byte`` in one process (None: unknown, as for a seed
    sweep's seeds, whose ``unit`` is not bytes; then the segment decides)
    and segments of ``segment`` units (``segment_given``: by --segment)."""
    cores = cores or machine_cores()
    if scheduler:
        return RunMode(CLUSTER, jobs, 0, "--scheduler: segments go to its cluster")
    if jobs <= 1:
        return RunMode(ONE_PROCESS, 1, reason="--jobs 1")
    if min(jobs, cores) <= 1:
        return RunMode(ONE_PROCESS, 1, reason="one core: workers would share it")
    threads = min(jobs, cores)
    if unit == "bytes" and length is not None and length <= SEGMENTS_MIN_BYTES and not segment_given:
        return RunMode(THREADS, jobs, reason=f"{length} bytes: too short to cut into segments")
    if segment_given or unit != "bytes":
        # while a local cluster starts, what is tested here runs in one thread: the start needs the other cores
        if length is None:  # a short stream never pays for a cluster: it starts once the first segment is tested
            return RunMode(CLUSTER, 1, segment, "--segment, length unknown: a local cluster starts in the "
                                                "background once the first segment is tested here")
        if length > segment:
            why = "--segment" if segment_given else unit
            return RunMode(CLUSTER, 1, 0, f"{why}: longer than one segment, on a local cluster started in the "
                                          f"background")
        return RunMode(THREADS, jobs, reason="no longer than one segment")
    if length is None:
        return RunMode(SEGMENT_THREADS, jobs, segment, f"length unknown: segments side by side in {threads} threads "
                                                    f"once the first is tested here", threads)
    if seconds_per_byte is not None and seconds_per_byte * length < SEGMENTS_MIN_S:
        return RunMode(THREADS, jobs, reason=f"about {seconds_per_byte * length:.1f} s in one process: too short "
                                             f"to cut into segments")
    estimate = "" if seconds_per_byte is None else f"about {seconds_per_byte * length:.1f} s in one process: "
    return RunMode(SEGMENT_THREADS, jobs, 0, f"{estimate}segments side by side in {threads} threads of this process",
                   threads)


def mode_of_run(workload: Any, limit: int | None, workers: Any, threads: int, *, segment: int,
                segment_given: bool, progressive: bool = False) -> RunMode:
    """The run mode of a run loop: ``workload`` (randqa.engine.execute) for
    ``limit`` units, with ``workers`` (randqa.engine.parallel.Workers: --jobs
    as the ceiling, and a cluster when one is picked) or without (None: the
    API's ``threads`` are the ceiling, and no cluster is started: where one
    would be picked the tests run in the threads instead).  A progressive
    run judges its first segment's short lengths here before any segment
    goes elsewhere, so a bad generator failing at 1 KiB never starts a
    cluster nor waits for a segment's snapshots."""
    wanted = workers is not None and workers.wanted
    jobs = workers.jobs if wanted else threads
    scheduler = wanted and workers.scheduler is not None
    cost = workload.seconds_per_byte() if needs_cost(limit, jobs, scheduler, segment_given) else None
    mode = pick_run_mode(limit, jobs=jobs, scheduler=scheduler, seconds_per_byte=cost, segment=segment,
                         segment_given=segment_given, unit=workload.unit)
    if mode.cluster and not wanted:
        mode = RunMode(THREADS if threads > 1 else ONE_PROCESS, threads, reason="no workers: this process only")
    if progressive and mode.segments:
        mode = replace(mode, start_at=max(mode.start_at, segment))
    return mode


def needs_cost(length: int | None, jobs: int, scheduler: bool, segment_given: bool) -> bool:
    """Whether ``pick_run_mode`` would use the suite's cost (else it is not measured)."""
    return (jobs > 1 and not scheduler and not segment_given and length is not None
            and length > SEGMENTS_MIN_BYTES and machine_cores() > 1)


def may_use_segments(length: int | None, jobs: int, suite: Suite) -> bool:
    """Whether a run of ``suite`` for ``length`` bytes (None: unknown) with
    ``--jobs jobs`` may be cut into segments tested side by side, each by a
    copy of the tests (what its memory check must count): ``pick_run_mode``'s
    answer, the suite's cost measured when it matters."""
    cost = suite_seconds_per_byte(suite) if needs_cost(length, jobs, False, False) else None
    return pick_run_mode(length, jobs=jobs, seconds_per_byte=cost, segment=1).segments


def balanced_segment(limit: int, workers: int) -> int:
    """A default segment for ``limit`` units on ``workers`` workers that open
    the source themselves: ``SEGMENTS_PER_WORKER`` per worker, so the last
    round (and what this process tests while a cluster starts) balance out,
    but at least ``MIN_SEGMENT_BYTES``."""
    return max(MIN_SEGMENT_BYTES, -(-limit // (SEGMENTS_PER_WORKER * workers)))


# --------------------------------------------------------------------------
# The suite's cost


def suite_key(suite: Suite) -> str:
    """What a suite's measured cost is cached under: its content and randqa's version."""
    from randqa.engine.request import suite_to_json

    text = json.dumps(suite_to_json(suite), sort_keys=True, default=str)
    return hashlib.sha256(f"{__version__}\n{text}".encode()).hexdigest()[:32]


def suite_seconds_per_byte(suite: Suite) -> float:
    """CPU-seconds per byte of ``suite``'s tests in one process and thread:
    measured once per suite (``PROBE_BYTES``), then read from the cache."""
    key = suite_key(suite)
    if key in _measured:
        return _measured[key]
    cache = _cache_path()
    stored = _read_cache(cache)
    cost = stored.get(key)
    if not isinstance(cost, float) or not math.isfinite(cost) or cost <= 0:
        cost = measure_seconds_per_byte(suite)
        stored[key] = cost
        _write_cache(cache, stored)
    _measured[key] = cost
    return cost


def measure_seconds_per_byte(suite: Suite, probe_bytes: int = PROBE_BYTES) -> float:
    """The CPU time of ``suite``'s tests per byte, on fixed pseudo-random
    bytes fed in a run's chunks after one that warms them up, until
    ``probe_bytes`` or ``PROBE_MAX_S``: the fastest chunk's.  A suite slow on a first 256 KiB
    (``PROBE_MAX_S``) is known slow from it alone."""
    from randqa.engine.feeding import CHUNK_BYTES

    data = np.random.default_rng(0).integers(0, 256, CHUNK_BYTES, dtype=np.uint8)
    accumulators = suite.build()
    first = 256 << 10
    begin = time.thread_time()  # CPU time: what other work on the machine takes is not the suite's
    for acc in accumulators:
        acc.update(data[:first])
    elapsed = time.thread_time() - begin
    if elapsed >= PROBE_MAX_S:
        return elapsed / first
    for acc in accumulators:
        acc.update(data)
    fastest, fed, elapsed = math.inf, 0, 0.0
    while fed < probe_bytes and elapsed < PROBE_MAX_S:
        begin = time.thread_time()
        for acc in accumulators:
            acc.update(data)
        took = time.thread_time() - begin
        fastest, fed, elapsed = min(fastest, took), fed + CHUNK_BYTES, elapsed + took
    return max(fastest, 1e-9) / CHUNK_BYTES  # the fastest chunk: the one least disturbed by other work


def _cache_path() -> str:
    from randqa.files import cache_root

    return str(cache_root() / COST_CACHE)


def _read_cache(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_cache(path: str, data: dict[str, Any]) -> None:
    """Write the cache atomically; a cache that cannot be written is measured again next time."""
    from randqa.files import write_atomically

    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_atomically(path, json.dumps(data).encode())
    except OSError:
        pass


# --------------------------------------------------------------------------
# Memory


def copies_of_tests(workers: int) -> int:
    """Copies of the suite's state a run with segments side by side on
    ``workers`` workers (threads or a local cluster) holds at once: one in
    this process, one per worker, and the result of a finished segment being
    merged here (its state, loaded into fresh tests)."""
    return 1 + workers + 2
