"""Several sources side by side: generation speed next to test quality.

Speed is measured apart from testing, as applications call each generator
(randqa.speed.as_called: the real libc rand(), OpenSSL, the kernel; randqa's
compiled loop for generators that exist only as randqa's C), so the cost of
the tests never pollutes a generator's MB/s; then each source is tested with
the suite as ``randqa test`` would.  The result is one JSON document
(``kind = "compare"``) whose ``runs`` are ``randqa test`` results plus
``speed_mb_s``, ``speed_method`` and ``generation_mb_s`` (the rate randqa
feeds its tests); terminal table, JSON file and HTML report are all rendered
from that document.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ContextManager

from randqa import engine
from randqa._version import __version__
from randqa.speed.as_called import AsCalledSpeed, as_called_speed
from randqa.speed.generation import REPEATS as SPEED_REPEATS
from randqa.engine.run import DEFAULT_CHECKPOINT_EVERY_S
from randqa.errors import RandqaError, UsageError
from randqa.results import RunResult
from randqa.sources import Source, is_data_spec, open_source, read_full
from randqa.battery.suites import Suite

if TYPE_CHECKING:  # loaded when a comparison runs, not with every CLI command
    from randqa.engine.checkpoint import RunSpec, Saved
    from randqa.sources.multistream import StreamLayout

#: what ``randqa compare`` with no arguments compares: the contenders of the
#: nmap-dev PRNG benchmark mail, the Linux kernel pair, and two modern references
DEFAULT_SOURCES = [
    "urandom", "openssl", "glibc-rand-byte", "glibc-rand-short", "dnet-arc4",
    "lfsr113", "siprand",
    "pcg64", "chacha",
]

#: bytes tested per source by default (the last length of a progressive
#: run): the nine defaults with the standard suite finish in about two
#: minutes on a 2-core machine, speed measurement included
DEFAULT_COMPARE_BYTES = 2 << 30

#: progressive runs start at this length unless --min says otherwise (as `randqa test`)
DEFAULT_PROGRESSIVE_MIN = 1 << 10


@dataclass
class CompareOptions:
    """What to do with every source of a comparison."""

    suite: Suite
    #: bytes tested per source; None: DEFAULT_COMPARE_BYTES of a generator, all of a file
    size: int | None = None
    seed: int | None = None
    progressive: bool = False
    min_bytes: int = DEFAULT_PROGRESSIVE_MIN
    max_bytes: int | None = None
    keep_going: bool = False
    speed_repeats: int = SPEED_REPEATS
    #: threads running the suite's tests side by side in this process
    jobs: int = 1
    #: run the predictors on each source ("predictable from" in the table)
    predict: bool = True
    #: where segments go (randqa.engine.parallel.Workers), None: this process only
    workers: Any = None
    #: --segment as given
    segment: int | None = None
    checkpoint: str | None = None
    checkpoint_every_s: float = DEFAULT_CHECKPOINT_EVERY_S
    #: where the report goes (--json, --html), for a resumed comparison
    outputs: dict[str, Any] = field(default_factory=dict)
    #: --streams K: every generator's K streams under each of ``stream_seeds`` (the schemes), --interleave
    streams: int | None = None
    stream_seeds: list[str] = field(default_factory=list)
    interleave: int | None = None

    def to_json(self) -> dict[str, Any]:
        """What a checkpoint records of the options (a resumed comparison goes on with them)."""
        from randqa.engine.checkpoint import suite_to_json

        return {"suite": suite_to_json(self.suite), "size": self.size, "seed": self.seed,
                "progressive": self.progressive, "min_bytes": self.min_bytes, "max_bytes": self.max_bytes,
                "keep_going": self.keep_going, "speed_repeats": self.speed_repeats, "segment": self.segment,
                "predict": self.predict, "streams": self.streams, "stream_seeds": self.stream_seeds,
                "interleave": self.interleave}

    def layouts(self) -> list[StreamLayout | None]:
        """What each source is tested as: itself (None), or its streams under each scheme in turn."""
        from randqa.sources.multistream import StreamLayout

        if self.streams is None:
            return [None]
        return [StreamLayout(self.streams, scheme, self.interleave) for scheme in self.stream_seeds]

    @classmethod
    def from_json(cls, data: dict[str, Any], **execution: Any) -> "CompareOptions":
        from randqa.engine.checkpoint import suite_from_json

        fields = dict(data, suite=suite_from_json(data["suite"]))
        return cls(**fields, **execution)


def _open(spec: str, seed: int | None) -> Source:
    """open_source, with --seed going to generators only: a comparison may
    mix seeded generators with files and stdin (open_source's own rule tells
    a path from a generator name)."""
    return open_source(spec, seed=None if is_data_spec(spec) else seed)


def check_sources(specs: list[str], seed: int | None, layouts: list[StreamLayout | None] | None = None) -> None:
    """Refuse unknown names, a repeated stdin, unreadable files and stream
    schemes a generator cannot do before any work starts: a source that
    fails after an hour of others costs that hour."""
    if specs.count("-") > 1:
        raise UsageError("stdin ('-') can be compared only once")
    streamed = [layout for layout in layouts or [] if layout is not None]
    if streamed:
        from randqa.sources.multistream import open_streams

        for spec in specs:
            for layout in streamed:
                open_streams(spec, seed, layout).close()
        return
    for spec in specs:
        if spec != "-":
            with _open(spec, seed) as source:
                if not source.endless:
                    # a file that opens may still not read (/proc/self/mem, a
                    # directory, a broken disk): read its first byte now
                    read_full(source, memoryview(bytearray(1)))


def measure_speed(spec: str, seed: int | None, repeats: int = SPEED_REPEATS) -> AsCalledSpeed | None:
    """A generator's median MB/s as applications call it, and the rate
    randqa's own source feeds the tests (randqa.speed.as_called).

    Only endless sources (generators) have a generation speed: a file's read
    rate is the disk's, and stdin cannot be read twice; those give None.
    """
    if spec == "-":
        return None
    with _open(spec, seed) as probe_source:
        if not probe_source.endless:
            return None
    return as_called_speed(spec, None, repeats, seed)


def source_run(spec: str, options: CompareOptions, layout: StreamLayout | None = None) -> RunSpec:
    """One source's test, as data: a plain run or a progressive one, of the
    source or of its streams under ``layout``."""
    from randqa.engine.checkpoint import RunSpec, suite_to_json
    from randqa.engine.launch import identity_of

    suite, streams = options.suite, None
    if layout is not None:
        from randqa.sources.multistream import open_streams

        probe = open_streams(spec, options.seed, layout)  # the interleave resolved
        with probe:
            suite, streams = options.suite.with_streams(layout.count, probe.interleave), probe.layout.to_json()
    endless = not is_data_spec(spec)
    limit = options.size
    if limit is None and endless:
        limit = DEFAULT_COMPARE_BYTES
    progressive = None
    if options.progressive:
        # stdin and files: until the data ends
        last = options.max_bytes or limit or engine.UNTIL_END
        progressive = {"min_bytes": options.min_bytes, "max_bytes": last, "keep_going": options.keep_going}
        limit = None
    return RunSpec(kind="test", source=spec, suite=suite_to_json(suite), seed=options.seed if endless else None,
                   limit=limit, progressive=progressive, segment=options.segment, identity=identity_of(spec),
                   streams=streams)


def run_source_tests(spec: str, options: CompareOptions,
                progress: Callable[[str, int | None], ContextManager[Callable[[int], None]]] | None = None,
                *, saved: Saved | None = None, context: dict[str, Any] | None = None, command: str | None = None,
                layout: StreamLayout | None = None) -> RunResult:
    """Test one source with the suite: a plain run, or a progressive one,
    on the comparison's workers when it has them.

    ``progress(name, total_bytes)`` returns a context manager that is called
    with byte counts (a ProgressBar); total is None when unknown (a file).
    ``saved`` is the checkpoint of this source's run to continue; with
    ``layout`` the source's streams are tested.
    """
    from randqa.engine.launch import Execution, launch

    name = "stdin" if spec == "-" else spec
    if layout is not None:
        from randqa.sources.multistream import stream_name

        name = stream_name(spec, layout.count, layout.scheme)
    execution = Execution(workers=options.workers, threads=options.jobs, checkpoint=options.checkpoint,
                          checkpoint_every_s=options.checkpoint_every_s, command=command, outputs=options.outputs,
                          context=context)
    bar = (lambda total: progress(name, total)) if progress else None
    return launch(saved.run if saved is not None else source_run(spec, options, layout), execution, bar, saved=saved,
                  fresh=saved is None)


def predictability(spec: str, seed: int | None) -> dict[str, Any] | None:
    """The fewest observed bytes from which some predictor predicted the
    continuation exactly (randqa.predict), on a fresh copy of the stream
    that was tested (same seed); None for stdin, which cannot be read again."""
    from randqa.predict import predict

    if spec == "-":
        return None
    with _open(spec, seed) as source:
        report = predict(source)
    best = report.predictable_from_bytes
    names = [r.name for r in report.predictors if r.succeeded and r.observed_bytes == best]
    return {"predictable_from_bytes": best, "predictor": names[0] if names else None,
            "predict_bytes_read": report.bytes_read}


def planned_bytes(options: CompareOptions) -> int:
    """How many bytes one generator's test reads at most (files: up to this)."""
    size = options.size or DEFAULT_COMPARE_BYTES
    return (options.max_bytes or size) if options.progressive else size


