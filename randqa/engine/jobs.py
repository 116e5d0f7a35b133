"""What workers run (a ``SegmentJob``: fresh accumulators fed one segment),
and the accumulators' state copied, loaded and merged in stream order."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np

from randqa.battery import Accumulator
from randqa.battery._state import StateError, export_state, import_state
from randqa.battery.suites import Suite
from randqa.engine.feeding import ArrayReader, Reader, SourceReader


class SegmentJob(ABC):
    """The part of a workload that workers run: build fresh accumulators for
    the segment starting at ``start`` and feed them its units.  Instances are
    sent to workers, so they hold only plain, picklable data."""

    @abstractmethod
    def build(self, start: int) -> list[Any]:
        """Fresh accumulators for a piece that starts at unit ``start``."""

    @abstractmethod
    def reader(self, start: int, count: int, data: np.ndarray | None) -> "Reader":
        """What feeds units ``[start, start + count)`` to accumulators."""

    def compute(self, start: int, count: int, snapshots: tuple[int, ...], data: np.ndarray | None) -> dict[str, Any]:
        """Test units ``[start, start + count)``; also return the state at each
        offset of ``snapshots``.  ``count`` in the result is what was there
        (less than asked when the data ends)."""
        accumulators = self.build(start)
        states: dict[int, list[dict[str, Any]]] = {}
        position = start
        with self.reader(start, count, data) as reader:
            for point in [*snapshots, start + count]:
                want = point - position
                fed = reader.feed(accumulators, want).units
                position += fed
                if fed < want:
                    break
                if point != start + count:
                    states[point] = [export_state(acc) for acc in accumulators]
        return {"count": position - start, "states": [export_state(acc) for acc in accumulators], "snapshots": states}


@dataclass(frozen=True)
class StreamJob(SegmentJob):
    """A byte stream's segments: opened by the worker (``spec`` and the
    recorded ``seed``; files by pread, generators by a jump), or sent as
    bytes by the producer."""

    suite: Suite
    spec: str | None = None
    seed: int | None = None
    fold: tuple[int, int] | None = None
    #: the interleaved streams of --streams (a StreamLayout's JSON)
    streams: dict[str, Any] | None = None

    def build(self, start: int) -> list[Any]:
        accumulators = self.suite.build()
        for acc in accumulators:
            acc.begin_at(start)
        return accumulators

    def reader(self, start: int, count: int, data: np.ndarray | None) -> Reader:
        if data is not None:
            return ArrayReader(data)
        from randqa.sources.segments import open_at

        if self.spec is None:
            raise ValueError("a sequential stream's segments come with their data")
        return SourceReader(open_at(self.spec, self.seed, start, length=count, streams=self.streams, fold=self.fold))


def copy_accumulators(job: SegmentJob, accumulators: list[Any]) -> list[Any]:
    """Independent copies, through their state (locks and factories rebuilt)."""
    copies = job.build(0)
    for copy, acc in zip(copies, accumulators):
        load_into(copy, export_state(acc))
    return copies


def load_into(acc: Any, state: dict[str, Any]) -> None:
    if isinstance(acc, Accumulator):
        acc.load_state(state)
    else:
        import_state(acc, state)


def loaded(job: SegmentJob, start: int, states: list[dict[str, Any]]) -> list[Any]:
    """Fresh accumulators of ``job`` for a piece at ``start``, holding ``states``; StateError if they do not fit."""
    accumulators = job.build(start)
    if len(states) != len(accumulators):
        raise StateError("a segment's result holds another number of tests")
    for acc, state in zip(accumulators, states):
        load_into(acc, state)
    return accumulators


def merge_into(left: list[Any], right: list[Any]) -> None:
    for a, b in zip(left, right):
        a.merge(b)
