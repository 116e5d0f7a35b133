"""The workers of a run on Dask distributed: started, checked, closed.

``Workers`` is where a run's segments go: an embedded ``LocalCluster`` of
``--jobs`` single-threaded worker processes (no server to install; each
process has its own GIL), or an existing cluster at ``--scheduler ADDRESS``
(``RANDQA_SCHEDULER``): ``dask scheduler`` and ``dask worker`` on several
hosts, dask-jobqueue, Kubernetes.  Dask is imported only when a run needs
workers, so ``--jobs 1`` and short runs never pay its start-up.  How
segments are sent to them and merged back is randqa/engine/dispatch.py.

Every task carries the client's randqa version and the worker refuses
another; a worker with another version (or no randqa) is refused with one
line when the client connects.
"""

from __future__ import annotations

import atexit
import logging
import signal
import sys
import threading
import time
import warnings
from typing import Any, Callable

from randqa._version import __version__
from randqa.engine.scheduler import TLS_NEEDS_TLS_SCHEDULER, SchedulerAddress, TlsFiles, parse_scheduler_address, probe_scheduler
from randqa.errors import RandqaError, UsageError, one_line

#: how often the client looks up from waiting (Ctrl-C, lost workers)
POLL_S = 0.2
#: --scheduler-timeout's default: seconds for a scheduler to answer, and for a worker to join
SCHEDULER_TIMEOUT_S = 5.0
#: seconds to close a client or cluster
CLOSE_TIMEOUT_S = 5
#: how long closing waits for a start a stop signal cancelled (a local cluster takes 2-3 s)
START_WAIT_S = 15
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


def version_problems(versions: dict[str, Any]) -> list[str]:
    """One line per worker whose randqa is not this one (``Client.run`` output)."""
    problems = []
    for address, found in sorted(versions.items()):
        if isinstance(found, BaseException):
            problems.append(f"worker {address} cannot run randqa ({type(found).__name__}: {found})")
        elif found != __version__:
            problems.append(f"worker {address} runs randqa {found}, this client randqa {__version__}")
    return problems


# --------------------------------------------------------------------------
# The workers of a run


