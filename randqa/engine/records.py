"""What a checkpoint saves besides the accumulators (how far a run got), what
a run found, and where the loop saves."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from randqa.errors import OutputError
from randqa.results import TestResult


#: seconds between checkpoints unless --checkpoint-every says otherwise
DEFAULT_CHECKPOINT_EVERY_S = 300.0


@dataclass
class CheckpointRecord:
    """How far a run got: what a checkpoint saves besides the accumulators."""

    position: int = 0
    tail_bits: int = 0
    #: the progressive lengths judged so far (their JSON records)
    lengths: list[dict[str, Any]] = field(default_factory=list)
    first_failure: int | None = None
    #: seconds spent in earlier sessions of the run
    elapsed_s: float = 0.0
    #: the run reached its end (limit, end of data, or a failure that stops it)
    complete: bool = False
    #: the data ended before the limit
    ended: bool = False
    sessions: int = 0
    #: segments tested on workers, bytes tested in this process, over all sessions
    segments: int = 0
    in_process: int = 0
    #: a stream that cannot be opened again (stdin): its first bytes' length and SHA-256
    #: (``Workload.head``), which a resumed stream must match
    head: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return dict(vars(self))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "CheckpointRecord":
        return cls(**data)


@dataclass
class Outcome:
    """What a run found, before it becomes a RunResult."""

    results: list[TestResult]
    progress: CheckpointRecord
    interrupted: bool
    elapsed_s: float
    execution: dict[str, Any]
    #: the progressive lengths to report (those judged, plus where an interruption stopped)
    lengths: list[dict[str, Any]]


class SaveFailed(OutputError):
    """A checkpoint could not be written (a full disk, a folder gone): the run
    goes on, and its results are reported, without it."""


class Saver(ABC):
    """Where the loop saves its progress (randqa.engine.checkpoint.Checkpoint)."""

    every_s: float = DEFAULT_CHECKPOINT_EVERY_S
    #: why the last save failed (``SaveFailed``'s message); None once one succeeds
    failure: str | None = None

    @abstractmethod
    def save(self, progress: CheckpointRecord, accumulators: list[Any]) -> None:
        """Save the merged state of the longest finished prefix; SaveFailed when it cannot be written."""