def compare_document(command: str, environment: dict[str, Any], options: CompareOptions, runs: list[dict[str, Any]],
                     elapsed_s: float, interrupted: bool = False) -> dict[str, Any]:
    """The compare JSON document (schema in the README, section JSON);
    ``environment`` says where and when it ran (randqa.report.environment)."""
    return {
        "randqa_version": __version__,
        "kind": "compare",
        "command": command,
        **environment,
        "suite": options.suite.name,
        "bytes_requested": planned_bytes(options),
        "progressive": options.progressive,
        "speed_repeats": options.speed_repeats,
        "elapsed_s": round(elapsed_s, 3),
        "interrupted": interrupted,
        "runs": runs,
    }


def run_comparison(specs: list[str], options: CompareOptions, command: str, environment: dict[str, Any],
                   progress: Callable[[str, int | None], ContextManager[Callable[[int], None]]] | None = None,
                   saved: Saved | None = None, failures: list[RandqaError] | None = None) -> dict[str, Any]:
    """Measure and test every source in turn; return the compare document.

    Ctrl-C stops at once; the document covers the sources done so far (the
    current one's partial run included) and says ``interrupted``.  With a
    checkpoint (``options.checkpoint``) the finished sources' documents are
    saved with the current source's state; ``saved`` (a checkpoint read
    back) continues a comparison from there.  Given a ``failures`` list, a
    source that fails (RandqaError) after others have finished ends the
    comparison too: the error is appended there and the document holds the
    finished runs.
    """
    layouts = options.layouts()
    check_sources(specs, options.seed, layouts)
    units = [(spec, layout) for spec in specs for layout in layouts]
    start = time.perf_counter()
    runs: list[dict[str, Any]] = []
    if saved is not None:
        runs = list(saved.context["compare"]["runs"])
    elif options.checkpoint and os.path.exists(options.checkpoint):
        from randqa.engine.checkpoint import read_checkpoint

        saved = read_checkpoint(options.checkpoint)
        previous = (saved.context or {}).get("compare")
        if not previous or previous.get("sources") != specs or previous.get("options") != options.to_json():
            raise UsageError(f"checkpoint {options.checkpoint} holds another run; resume it with "
                             f"`randqa resume {options.checkpoint}`, or give another --checkpoint path")
        runs = list(previous["runs"])
    interrupted = False
    speeds: dict[str, AsCalledSpeed | None] = {}
    for index, (spec, layout) in enumerate(units):
        if index < len(runs):
            continue
        context = {"compare": {"sources": specs, "options": options.to_json(), "runs": runs,
                               "environment": environment}}
        try:
            try:
                if spec not in speeds:  # a generator's speed, whatever its streams' seeding
                    speeds[spec] = measure_speed(spec, options.seed, options.speed_repeats)
                speed = speeds[spec]
            except KeyboardInterrupt:
                interrupted = True
                break
            current = saved if saved is not None and saved.run.source == spec and index == len(runs) else None
            result = run_source_tests(spec, options, progress, saved=current, context=context, command=command,
                                      layout=layout)
        except RandqaError as exc:
            if failures is None or not runs:
                raise
            failures.append(exc)
            break
        saved = None
        run = result.to_json()
        run["speed_mb_s"] = None if speed is None else round(speed.speed.median, 3)
        run["speed_bytes"] = None if speed is None else speed.speed.nbytes
        run["speed_method"] = None if speed is None else speed.method
        run["generation_mb_s"] = None if speed is None else round(speed.generation.median, 3)
        if options.predict and not result.interrupted and layout is None:  # the predictors read one stream
            try:
                found = predictability(spec, run["source"].get("seed"))
            except KeyboardInterrupt:
                found, interrupted = None, True
            if found is not None:
                run.update(found)
        runs.append(run)
        if interrupted or result.interrupted:
            interrupted = True
            break
    return compare_document(command, environment, options, runs, time.perf_counter() - start, interrupted)
