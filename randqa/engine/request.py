"""A run request: what one run tests and how far, checked once and kept as
data, so a checkpoint stores it and ``randqa resume`` continues it
(randqa.engine.execute runs it).

The rules every path shares live here once: the last length of a
progressive run (``last_length``, in randqa.engine.lengths), and the
progress bar's total (``RunRequest.progress_total``).  The validators
check data read back from a file: every field's type and range.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any

from randqa.battery._state import MAX_DEPTH
from randqa.battery.suites import Suite, suite_from_document
from randqa.sources import open_source
from randqa.engine.lengths import UNTIL_END, check_first_length, last_length, progressive_lengths
from randqa.errors import SuiteError, UsageError
from randqa.interleaving import MAX_STREAMS, stream_position
from randqa.sizes import MAX_SIZE
from randqa.sources import Source

if TYPE_CHECKING:
    from randqa.interleaving import StreamLayout

#: what a file's identity covers: its size and a hash of its first bytes
IDENTITY_BYTES = 1 << 20
#: the longest path or name a checkpoint may record
MAX_TEXT = 4096
#: the most tests a suite as data may list (real ones: dozens)
MAX_SUITE_TESTS = 1 << 14


def suite_to_json(suite: Suite) -> dict[str, Any]:
    """A suite as data: enough to rebuild the same accumulators anywhere."""
    return {
        "name": suite.name,
        "description": suite.description,
        "thresholds": suite.thresholds.to_json(),
        "tests": [t.to_json() for t in suite.tests],
        "path": suite.path,
    }


def suite_from_json(data: Any, max_memory: int | None = None) -> Suite:
    """The suite of :func:`suite_to_json`, validated as a suite file is
    (every parameter in its test's range; with ``max_memory``, every entry
    within it); ValueError when it is not such a suite."""
    try:
        check_keys(data, "suite", {"name", "description", "thresholds", "tests", "path"})
        check_field(isinstance(data["path"], str) and is_text(data["path"]), "suite path")
        check_field(isinstance(data["description"], str), "suite description")
        check_field(isinstance(data["tests"], list) and 0 < len(data["tests"]) <= MAX_SUITE_TESTS, "suite tests")
        entries, views = [], None
        for test in data["tests"]:
            if "streams" in test:  # the entry Suite.with_streams adds, last: rebuilt from the suite's own entries
                check_field(views is None and isinstance(test["streams"], dict), "suite streams")
                views = test["streams"]
                check_field(isinstance(views.get("count"), int) and 2 <= views["count"] <= MAX_STREAMS
                       and isinstance(views.get("interleave"), int) and 1 <= views["interleave"] <= MAX_SIZE,
                       "suite streams")
                continue
            check_field(views is None, "suite streams")
            check_keys(test, "suite test", {"test", "params", "sequence_bits", "fold", "sample"})
            check_field(isinstance(test["params"], dict) and not {"test", "sequence_bits", "fold_word_bits",
                                                             "fold_low_bits", "sample_every", "sample_dense_mib"}
                        & set(test["params"]), "test parameters")
            entry = {"test": test["test"], **test["params"]}
            if test["sequence_bits"] is not None:
                entry["sequence_bits"] = test["sequence_bits"]
            if test["fold"] is not None:
                check_field(isinstance(test["fold"], list) and len(test["fold"]) == 2, "test fold")
                entry["fold_word_bits"], entry["fold_low_bits"] = test["fold"]
            if test["sample"] is not None:
                check_field(isinstance(test["sample"], list) and len(test["sample"]) == 2, "test sample")
                entry["sample_every"], entry["sample_dense_mib"] = test["sample"]
            entries.append(entry)
        suite = suite_from_document({"name": data["name"], "description": data["description"],
                                     "thresholds": data["thresholds"], "tests": entries}, data["path"],
                                    max_memory, what="suite")
        if views is not None:
            suite = suite.with_streams(views["count"], views["interleave"])
    except SuiteError as exc:
        raise ValueError(str(exc)) from None
    if suite_to_json(suite) != data:  # what the suite file format cannot say (a float where an int was)
        raise ValueError(f"suite {data['path']}: not as randqa writes a suite")
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


@dataclass(frozen=True)
class RunRequest:
    """One run as data: the source as named, the suite, the lengths (limit,
    progressive lengths, seed sweep, streams), the fold and format, and
    --segment.  A checkpoint stores it; ``randqa resume`` continues it."""

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
    def from_json(cls, data: Any) -> "RunRequest":
        """The run a checkpoint describes, every field checked; ValueError when it is not one."""
        from randqa.folding import check_folding
        from randqa.sources import FORMATS

        check_keys(data, "run", {f.name for f in fields(cls)})
        request = cls(**data)
        check_field(request.kind in ("test", "seed-sweep"), "kind of run")
        check_field(isinstance(request.source, str) and is_text(request.source), "source")
        check_field(isinstance(request.suite, dict), "suite")
        check_field(request.seed is None or is_whole(request.seed, 0, None), "seed")
        check_field(request.fmt in FORMATS, "format")
        if request.fold is not None:
            check_field(isinstance(request.fold, list) and len(request.fold) == 2, "fold")
            check_folding(*request.fold)
        check_field(request.limit is None or is_whole(request.limit, 1, MAX_SIZE), "limit")
        check_field(request.segment is None or is_whole(request.segment, 1, MAX_SIZE), "segment")
        if request.progressive is not None:
            check_keys(request.progressive, "progressive", {"min_bytes", "max_bytes", "keep_going"})
            low, high = request.progressive["min_bytes"], request.progressive["max_bytes"]
            check_field(is_whole(low, 1, MAX_SIZE) and is_whole(high, low, MAX_SIZE)
                        and type(request.progressive["keep_going"]) is bool, "progressive lengths")
        check_field((request.kind == "seed-sweep") == (request.seed_sweep is not None), "seed sweep")
        if request.seed_sweep is not None:
            sweep = request.seed_sweep
            check_keys(sweep, "seed sweep", {"seeds", "positions", "base_seed"})
            check_field(is_whole(sweep["seeds"], 2, MAX_SIZE) and is_whole(sweep["positions"], 1, 4096)
                        and is_whole(sweep["base_seed"], 0, None), "seed sweep")
        if request.identity is not None:
            check_keys(request.identity, "identity", {"size", "sha256_first_mib"})
            digest = request.identity["sha256_first_mib"]
            check_field(is_whole(request.identity["size"], 0, None) and isinstance(digest, str)
                        and re.fullmatch("[0-9a-f]{64}", digest) is not None, "identity")
        return request

    def progress_total(self, unit_bits: int = 8) -> int | None:
        """What a progress bar counts up to: bytes (the last progressive
        length, the limit), or seeds x positions of a seed sweep; None when
        unknown (until the data ends, or bit text)."""
        if self.seed_sweep is not None:
            return self.seed_sweep["seeds"] * self.seed_sweep["positions"]
        if self.progressive is not None:
            last = self.progressive["max_bytes"]
            return last if last < UNTIL_END else None
        return self.limit if unit_bits == 8 else None

    @property
    def lengths_judged(self) -> int:
        """How many lengths the run judges (each kept in memory): the
        progressive lengths, else one."""
        if self.progressive is None:
            return 1
        return progressive_lengths(self.progressive["min_bytes"], self.progressive["max_bytes"])

    def mismatch(self, other: "RunRequest") -> str | None:
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


def check_field(condition: bool, what: str) -> None:
    if not condition:
        raise ValueError(f"bad {what}")


def check_keys(data: Any, what: str, keys: set[str]) -> None:
    check_field(isinstance(data, dict) and set(data) == keys, f"{what} (not the fields randqa writes)")


def is_whole(value: Any, low: int, high: int | None) -> bool:
    return type(value) is int and low <= value and (high is None or value <= high)


def is_number(value: Any, low: float = 0.0, high: float = math.inf) -> bool:
    return type(value) in (int, float) and math.isfinite(value) and low <= value <= high


def is_text(text: str) -> bool:
    """A path or name a checkpoint may record: something a command line could give."""
    return 0 < len(text) <= MAX_TEXT and "\0" not in text


def is_plain(value: Any, depth: int = 0) -> bool:
    """A JSON value of bounded nesting (the details of a test's result)."""
    if depth > MAX_DEPTH:
        return False
    if value is None or type(value) in (bool, int, str) or type(value) is float:
        return True
    if type(value) is list:
        return all(is_plain(v, depth + 1) for v in value)
    if type(value) is dict:
        return all(type(k) is str and is_plain(v, depth + 1) for k, v in value.items())
    return False



def identity_of(source: str) -> dict[str, Any] | None:
    """The identity a request records for the data of ``source`` (files only)."""
    from randqa.sources import is_data_spec

    return file_identity(source) if source != "-" and is_data_spec(source) else None


def stream_request(source: str, suite: Suite, *, seed: int | None = None, fmt: str = "bytes",
                   fold: tuple[int, int] | None = None, size: int | None = None, endless_size: int,
                   progressive: tuple[int, int | None, bool] | None = None, endless_last: int,
                   segment: int | None = None, layout: "StreamLayout | None" = None,
                   opened: Source | None = None) -> tuple[RunRequest, Suite]:
    """The request to test ``source`` (a name, or the label of ``opened``,
    a source already open) and the suite it runs: ``size`` units, else
    ``endless_size`` of a generator, else until the data ends; or
    progressively from ``progressive`` = (first, last or None, keep going)
    to the last length (``last_length``, ``endless_last`` for a generator).
    With ``layout``, the generator's interleaved streams, each alone and each
    pair's XOR (the scheme checked and the interleave resolved here)."""
    from randqa.sources import is_data_spec

    streams = None
    if layout is not None:
        with open_source(source, seed=seed, layout=layout) as probe:
            suite, streams = suite.with_streams(layout.count, probe.interleave), probe.layout.to_json()
    elif opened is not None and opened.layout is not None:  # streams given as objects
        suite = suite.with_streams(opened.layout.count, opened.layout.interleave)
    endless = opened.endless if opened is not None else not is_data_spec(source)
    limit, lengths = size, None
    if progressive is not None:
        first, last_given, keep_going = progressive
        last = last_length(last_given, size, endless_last if endless else None)
        check_first_length(first, last)
        lengths = {"min_bytes": first, "max_bytes": last, "keep_going": keep_going}
        limit = None
    elif limit is None and endless:
        limit = endless_size
    if streams is not None:
        _check_every_stream_read(streams, limit if lengths is None else lengths["max_bytes"])
    request = RunRequest(kind="test", source=source, suite=suite_to_json(suite), seed=seed, fmt=fmt,
                         fold=list(fold) if fold else None, limit=limit, progressive=lengths, segment=segment,
                         identity=identity_of(source) if opened is None else None, streams=streams)
    return request, suite


def _check_every_stream_read(streams: dict[str, Any], nbytes: int | None) -> None:
    """Refuse a run too short for its last stream to get a byte: each stream
    alone would be tested on nothing, and the run would pass."""
    from randqa.sizes import format_size

    count, block = streams["count"], streams["interleave"]
    if nbytes is not None and stream_position(nbytes, count, block, count - 1) == 0:
        raise UsageError(f"--interleave {format_size(block)}: the run's {format_size(nbytes)} give stream {count} of "
                         f"{count} no bytes (the streams take turns of {format_size(block)}); test more than "
                         f"{format_size((count - 1) * block)} or give a smaller --interleave")


def open_request(request: RunRequest) -> Source:
    """The source of a stream run's request."""
    from randqa.interleaving import StreamLayout

    layout = StreamLayout.from_json(request.streams) if request.streams is not None else None
    return open_source(request.source, seed=request.seed, fmt=request.fmt,
                      fold=(request.fold[0], request.fold[1]) if request.fold else None, layout=layout)
