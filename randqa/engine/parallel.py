"""Segments on Dask distributed: the workers of a run and the order of results.

``Workers`` is where a run's segments go: an embedded ``LocalCluster`` of
``--jobs`` single-threaded worker processes (no server to install; each
process has its own GIL), or an existing cluster at ``--scheduler ADDRESS``
(``RANDQA_SCHEDULER``): ``dask scheduler`` and ``dask worker`` on several
hosts, dask-jobqueue, Kubernetes.  Dask is imported only when a run needs
workers, so ``--jobs 1`` and short runs never pay its start-up.

``in_stream_order`` submits segments ahead of the one being merged, at most
``window`` of them (two per worker thread), and hands back their results
strictly in stream order: merging is concatenation, so only a contiguous
prefix can be merged.  Dask recomputes the segment of a lost worker (the
task's arguments are kept by the scheduler, ``retries`` covers the rest);
a segment whose data a producer sent (a sequential source) is sent again
from the producer's copy, which it keeps until the segment is merged.

Every task carries the client's randqa version and the worker refuses
another; a worker with another version (or no randqa) is refused with one
line when the client connects.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
import warnings
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np

from randqa._version import __version__
from randqa.errors import RandqaError, UsageError

#: environment variable naming a scheduler, as --scheduler does
SCHEDULER_ENV = "RANDQA_SCHEDULER"
#: segments in flight per worker thread: one running, one waiting
SEGMENTS_PER_WORKER = 2
#: how often the client looks up from waiting (Ctrl-C, lost workers)
POLL_S = 0.2
#: how often a producer's segment is sent again after its worker was lost
RESENDS = 3
#: seconds to wait for a scheduler to answer, or for workers to appear
CONNECT_TIMEOUT_S = 30
#: Dask settings of the embedded cluster.  Its scheduler and nannies run in
#: this process and its workers on the cores the tests use, so what they do
#: on timers comes out of the tests' time: no statistical profiler (it would
#: take the GIL 100 times a second), and the event-loop watchdog, system
#: monitor and nanny's memory check at 1-2 s rather than 20, 500 and 100 ms
#: (1.5% of the CPU time of 4 GiB of the standard suite on 2 workers).
LOCAL_CLUSTER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "1s",
}


class WorkerVersionError(RandqaError):
    """A worker runs another randqa version than the client."""


def worker_version() -> str:
    """The randqa version of the process this runs in (called on workers)."""
    from randqa import _version

    return _version.__version__


def check_version(client_version: str) -> None:
    """Refuse to compute for a client of another version (runs on workers)."""
    mine = worker_version()
    if client_version != mine:
        raise WorkerVersionError(f"a worker runs randqa {mine}, the client randqa {client_version}; "
                                 f"install the same version on every worker")


def run_segment(client_version: str, job: Any, segment: "Segment", data: np.ndarray | None) -> dict[str, Any]:
    """The task every worker runs: test one segment (see ``SegmentJob.compute``)."""
    check_version(client_version)
    _keep_large_allocations()
    return job.compute(segment.start, segment.count, segment.snapshots, data)


#: what Dask's nanny sets MALLOC_TRIM_THRESHOLD_ to in its workers
_DASK_TRIM_THRESHOLD = "65536"
#: whether this worker process has undone it already
_allocation_tuned = False


def _keep_large_allocations() -> None:
    """Undo what Dask's nanny sets for its workers, MALLOC_TRIM_THRESHOLD_=65536:
    with it glibc no longer raises its mmap threshold as large blocks are
    freed, so every chunk's temporaries are mapped and unmapped again (12% of
    a segment's time).  The thresholds set here are the ceilings glibc's own
    adjustment reaches on 64-bit (32 MiB for mmap, twice that for trimming),
    so the temporaries stay in the heap.  A value the user chose is left
    alone.  Needs glibc's mallopt (M_TRIM_THRESHOLD -1, M_MMAP_THRESHOLD -3);
    elsewhere nothing changes."""
    global _allocation_tuned
    if _allocation_tuned or os.environ.get("MALLOC_TRIM_THRESHOLD_") != _DASK_TRIM_THRESHOLD:
        return
    _allocation_tuned = True
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    m_trim_threshold, m_mmap_threshold = -1, -3
    mallopt(m_mmap_threshold, 32 << 20)
    mallopt(m_trim_threshold, 64 << 20)


@dataclass(frozen=True)
class Segment:
    """Units ``[start, start + count)`` of the stream, and the offsets inside
    it at which the worker also returns its state (progressive lengths)."""

    index: int
    start: int
    count: int
    snapshots: tuple[int, ...] = ()
    #: the bytes themselves, when a producer reads the stream (else the worker opens it)
    data: np.ndarray | None = field(default=None, compare=False, repr=False)


def version_problems(versions: dict[str, Any]) -> list[str]:
    """One line per worker whose randqa is not this one (``Client.run`` output)."""
    problems = []
    for address, found in sorted(versions.items()):
        if isinstance(found, BaseException):
            problems.append(f"worker {address} cannot run randqa ({type(found).__name__}: {found})")
        elif found != __version__:
            problems.append(f"worker {address} runs randqa {found}, this client randqa {__version__}")
    return problems


class Workers:
    """The Dask client of a run, started on first use and closed at exit."""

    def __init__(self, jobs: int = 1, scheduler: str | None = None,
                 notice: Callable[[str], None] | None = None) -> None:
        self.jobs = jobs
        self.scheduler = scheduler
        self.notice = notice or (lambda line: print(line, file=sys.stderr, flush=True))
        self._client: Any = None
        self._cluster: Any = None
        #: LOCAL_CLUSTER_CONFIG set, undone at close
        self._config: Any = None
        #: seconds spent starting or connecting to the cluster
        self.startup_s = 0.0

    @property
    def wanted(self) -> bool:
        """Whether this run may use workers at all (else everything is in-process)."""
        return self.jobs > 1 or self.scheduler is not None

    @property
    def planned_slots(self) -> int | None:
        """The worker threads a run can count on before any cluster starts:
        --jobs for the embedded one, None for a scheduler's (known once connected)."""
        return None if self.scheduler else self.jobs

    @property
    def started(self) -> bool:
        return self._client is not None

    @property
    def mode(self) -> str:
        return "scheduler" if self.scheduler else "local-cluster"

    def client(self) -> Any:
        """The Dask client, connecting or starting the cluster the first time."""
        if self._client is None:
            start = time.perf_counter()
            self._start()
            self.startup_s = time.perf_counter() - start
        return self._client

    def _start(self) -> None:
        warnings.filterwarnings("ignore", module="distributed")
        from distributed import Client

        if self.scheduler:
            try:
                self._client = Client(self.scheduler, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
            except (OSError, TimeoutError) as exc:
                raise UsageError(f"--scheduler {self.scheduler}: cannot connect ({exc})") from None
            try:
                self._client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
            except TimeoutError:
                self.close()
                raise UsageError(f"--scheduler {self.scheduler}: no worker joined in {CONNECT_TIMEOUT_S} s") from None
        else:
            import dask
            from distributed import LocalCluster

            # a terminal's Ctrl-C goes to the whole process group: the workers
            # ignore it (inherited SIG_IGN) and this process ends the run cleanly
            previous = _ignore_sigint()
            try:
                # in force while the cluster lives: a worker lost mid-run is restarted with it too
                self._config = dask.config.set(LOCAL_CLUSTER_CONFIG)
                self._config.__enter__()
                self._cluster = LocalCluster(n_workers=self.jobs, threads_per_worker=1, processes=True,
                                             dashboard_address=":0", silence_logs=logging.CRITICAL)
                self._client = Client(self._cluster, set_as_default=False)
            finally:
                _restore_sigint(previous)
        problems = version_problems(self._client.run(worker_version, on_error="return"))
        if problems:
            self.close()
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise WorkerVersionError(problems[0] + more)
        self.notice(self._dashboard_line())

    def _dashboard_line(self) -> str:
        where = self.scheduler or f"{self.jobs} local worker processes"
        link = self._client.dashboard_link
        import importlib.util

        if importlib.util.find_spec("bokeh") is None:  # the dashboard's pages need it
            link += " (needs bokeh: pip install bokeh)"
        return f"randqa: segments on {where}; Dask dashboard {link}"

    def slots(self) -> int:
        """Worker threads the cluster has now (at least 1)."""
        info = self.client().scheduler_info(n_workers=-1) if self._has_n_workers() else self.client().scheduler_info()
        return max(1, sum(int(w.get("nthreads", 1)) for w in info.get("workers", {}).values()))

    def _has_n_workers(self) -> bool:
        import inspect

        return "n_workers" in inspect.signature(self.client().scheduler_info).parameters

    def describe(self) -> dict[str, Any]:
        """How segments were executed, for the run's JSON."""
        data: dict[str, Any] = {"mode": self.mode, "workers": self.slots() if self.started else self.jobs,
                                "startup_s": round(self.startup_s, 3)}
        if self.scheduler:
            data["scheduler"] = self.scheduler
        return data

    def close(self) -> None:
        client, cluster, config = self._client, self._cluster, self._config
        self._client = self._cluster = self._config = None
        previous = _ignore_sigint()
        try:
            if client is not None:
                client.close(timeout=10)
            if cluster is not None:
                cluster.close(timeout=10)
        except Exception:  # closing after a lost scheduler: nothing left to close
            pass
        finally:
            if config is not None:
                config.__exit__(None, None, None)
            _restore_sigint(previous)

    def __enter__(self) -> "Workers":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _ignore_sigint() -> Any:
    try:
        return signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread
        return None


def _restore_sigint(previous: Any) -> None:
    if previous is not None:
        signal.signal(signal.SIGINT, previous)


def scheduler_address(option: str | None) -> str | None:
    """--scheduler, else RANDQA_SCHEDULER, else None."""
    return option or os.environ.get(SCHEDULER_ENV) or None


class _Pending:
    """A segment in flight.  Its result is fetched once the task is done:
    fetching with a timeout would cancel and restart long transfers (the
    rc4 suite's 128 MiB of digraph counts) at every poll."""

    def __init__(self, segment: Segment, future: Any) -> None:
        self.segment = segment
        self.resends = 0
        self.follow(future)

    def follow(self, future: Any) -> None:
        self.future = future
        self.done = threading.Event()
        future.add_done_callback(lambda _future: self.done.set())


def in_stream_order(workers: Workers, job: Any, segments: Iterator[Segment],
                    interrupted: Callable[[], bool]) -> Iterator[tuple[Segment, dict[str, Any]]]:
    """Test ``segments`` on the workers; yield (segment, result) in stream order.

    ``segments`` is consumed lazily, at most ``window`` ahead of the segment
    being merged, so a producer reading the stream holds at most that many
    segments.  ``interrupted()`` is polled while waiting; when it turns true,
    KeyboardInterrupt is raised here (in-flight segments are cancelled).
    """
    client = workers.client()
    window = SEGMENTS_PER_WORKER * workers.slots()
    queue: deque[_Pending] = deque()
    exhausted = False

    def submit(segment: Segment) -> Any:
        data = segment.data
        if data is not None:
            for attempt in range(RESENDS + 1):
                try:
                    data = client.scatter(data, hash=False)
                    break
                except OSError:  # the worker chosen was just lost: the scheduler soon knows
                    if attempt == RESENDS:
                        raise
                    time.sleep(1.0)
        plain = Segment(segment.index, segment.start, segment.count, segment.snapshots)
        return client.submit(run_segment, __version__, job, plain, data, pure=False, retries=2)

    try:
        while True:
            while not exhausted and len(queue) < window:
                segment = next(segments, None)
                if segment is None:
                    exhausted = True
                    break
                queue.append(_Pending(segment, submit(segment)))
                if interrupted():
                    raise KeyboardInterrupt
            if not queue:
                return
            head = queue[0]
            result = _wait(head, client, submit, interrupted)
            queue.popleft()
            yield head.segment, result
    finally:
        for pending in queue:
            pending.future.cancel()


def _wait(pending: _Pending, client: Any, submit: Callable[[Segment], Any], interrupted: Callable[[], bool]) -> dict:
    while True:
        while not pending.done.wait(POLL_S):
            if interrupted():
                raise KeyboardInterrupt
        try:
            return pending.future.result()
        except RandqaError:
            raise
        except Exception as error:
            if pending.segment.data is not None and pending.resends < RESENDS:
                # the worker that held the producer's data was lost: send it again
                pending.resends += 1
                pending.follow(submit(pending.segment))
                continue
            raise error
