"""Checkpoints of long runs: data bound to their run, never code.

``--checkpoint PATH`` saves the merged state of the run's longest finished
prefix, at most every ``--checkpoint-every`` seconds and at exit (Ctrl-C,
the end of the run); ``randqa resume PATH`` continues from it, on the same
or other workers.  The file is one ``.npz`` (a zip of ``.npy`` arrays),
written as ``randqa.files.write_atomically`` writes (temporary file, fsync,
rename) but streamed into the file, so a crash or ``kill -9`` at any moment
leaves the previous checkpoint whole.  It holds:

- ``meta``: UTF-8 JSON: the format and randqa version, the run
  (``RunRequest``: source, recorded seed, suite as data, limits, progressive
  and seed-sweep parameters), the command and output paths, the progress
  (bytes done, progressive lengths judged so far), the accumulators'
  state tree, whose arrays are named ``a0``, ``a1``, ..., and ``digest``,
  the SHA-256 of all of that and of every array;
- those arrays.

Reading treats the file as untrusted data (``read_checkpoint``): only a
regular file is opened (never a device or a pipe); the zip's directory,
its members' names and their declared sizes are checked before anything
is inflated: the metadata at most ``MAX_META_BYTES``, the arrays together
at most what the declared suite's tests state they hold
(``state_budget``), each ``.npy`` header's shape matching its member's
size; every field of the metadata has its type and range checked, the
suite is validated as a suite file is (within ``--max-memory``'s
default), the digest must match, and every accumulator must have counted
exactly the bytes (or seeds) the progress says.  Classes in the state are
looked up in a closed table (randqa/battery/_state.py), so nothing in the
file can make randqa import or run code.  Anything else is refused with
one line (exit 2).  The digest ties state and metadata together against
accidents (parts of two checkpoints mixed, an edited field); it is no
signature: whoever can write the file can recompute it, and what they can
then change is bounded by the checks above.

``CheckpointLock`` (randqa/engine/checkpoint_lock.py) keeps two runs off
one checkpoint path.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
import os
import re
import stat
import struct
import zipfile
from dataclasses import dataclass, field, fields
from typing import Any, BinaryIO

import numpy as np

from randqa._version import __version__
from randqa.battery._state import array_names, from_document, to_document
from randqa.battery.base import RESULT_BYTES
from randqa.battery.suites import Suite
from randqa.engine.records import CheckpointRecord, SaveFailed, Saver
from randqa.engine.workloads import HEAD_BYTES
from randqa.engine.request import (RunRequest, check_field, check_keys, is_number, is_plain, is_text, is_whole,
                                   suite_from_json)
from randqa.errors import InputError, one_line
from randqa.results import PVALUE_KINDS, Verdict
from randqa.sizes import MAX_SIZE, format_size

FORMAT = "randqa-checkpoint"
#: 2: a statistic shared by several tests is saved once, with its owner;
#: 3: a digest binds the state to the metadata; 4: suite entries say how they
#: are sampled, and a lagged_difference whose lags are whole periods keeps only
#: the words its windows read (a state of 3 would not fit them)
FORMAT_VERSION = 4
#: the largest metadata member read (real ones: KiB, a few MiB for long progressive NIST runs)
MAX_META_BYTES = 32 << 20
#: the most members a checkpoint may hold (real ones: dozens)
MAX_MEMBERS = 1 << 14
#: what a state may hold beyond its suite's stated needs: pending bytes of
#: unfinished blocks, small arrays, the npy headers
STATE_SLACK_BYTES = 8 << 20
#: the kinds of numpy arrays a state holds: booleans, integers, floats
ARRAY_KINDS = "biuf"
#: the only member names a checkpoint has
MEMBER_NAME = re.compile(r"meta\.npy|a(?:0|[1-9][0-9]{0,8})\.npy")



def record_from_json(data: Any, run: RunRequest) -> CheckpointRecord:
    """The progress a checkpoint records, every field checked against ``run``."""
    check_keys(data, "progress", {f.name for f in fields(CheckpointRecord)})
    progress = CheckpointRecord(**data)
    last = run.seed_sweep["seeds"] if run.seed_sweep else MAX_SIZE
    check_field(is_whole(progress.position, 0, last), "position")
    check_field(is_whole(progress.tail_bits, 0, 7 if run.fmt == "bits" else 0), "tail bits")
    check_field(progress.first_failure is None or is_whole(progress.first_failure, 1, progress.position), "first failure")
    check_field(is_number(progress.elapsed_s), "elapsed time")
    check_field(all(type(getattr(progress, name)) is bool for name in ("complete", "ended")), "progress flags")
    check_field(is_whole(progress.sessions, 0, MAX_SIZE) and is_whole(progress.segments, 0, MAX_SIZE)
           and is_whole(progress.in_process, 0, progress.position), "progress counts")
    check_field(isinstance(progress.lengths, list) and len(progress.lengths) <= 64, "progressive lengths")
    head = progress.head
    check_field(head is None or isinstance(head, dict) and set(head) == {"bytes", "sha256"}
                and is_whole(head["bytes"], 0, min(HEAD_BYTES, progress.position))
                and isinstance(head["sha256"], str) and re.fullmatch("[0-9a-f]{64}", head["sha256"]) is not None,
                "stream head")
    for record in progress.lengths:
        check_keys(record, "progressive length", {"bytes", "verdict", "elapsed_s", "tests"})
        check_field(is_whole(record["bytes"], 1, progress.position) and record["verdict"] in set(Verdict)
               and is_number(record["elapsed_s"]) and isinstance(record["tests"], list), "progressive length")
        for test in record["tests"]:
            check_field(isinstance(test, dict) and {"name", "statistic", "p_value", "verdict"} <= set(test)
                   <= {"name", "statistic", "p_value", "p_value_low", "verdict", "needs", "details", "p_value_kind",
                       "retest"}, "test result")
            check_field(isinstance(test["name"], str) and test["verdict"] in set(Verdict)
                   and all(test.get(key) is None or is_number(test[key], -math.inf, math.inf) for key in ("statistic",)
                           ) and all(test.get(key) is None or is_number(test[key], 0.0, 1.0)
                                     for key in ("p_value", "p_value_low"))
                   and (test.get("needs") is None or isinstance(test["needs"], str))
                   and isinstance(test.get("details", {}), dict) and is_plain(test.get("details"))
                   and test.get("p_value_kind") in (None, *PVALUE_KINDS)
                   and isinstance(test.get("retest", {}), dict) and is_plain(test.get("retest")), "test result")
    return progress


def state_budget(run: RunRequest, suite: Suite) -> int:
    """The most bytes a checkpoint of ``run`` may hold in arrays: what the
    suite's tests state they hold (a seed sweep: its counts per position),
    with room for pending bytes and headers."""
    if run.seed_sweep is not None:
        positions = run.seed_sweep["positions"]
        held = positions * 256 * 8 + 2 * positions
    else:
        held = sum(spec.memory_need(1).held + spec.memory_need(1).results * RESULT_BYTES for spec in suite.tests)
    return held + STATE_SLACK_BYTES


def state_digest(meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> str:
    """The SHA-256 of a checkpoint's metadata (its ``digest`` left out) and arrays."""
    digest = hashlib.sha256()
    text = json.dumps({k: v for k, v in meta.items() if k != "digest"}, sort_keys=True, allow_nan=True,
                      separators=(",", ":"))
    digest.update(text.encode())
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(json.dumps([name, array.dtype.str, list(array.shape)]).encode())
        digest.update(memoryview(array).cast("B") if array.size else b"")
    return "sha256:" + digest.hexdigest()