class Workers:
    """The Dask client of a run, started on first use and closed at exit.

    Starting (an embedded cluster's processes, or a scheduler's probe,
    connection and first worker) runs in a thread of its own while this
    one looks up every ``POLL_S`` seconds: a stop signal cancels the start
    at once (what it has started is shut down at close), and a scheduler
    gets ``timeout`` seconds for each step.  That thread blocks SIGINT, and
    what it starts inherits the mask: a terminal's Ctrl-C, which goes to
    the whole process group, reaches only randqa's main thread, and the
    worker processes finish their task until randqa shuts them down."""

    def __init__(self, jobs: int = 1, scheduler: SchedulerAddress | str | None = None,
                 notice: Callable[[str], None] | None = None, *, timeout: float = SCHEDULER_TIMEOUT_S,
                 tls: TlsFiles | None = None) -> None:
        self.jobs = jobs
        self.address = parse_scheduler_address(scheduler) if isinstance(scheduler, str) else scheduler
        self.scheduler = self.address.url if self.address else None
        self.timeout = timeout
        self.tls = tls or TlsFiles()
        self.notice = notice or (lambda line: print(line, file=sys.stderr, flush=True))
        if self.tls.given() and (self.address is None or self.address.scheme != "tls"):
            raise UsageError(TLS_NEEDS_TLS_SCHEDULER)
        #: Dask's Security for a tls:// scheduler, its files loaded before any work
        self._security = self.tls.security(self.address) if self.address and self.address.scheme == "tls" else None
        self._client: Any = None
        self._cluster: Any = None
        #: the Dask settings in force while the client lives, undone at close
        self._config: Any = None
        #: a start still running after a stop signal cancelled it
        self._abandoned: _Start | None = None
        #: a start running in the background while the run goes on here
        self._background: _Start | None = None
        self._begin = 0.0
        self._slots: int | None = None
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

    def start_in_background(self) -> None:
        """Begin starting the cluster (or connecting to the scheduler) without
        waiting for it: ``ready`` says when ``client()`` will not wait."""
        if self._client is None and self._background is None:
            self._begin = time.perf_counter()
            self._background = _Start(self._start, spawns=self.address is None)

    @property
    def ready(self) -> bool:
        """Whether the client is there, or a background start has ended (``client()`` returns or raises at once)."""
        return self._client is not None or (self._background is not None and self._background.ended)

    def discard_start(self) -> None:
        """Give up a background start nobody waited for, without waiting:
        what it makes is shut down by its thread when it ends."""
        start, self._background = self._background, None
        if start is not None and self._client is None:
            start.discard(0)
            if not start.ended:
                atexit.register(_forget_clusters)

    def client(self, interrupted: Callable[[], bool] = lambda: False) -> Any:
        """The Dask client, connecting or starting the cluster the first time
        (or waiting for the background start).  KeyboardInterrupt when
        ``interrupted()`` turns true meanwhile."""
        if self._client is None:
            start = self._background
            if start is None:
                self._begin = time.perf_counter()
                start = _Start(self._start, spawns=self.address is None)
            self._background = None
            begin = self._begin
            # each step of a scheduler's start has its own timeout; this bounds them all
            limit = None if self.address is None else 3 * self.timeout + CLOSE_TIMEOUT_S
            try:
                self._client, self._cluster, self._config = start.wait(interrupted, limit)
            except TimeoutError:
                self._abandoned = start
                raise UsageError(f"--scheduler {self.scheduler}: no answer in {limit:g} s") from None
            except BaseException:
                self._abandoned = start
                raise
            self.startup_s = start.ended_at - begin
            self.notice(self._dashboard_line())
        return self._client

    def _start(self) -> tuple[Any, Any, Any]:
        """Start the cluster, or connect to the scheduler (in the start's thread);
        (client, cluster, config) once a worker is there and runs this randqa."""
        warnings.filterwarnings("ignore", module="distributed")
        try:  # the cluster extra
            import dask
            from distributed import Client
        except ImportError:
            raise UsageError("clusters need the cluster extra: pip install 'randqa[cluster]'") from None

        cluster = None
        settings: dict[str, Any] = dict(LOCAL_CLUSTER_CONFIG) if self.address is None else {}
        # Dask's own reconnection attempts give up as soon as randqa would
        settings["distributed.comm.timeouts.connect"] = f"{self.timeout}s"
        config = dask.config.set(settings)
        config.__enter__()
        client = None
        try:
            if self.address is not None:
                ssl_context = self._security.get_connection_args("client")["ssl_context"] if self._security else None
                probe_scheduler(self.address, self.timeout, ssl_context)
                try:
                    client = Client(self.scheduler, timeout=self.timeout, set_as_default=False,
                                    security=self._security)
                except (OSError, TimeoutError, ValueError) as exc:
                    raise UsageError(f"--scheduler {self.scheduler}: cannot connect ({one_line(exc)})") from None
                try:
                    client.wait_for_workers(1, timeout=self.timeout)
                except TimeoutError:
                    raise UsageError(f"--scheduler {self.scheduler}: no worker joined in {self.timeout:g} s "
                                     "(--scheduler-timeout)") from None
            else:
                from distributed import LocalCluster

                cluster = LocalCluster(n_workers=self.jobs, threads_per_worker=1, processes=True,
                                       dashboard_address=":0", silence_logs=logging.CRITICAL)
                client = Client(cluster, set_as_default=False)
            problems = version_problems(client.run(worker_version, on_error="return"))
            if problems:
                more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
                raise WorkerVersionError(problems[0] + more)
        except BaseException:
            _close(client, cluster, config)
            raise
        return client, cluster, config

    def _dashboard_line(self) -> str:
        where = self.scheduler or f"{self.jobs} local worker processes"
        link = self._client.dashboard_link
        import importlib.util

        if importlib.util.find_spec("bokeh") is None:  # the dashboard's pages need it
            link += " (needs bokeh: pip install bokeh)"
        return f"randqa: segments on {where}; Dask dashboard {link}"

    def slots(self) -> int:
        """Worker threads the cluster has now (at least 1)."""
        client = self.client()
        info = client.scheduler_info(n_workers=-1) if self._has_n_workers() else client.scheduler_info()
        self._slots = max(1, sum(int(w.get("nthreads", 1)) for w in info.get("workers", {}).values()))
        return self._slots

    def _has_n_workers(self) -> bool:
        import inspect

        return "n_workers" in inspect.signature(self.client().scheduler_info).parameters

    def describe(self) -> dict[str, Any]:
        """How segments were executed, for the run's JSON (no question to
        the cluster: it may be gone by then)."""
        data: dict[str, Any] = {"mode": self.mode, "workers": self._slots or self.jobs,
                                "startup_s": round(self.startup_s, 3)}
        if self.scheduler:
            data["scheduler"] = self.scheduler
        return data

    def close(self) -> None:
        """Shut the cluster down (or disconnect from the scheduler); an
        embedded cluster's start that a stop signal cancelled is waited for,
        at most START_WAIT_S, and shut down too."""
        client, cluster, config = self._client, self._cluster, self._config
        self._client = self._cluster = self._config = None
        abandoned, self._abandoned = self._abandoned, None
        if self._background is not None:  # started in the background, never waited for
            abandoned, self._background = self._background, None
        previous = _ignore_sigint()  # a second Ctrl-C does not leave the workers running
        try:
            _close(client, cluster, config)
            if abandoned is not None:  # a scheduler's start has no processes of randqa's to wait for
                abandoned.discard(START_WAIT_S if self.address is None else 0)
        finally:
            _restore_sigint(previous)

    def __enter__(self) -> "Workers":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _forget_clusters() -> None:
    """At exit, after a start was discarded unfinished: keep Dask's own exit
    hook from closing its cluster gracefully (seconds of waiting); the worker
    processes end with this one, as multiprocessing ends its children."""
    spec = sys.modules.get("distributed.deploy.spec")
    instances = getattr(getattr(spec, "SpecCluster", None), "_instances", None)
    if instances is not None:
        instances.clear()


