"""Checkpoints of long runs: data only, never code.

``--checkpoint PATH`` saves the merged state of the run's longest finished
prefix, at most every ``--checkpoint-every`` seconds and at exit (Ctrl-C,
the end of the run); ``randqa resume PATH`` continues from it, on the same
or other workers.  The file is one ``.npz`` (a zip of ``.npy`` arrays),
written through ``randqa.files.write_atomically`` (temporary file, fsync,
rename), so a crash or ``kill -9`` at any moment leaves the previous
checkpoint whole.  It holds:

- ``meta``: UTF-8 JSON: the format and randqa version, the run
  (``RunSpec``: source, recorded seed, suite as data, limits, progressive
  and seed-sweep parameters), the command and output paths, the progress
  (bytes done, progressive lengths judged so far) and the accumulators'
  state tree, whose arrays are named ``a0``, ``a1``, ...;
- those arrays.

Loading reads the arrays with ``allow_pickle=False`` and rebuilds the
accumulators from the suite, then loads their state into them
(randqa/battery/_state.py): nothing in the file can make randqa run code.
A file that is not such a checkpoint, is truncated or corrupt (the zip's
CRCs), comes from another randqa version, or does not match the run asked
for is refused with one line (exit 2).
"""

from __future__ import annotations

import datetime
import hashlib
import io
import json
import os
import zipfile
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from randqa._version import __version__
from randqa.battery._state import from_document, to_document
from randqa.battery.suites import Suite, spec_from_json
from randqa.engine.execute import Progress, Saver
from randqa.errors import InputError, UsageError
from randqa.files import write_atomically
from randqa.results import Thresholds

FORMAT = "randqa-checkpoint"
#: 2: a statistic shared by several tests is saved once, with its owner
FORMAT_VERSION = 2
#: what a file's identity covers: its size and a hash of its first bytes
IDENTITY_BYTES = 1 << 20


def suite_to_json(suite: Suite) -> dict[str, Any]:
    """A suite as data: enough to rebuild the same accumulators anywhere."""
    return {
        "name": suite.name,
        "description": suite.description,
        "thresholds": {"suspicious": suite.thresholds.suspicious, "fail": suite.thresholds.fail},
        "tests": [t.to_json() for t in suite.tests],
        "path": suite.path,
    }


def suite_from_json(data: dict[str, Any]) -> Suite:
    """The suite of :func:`suite_to_json`; ValueError when it is not one."""
    try:
        specs = [spec_from_json(t) for t in data["tests"]]
        suite = Suite(data["name"], data["description"], Thresholds(**data["thresholds"]), specs, data["path"])
        suite.build()
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"its suite is not valid ({type(exc).__name__}: {exc})") from None
    return suite


def file_identity(path: str) -> dict[str, Any] | None:
    """A regular file's size and the SHA-256 of its first MiB (None for anything else):
    a checkpoint of a file resumes only on the same data, wherever it was copied."""
    try:
        with open(path, "rb") as f:
            if not os.path.isfile(path):
                return None
            head = f.read(IDENTITY_BYTES)
            return {"size": os.fstat(f.fileno()).st_size, "sha256_first_mib": hashlib.sha256(head).hexdigest()}
    except OSError:
        return None


@dataclass
class RunSpec:
    """A run, as data: what ``randqa resume`` needs to continue it."""

    kind: str  # "test" or "seed-sweep"
    source: str
    suite: dict[str, Any]
    seed: int | None = None
    fmt: str = "bytes"
    fold: list[int] | None = None
    limit: int | None = None
    progressive: dict[str, Any] | None = None
    seed_sweep: dict[str, Any] | None = None
    #: --segment as given (None: the default for the suite)
    segment: int | None = None
    identity: dict[str, Any] | None = None
    #: --streams: randqa.sources.multistream.StreamLayout as data (the interleave resolved)
    streams: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> "RunSpec":
        if not isinstance(data, dict):
            raise ValueError("its run is not described")
        try:
            spec = cls(**data)
        except TypeError as exc:
            raise ValueError(f"its run description does not fit ({exc})") from None
        if spec.kind not in ("test", "seed-sweep") or not isinstance(spec.source, str):
            raise ValueError(f"unknown kind of run {spec.kind!r}")
        return spec

    def mismatch(self, other: "RunSpec") -> str | None:
        """What differs between the run a checkpoint holds (self) and the one
        asked for (other), or None.  A seed or segment size not given matches."""
        for name in ("kind", "source", "fmt", "fold", "limit", "progressive", "seed_sweep", "streams"):
            if getattr(self, name) != getattr(other, name):
                return f"{name} {_show(getattr(self, name))}, not {_show(getattr(other, name))}"
        if self.suite != other.suite:
            return f"suite {self.suite['name']!r} with other tests or parameters" if self.suite["name"] == other.suite[
                "name"] else f"suite {self.suite['name']!r}, not {other.suite['name']!r}"
        if other.seed is not None and self.seed != other.seed:
            return f"seed {self.seed}, not {other.seed}"
        if self.identity != other.identity:
            return "other data: the file's size or first MiB changed"
        return None