@dataclass
class Saved:
    """A checkpoint read back."""

    path: str
    run: RunRequest
    progress: CheckpointRecord
    states: list[dict[str, Any]]
    command: str | None = None
    outputs: dict[str, Any] = field(default_factory=dict)
    #: what the caller saved with the run (compare: the sources done)
    context: dict[str, Any] | None = None
    #: its data and state checked against the run (randqa.engine.execute.check_resume)
    checked: bool = False


class Checkpoint(Saver):
    """Writes a run's checkpoint file (``RunLoop`` calls ``save``)."""

    def __init__(self, path: str, every_s: float, run: RunRequest, command: str | None = None,
                 outputs: dict[str, Any] | None = None, context: dict[str, Any] | None = None) -> None:
        self.path = path
        self.every_s = every_s
        self.run = run
        self.command = command
        self.outputs = outputs or {}
        self.context = context

    def save(self, progress: CheckpointRecord, accumulators: list[Any]) -> None:
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
        meta = json.loads(json.dumps(meta, allow_nan=True))  # as it will be read back (tuples as lists)
        meta["digest"] = state_digest(meta, arrays)
        text = json.dumps(meta, allow_nan=True).encode()
        try:
            _write_npz_atomically(self.path, {"meta": np.frombuffer(text, dtype=np.uint8), **arrays})
        except OSError as exc:
            raise SaveFailed(f"--checkpoint {self.path}: cannot write ({exc.strerror or exc})") from None


def _write_npz_atomically(path: str, arrays: dict[str, np.ndarray]) -> None:
    """``np.savez`` of ``arrays`` to ``path`` by ``randqa.files.write_atomically``
    (a temporary file in its folder, fsync, rename), streamed into the file:
    no copy of the whole zip is made in memory (a collisions64 state is
    gigabytes)."""
    from randqa.files import write_atomically

    write_atomically(path, lambda f: _write_npz(f, arrays))