def _close(client: Any, cluster: Any, config: Any) -> None:
    try:
        if client is not None:
            client.close(timeout=CLOSE_TIMEOUT_S)
        if cluster is not None:
            cluster.close(timeout=CLOSE_TIMEOUT_S)
    except Exception:  # closing after a lost scheduler: nothing left to close
        pass
    finally:
        if config is not None:
            config.__exit__(None, None, None)


class _Start:
    """``work()`` in a thread of its own with SIGINT blocked (inherited by
    the threads and, when it ``spawns`` them, the processes it starts).  ``wait`` returns its result,
    raises its error, or gives up (KeyboardInterrupt, TimeoutError); a start
    given up is shut down by ``discard``, or by its thread when it ends."""

    def __init__(self, work: Callable[[], tuple[Any, Any, Any]], spawns: bool) -> None:
        self._work = work
        self._spawns = spawns
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._given_up = False
        self._result: tuple[Any, Any, Any] | None = None
        self._error: BaseException | None = None
        #: when the start ended (perf_counter)
        self.ended_at = 0.0
        self._thread = threading.Thread(target=self._run, name="randqa-cluster-start", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        if hasattr(signal, "pthread_sigmask"):
            if self._spawns:
                from multiprocessing import resource_tracker

                # starting multiprocessing's resource tracker unblocks SIGINT in the thread that starts it
                # (Python 3.11-3.13): it must run before the block, or the worker processes get Ctrl-C
                resource_tracker.ensure_running()
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        result = None
        try:
            result = self._work()
        except BaseException as exc:  # handed to the waiting thread
            self._error = exc
        with self._lock:
            self._result = result
            self.ended_at = time.perf_counter()
            self._done.set()
            orphaned = self._given_up
        if orphaned and result is not None:
            _close(*result)

    @property
    def ended(self) -> bool:
        return self._done.is_set()

    def wait(self, interrupted: Callable[[], bool], limit: float | None) -> tuple[Any, Any, Any]:
        deadline = None if limit is None else time.monotonic() + limit
        while not self._done.wait(POLL_S):
            if interrupted():
                raise KeyboardInterrupt
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result

    def discard(self, wait_s: float) -> None:
        """Shut down what the start made: now if it has ended, else when it
        ends (waiting at most ``wait_s`` here for that)."""
        with self._lock:
            self._given_up = True
            result, self._result = self._result, None
        if result is not None:
            _close(*result)
        else:
            self._thread.join(wait_s)


def _ignore_sigint() -> Any:
    try:
        return signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread
        return None


def _restore_sigint(previous: Any) -> None:
    if previous is not None:
        signal.signal(signal.SIGINT, previous)
