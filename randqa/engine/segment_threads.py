"""Segments side by side in threads of this process.

The tests' kernels release the GIL, so threads that each test a segment of
their own, with their own copy of the tests, run as side by side as worker
processes do, without a process's start-up (1.5-3 CPU-seconds for two local
Dask workers) or its state sent over a pipe.  ``SegmentThreads`` offers what
``randqa.engine.dispatch.in_stream_order`` asks of a cluster's client
(``submit``, ``scatter``, ``slots``), so segments are dispatched, merged in
stream order and judged by the same code whichever runs them.

The threads are daemons: a run stopped by Ctrl-C reports at once, and a
segment still being tested is dropped with the process rather than waited
for.  A run that ends with segments still being tested (stopped, failed at
a progressive length, or broken by an error) closes its threads, and those
segments stop at their next chunk (``abandoned``, asked before every
chunk goes to the tests), so that in a process that goes on (the API, ``compare``'s next
source) they take no more CPU.
"""

from __future__ import annotations

import queue
import threading
from concurrent.futures import Future
from typing import Any, Callable


class SegmentAbandoned(Exception):
    """Raised in a segment thread's task when its run closed the threads: nobody waits for its result."""


_running = threading.local()


def abandoned() -> bool:
    """Whether the segment this thread is testing was abandoned by its run
    (always False outside segment threads)."""
    stop = getattr(_running, "stop", None)
    return stop is not None and stop.is_set()


class SegmentThreads:
    """``threads`` daemon threads that run submitted segments' tasks in turn."""

    def __init__(self, threads: int) -> None:
        if threads < 1:
            raise ValueError(f"SegmentThreads needs at least one thread, not {threads}")
        self.threads = threads
        self._tasks: queue.SimpleQueue[tuple[Future, Callable[..., Any], tuple[Any, ...]] | None] = queue.SimpleQueue()
        self._closed = threading.Event()
        self._workers = [threading.Thread(target=self._work, name=f"randqa-segment-{i}", daemon=True)
                         for i in range(threads)]
        for worker in self._workers:
            worker.start()

    def _work(self) -> None:
        _running.stop = self._closed
        while True:
            task = self._tasks.get()
            if task is None:
                return
            future, function, args = task
            # the task's arguments hold the segment's bytes: dropped as soon as it is tested,
            # not kept by this thread while it waits for the next
            del task
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(function(*args))
                except BaseException as exc:  # handed to whoever waits for the segment
                    future.set_exception(exc)
            del future, function, args

    # -- what in_stream_order asks of a cluster's client ---------------------

    def client(self, interrupted: Callable[[], bool] = lambda: False) -> "SegmentThreads":
        return self

    def slots(self) -> int:
        return self.threads

    def in_flight(self) -> int:
        """Segments submitted ahead of the one being merged: one per thread and
        one waiting (a thread, unlike a worker, needs no transfer ahead), so a
        stream read here holds that many segments besides the one being read."""
        return self.threads + 1

    def scatter(self, data: Any, hash: bool = False) -> Any:
        """A producer's segment stays where it is: the threads share this process's memory."""
        return data

    def submit(self, function: Callable[..., Any], *args: Any, pure: bool = False, retries: int = 0) -> Future:
        """Run ``function(*args)`` on the next free thread (``pure`` and
        ``retries`` are a Dask client's: a thread is not lost as a worker is)."""
        future: Future = Future()
        self._tasks.put((future, function, args))
        return future

    def describe(self) -> dict[str, Any]:
        """How segments were executed, for the run's JSON."""
        return {"mode": "threads", "workers": self.threads, "startup_s": 0.0}

    def close(self) -> None:
        """End the threads: segments still being tested stop at their next
        chunk (their results would never be merged), and a stopped run's
        waiting segments were cancelled by their dispatcher."""
        self._closed.set()
        for _ in self._workers:
            self._tasks.put(None)