#: bytes of an array handed to the zip at a time
_WRITE_SLICE = 16 << 20


def _write_npz(f: BinaryIO, arrays: dict[str, np.ndarray]) -> None:
    """What ``np.savez`` writes (``NAME.npy`` members, stored), each array
    written from its own memory a slice at a time (np.savez goes through a
    buffered iterator and a bytes copy of each 16 MiB)."""
    with zipfile.ZipFile(f, mode="w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, array in arrays.items():
            array = np.ascontiguousarray(array)
            with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array_header_1_0(member, np.lib.format.header_data_from_array_1_0(array))
                data = memoryview(array).cast("B") if array.size else memoryview(b"")
                for first in range(0, len(data), _WRITE_SLICE):
                    member.write(data[first:first + _WRITE_SLICE])


class _Refused(Exception):
    """A checkpoint that is not one randqa wrote whole; the message says why."""


def read_checkpoint(path: str, max_memory: int | None = None) -> Saved:
    """A checkpoint file, checked (the module docstring says how); InputError
    (one line, exit 2) when it is not one, is damaged, comes from another
    randqa version or exceeds its bounds.  ``max_memory`` bounds what its
    suite may hold (default: --max-memory's)."""
    def refuse(problem: str) -> InputError:
        return InputError(f"checkpoint {path}: {problem}")

    try:
        # O_NONBLOCK: a FIFO's open would wait for a writer; the file is then refused for what it is
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError) as exc:
        raise refuse(f"cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    status = os.fstat(fd)
    if not stat.S_ISREG(status.st_mode):
        os.close(fd)
        raise refuse("not a regular file (a device, a pipe or a folder); a checkpoint is a file randqa writes")
    with os.fdopen(fd, "rb") as f:
        try:
            return _read(f, status.st_size, path, max_memory)
        except _Refused as exc:
            raise refuse(str(exc)) from None
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, struct.error) as exc:
            raise refuse(f"truncated or corrupt ({type(exc).__name__}: {one_line(exc)}); "
                         "not a checkpoint randqa wrote whole") from None
        except RecursionError:
            raise refuse("damaged (nested too deeply)") from None
        except (TypeError, ValueError, KeyError, UnicodeDecodeError) as exc:  # StateError is a ValueError
            raise refuse(f"damaged ({one_line(exc)})") from None


def _read(f: BinaryIO, size: int, path: str, max_memory: int | None) -> Saved:
    if size == 0:
        raise _Refused("empty: not a checkpoint randqa wrote whole")
    if f.read(4) != b"PK\x03\x04":
        raise _Refused("not a randqa checkpoint (not an .npz file)")
    entries = _zip_entries(f, size)
    if entries > MAX_MEMBERS:
        raise _Refused(f"holds {entries:,} members, more than any checkpoint ({MAX_MEMBERS:,})")
    with zipfile.ZipFile(f) as archive:
        members: dict[str, zipfile.ZipInfo] = {}
        for info in archive.infolist():
            if not MEMBER_NAME.fullmatch(info.filename) or info.filename in members:
                raise _Refused(f"holds a member {info.filename[:60]!r} that randqa never writes")
            if info.flag_bits & 0x1 or info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise _Refused(f"member {info.filename} is encrypted or compressed as randqa never does")
            members[info.filename] = info
        if "meta.npy" not in members:
            raise _Refused("not a randqa checkpoint (no metadata)")
        text = _read_member(archive, members["meta.npy"], MAX_META_BYTES).tobytes().decode("utf-8")
        meta = json.loads(text)
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise _Refused("not a randqa checkpoint")
        if meta.get("format_version") != FORMAT_VERSION:
            raise _Refused(f"checkpoint format {_short_repr(meta.get('format_version'))}; "
                           f"this randqa reads {FORMAT_VERSION}")
        if meta.get("randqa_version") != __version__:
            raise _Refused(f"written by randqa {_short_repr(meta.get('randqa_version'))}, this is randqa "
                           f"{__version__}: resume it with that version")
        check_keys(meta, "metadata", {"format", "format_version", "randqa_version", "saved", "command", "outputs",
                                       "context", "run", "progress", "state", "digest"})
        run = RunRequest.from_json(meta["run"])
        progress = record_from_json(meta["progress"], run)
        check_field(isinstance(meta["saved"], str) and len(meta["saved"]) <= 64, "date")
        check_field(meta["command"] is None or isinstance(meta["command"], str) and len(meta["command"]) <= 1 << 20,
               "command")
        outputs = meta["outputs"]
        check_field(isinstance(outputs, dict) and set(outputs) <= {"json", "html"}
               and all(v is None or isinstance(v, str) and is_text(v) for v in outputs.values()), "outputs")
        check_field(meta["context"] is None or isinstance(meta["context"], dict) and is_plain(meta["context"]), "context")
        from randqa.engine.memory import default_max_memory

        try:
            suite = suite_from_json(run.suite, default_max_memory() if max_memory is None else max_memory)
        except ValueError as exc:
            suite_from_json(run.suite)  # a damaged suite is refused as such; a whole one is only too large
            raise _Refused(f"{one_line(exc)}: resume it with a larger --max-memory") from None
        budget = state_budget(run, suite)
        names = array_names(meta["state"])
        if len(set(names)) != len(names) or set(names) != {n[:-4] for n in members if n != "meta.npy"}:
            raise _Refused("damaged (its state and its arrays do not match)")
        declared = sum(members[f"{name}.npy"].file_size for name in names)
        if declared > budget:
            raise _Refused(f"its arrays declare {format_size(declared, approximate=True)}; a state of suite "
                           f"{run.suite['name']!r} holds at most {format_size(budget, approximate=True)}")
        arrays = {name: _read_member(archive, members[f"{name}.npy"], budget) for name in names}
    if meta["digest"] != state_digest(meta, arrays):
        raise _Refused("damaged (its state does not match its metadata: the digest differs)")
    states = from_document(meta["state"], arrays)
    check_field(isinstance(states, list) and all(isinstance(s, dict) for s in states), "accumulator state")
    _check_counted(states, run, progress)
    return Saved(path, run, progress, states, meta["command"], dict(outputs), meta["context"])