def _show(value: Any) -> str:
    return "none" if value is None else json.dumps(value) if not isinstance(value, str) else value


@dataclass
class Saved:
    """A checkpoint read back."""

    path: str
    run: RunSpec
    progress: Progress
    states: list[dict[str, Any]]
    command: str | None = None
    outputs: dict[str, Any] = field(default_factory=dict)
    #: what the caller saved with the run (compare: the sources done)
    context: dict[str, Any] | None = None


class Checkpoint(Saver):
    """Writes a run's checkpoint file (``RunLoop`` calls ``save``)."""

    def __init__(self, path: str, every_s: float, run: RunSpec, command: str | None = None,
                 outputs: dict[str, Any] | None = None, context: dict[str, Any] | None = None) -> None:
        self.path = path
        self.every_s = every_s
        self.run = run
        self.command = command
        self.outputs = outputs or {}
        self.context = context

    def save(self, progress: Progress, accumulators: list[Any]) -> None:
        from randqa.battery._state import export_state

        arrays: dict[str, np.ndarray] = {}
        state = to_document([export_state(acc) for acc in accumulators], arrays)
        meta = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "randqa_version": __version__,
            "saved": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "command": self.command,
            "outputs": self.outputs,
            "context": self.context,
            "run": self.run.to_json(),
            "progress": progress.to_json(),
            "state": state,
        }
        text = json.dumps(meta, allow_nan=True).encode()
        buffer = io.BytesIO()
        np.savez(buffer, meta=np.frombuffer(text, dtype=np.uint8), **arrays)
        try:
            write_atomically(self.path, buffer.getvalue())
        except OSError as exc:
            raise UsageError(f"--checkpoint {self.path}: cannot write ({exc.strerror or exc})") from None


def read_checkpoint(path: str) -> Saved:
    """A checkpoint file, checked; InputError (one line, exit 2) when it is
    not one, is damaged, or comes from another randqa version."""
    def refuse(problem: str) -> InputError:
        return InputError(f"checkpoint {path}: {problem}")

    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise refuse(f"cannot read ({exc.strerror or exc})") from None
    if not data.startswith(b"PK\x03\x04"):
        raise refuse("not a randqa checkpoint (not an .npz file)" if data else "empty: not a checkpoint randqa wrote whole")
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            if "meta" not in npz.files:
                raise refuse("not a randqa checkpoint (no metadata)")
            meta = json.loads(npz["meta"].tobytes().decode("utf-8"))
            arrays = {name: npz[name] for name in npz.files if name != "meta"}
    except InputError:
        raise
    except (zipfile.BadZipFile, EOFError, ValueError, KeyError, OSError, UnicodeDecodeError) as exc:
        reason = "truncated or corrupt" if isinstance(exc, (zipfile.BadZipFile, EOFError, OSError)) else "unreadable"
        raise refuse(f"{reason} ({type(exc).__name__}: {exc}); not a checkpoint randqa wrote whole") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise refuse("not a randqa checkpoint")
    if meta.get("format_version") != FORMAT_VERSION:
        raise refuse(f"checkpoint format {meta.get('format_version')!r}; this randqa reads {FORMAT_VERSION}")
    if meta.get("randqa_version") != __version__:
        raise refuse(f"written by randqa {meta.get('randqa_version')}, this is randqa {__version__}: "
                     f"resume it with that version")
    try:
        run = RunSpec.from_json(meta.get("run"))
        if not isinstance(meta.get("progress"), dict):
            raise ValueError("no progress")
        progress = Progress.from_json(meta["progress"])
        states = from_document(meta.get("state"), arrays)
        if not isinstance(states, list):
            raise ValueError("no accumulator state")
        outputs = meta.get("outputs") or {}
        context = meta.get("context")
        if not isinstance(outputs, dict) or not isinstance(context, (dict, type(None))):
            raise ValueError("bad outputs or context")
    except (TypeError, ValueError) as exc:  # StateError is a ValueError
        raise refuse(f"damaged ({exc})") from None
    return Saved(path, run, progress, states, meta.get("command"), outputs, context)