def _short_repr(value: Any) -> str:
    """A value from the file, shown safely on one line (printable text as itself)."""
    text = value if isinstance(value, str) and value.isprintable() else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_counted(states: list[dict[str, Any]], run: RunRequest, progress: CheckpointRecord) -> None:
    """Every accumulator counted what the progress says was tested: a state
    is bound to its run's length, not only to its digest."""
    if run.seed_sweep is not None:
        expected = {"seeds": progress.position, "first_seed": run.seed_sweep["base_seed"]}
    else:
        expected = {"bytes_seen": progress.position, "start": 0}
    for state in states:
        for key, value in expected.items():
            if state.get(key) != value:
                raise _Refused(f"damaged (a test's state has counted {_short_repr(state.get(key))} {key}, "
                               f"the run {value})")


def _zip_entries(f: BinaryIO, size: int) -> int:
    """The number of members a zip's end record declares, read before
    zipfile builds its directory (whose size that number sets)."""
    tail_length = min(size, 22 + 0xFFFF)
    f.seek(size - tail_length)
    tail = f.read(tail_length)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        raise zipfile.BadZipFile("no end of central directory")
    entries = struct.unpack("<H", tail[at + 10:at + 12])[0]
    if entries == 0xFFFF and at >= 20 and tail[at - 20:at - 16] == b"PK\x06\x07":  # ZIP64
        offset = struct.unpack("<Q", tail[at - 12:at - 4])[0]
        if offset + 56 > size:
            raise zipfile.BadZipFile("bad ZIP64 end record")
        f.seek(offset)
        record = f.read(56)
        if record[:4] != b"PK\x06\x06":
            raise zipfile.BadZipFile("bad ZIP64 end record")
        entries = struct.unpack("<Q", record[32:40])[0]
    f.seek(0)
    return entries


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> np.ndarray:
    """One ``.npy`` member, its declared size and header checked before the
    array is allocated: at most ``limit`` bytes, a plain numeric dtype, a
    shape whose bytes are exactly what the member holds."""
    if info.file_size > limit + 4096:
        raise _Refused(f"member {info.filename} declares {format_size(info.file_size, approximate=True)}, "
                       f"more than such a checkpoint holds ({format_size(limit, approximate=True)})")
    with archive.open(info) as member:
        version = np.lib.format.read_magic(member)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(member, max_header_size=4096)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(member, max_header_size=4096)
        else:
            raise _Refused(f"member {info.filename}: npy format {version}")
        if dtype.hasobject or dtype.kind not in ARRAY_KINDS or dtype.fields is not None or dtype.subdtype is not None:
            raise _Refused(f"member {info.filename}: arrays of {dtype} are not state")
        if not all(type(d) is int and d >= 0 for d in shape) or len(shape) > 8:
            raise _Refused(f"member {info.filename}: bad shape")
        count = math.prod(shape)
        if member.tell() + count * dtype.itemsize != info.file_size:
            raise _Refused(f"member {info.filename}: its shape {shape} does not match its size")
        array = np.empty(count, dtype=dtype)
        view = memoryview(array).cast("B")
        filled = 0
        while filled < len(view):
            got = member.readinto(view[filled:])
            if not got:
                raise EOFError(f"member {info.filename} ends early")
            filled += got
    return array.reshape(shape, order="F" if fortran else "C")
