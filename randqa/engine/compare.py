"""Several sources side by side: generation speed next to test quality.

Speed is measured apart from testing, as applications call each generator
(randqa.speed.as_called: the real libc rand(), OpenSSL, the kernel; randqa's
compiled loop for generators that exist only as randqa's C), so the cost of
the tests never pollutes a generator's MB/s; then each source is tested with
the suite as ``randqa test`` would.  The result is a ``CompareResult``
(randqa.run_result) whose JSON document (``kind = "compare"``) has
``runs`` that are ``randqa test`` results plus
``speed_mb_s``, ``speed_method`` and ``generation_mb_s`` (the rate randqa
feeds its tests); terminal table, JSON file and HTML report are all rendered
from that document.

Presets name the sources of a question: ``nmap`` (the default) and
``runtimes``, each language runtime's default generator, timed by the
runtime itself (randqa.speed.runtimes).  A runtime backend's run also
records its runtime: installed or not, its version, and whether the
runtime's own stream (NAME-live) equals the first MiB that was tested.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ContextManager

from randqa.battery.suites import Suite
from randqa.engine.records import DEFAULT_CHECKPOINT_EVERY_S, SaveFailed
from randqa.engine.compare_sources import check_sources, measure_speed, predictability, runtime_facts
from randqa.engine.read_options import ReadOptions
from randqa.errors import RandqaError, UsageError
from randqa.run_result import CompareResult, RunResult, Speed
from randqa.sources import is_data_spec
from randqa.speed.as_called import AsCalledSpeed
from randqa.speed.generation import REPEATS as SPEED_REPEATS

if TYPE_CHECKING:  # loaded when a comparison runs, not with every CLI command
    from randqa.engine.checkpoint import Saved
    from randqa.engine.request import RunRequest
    from randqa.interleaving import StreamLayout

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

#: the generator each runtime gives an application that does not choose
#: one (libstdc++'s std::default_random_engine is minstd_rand0), and
#: urandom as the reference
RUNTIME_SOURCES = [
    "v8-math-random", "java-random", "go-math-rand", "dotnet-random", "php-mt-rand", "r-mersenne-twister",
    "lua-math-random", "ruby-random", "musl-rand", "cxx-minstd-rand0", "sqlite-random", "urandom",
]

#: bytes tested per runtime generator by default: twelve sources, speed in
#: each runtime and the live check included, in a few minutes on 2 cores
RUNTIMES_COMPARE_BYTES = 256 << 20



@dataclass(frozen=True)
class Preset:
    """A named set of sources for ``randqa compare --preset``."""

    sources: tuple[str, ...]
    #: bytes tested per generator unless -n or --max says otherwise
    default_bytes: int
    about: str


PRESETS = {
    "nmap": Preset(tuple(DEFAULT_SOURCES), DEFAULT_COMPARE_BYTES,
                   "nmap's contenders, the Linux pair, pcg64 and chacha (the default)"),
    "runtimes": Preset(tuple(RUNTIME_SOURCES), RUNTIMES_COMPARE_BYTES,
                       "each runtime's default generator, speed as the runtime calls it, urandom as the reference"),
}


@dataclass(frozen=True, kw_only=True)
class CompareOptions(ReadOptions):
    """What to do with every source of a comparison; ``size`` is bytes tested
    per source (None: DEFAULT_COMPARE_BYTES of a generator, all of a file)."""

    suite: Suite
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
    #: what `randqa resume` adds to its "resuming from" line
    resume_note: str = ""
    #: --streams K: every generator's K streams under each of ``stream_seeds`` (the schemes), --interleave
    streams: int | None = None
    stream_seeds: list[str] = field(default_factory=list)
    interleave: int | None = None

    def to_json(self) -> dict[str, Any]:
        """What a checkpoint records of the options (a resumed comparison goes on with them)."""
        from randqa.engine.request import suite_to_json

        return {"suite": suite_to_json(self.suite), "size": self.size, "seed": self.seed,
                "progressive": self.progressive, "min_bytes": self.min_size, "max_bytes": self.max_size,
                "keep_going": self.keep_going, "speed_repeats": self.speed_repeats, "segment": self.segment,
                "predict": self.predict, "streams": self.streams, "stream_seeds": self.stream_seeds,
                "interleave": self.interleave}

    def layouts(self) -> list[StreamLayout | None]:
        """What each source is tested as: itself (None), or its streams under each scheme in turn."""
        from randqa.interleaving import StreamLayout

        if self.streams is None:
            return [None]
        return [StreamLayout(self.streams, scheme, self.interleave) for scheme in self.stream_seeds]

    @classmethod
    def from_json(cls, data: Any, max_memory: int | None = None, **execution: Any) -> "CompareOptions":
        """The options ``to_json`` recorded (in a checkpoint), each checked
        (the suite within ``max_memory``, default --max-memory's); ValueError otherwise."""
        from randqa.engine.request import suite_from_json
        from randqa.engine.memory import default_max_memory
        from randqa.interleaving import MAX_STREAMS
        from randqa.sizes import MAX_SIZE

        keys = {"suite", "size", "seed", "progressive", "min_bytes", "max_bytes", "keep_going", "speed_repeats",
                "segment", "predict", "streams", "stream_seeds", "interleave"}
        if not isinstance(data, dict) or set(data) != keys:
            raise ValueError("not the options randqa records")

        def whole(name: str, low: int, high: int | None, none: bool = True) -> bool:
            value = data[name]
            return (value is None and none) or (type(value) is int and low <= value and (high is None or value <= high))

        if not (whole("size", 1, MAX_SIZE) and whole("seed", 0, None) and whole("min_bytes", 1, MAX_SIZE, False)
                and whole("max_bytes", 1, MAX_SIZE) and whole("speed_repeats", 1, 1000, False)
                and whole("segment", 1, MAX_SIZE) and all(type(data[name]) is bool
                                                          for name in ("progressive", "keep_going", "predict"))
                and whole("streams", 2, MAX_STREAMS) and whole("interleave", 1, MAX_SIZE)
                and isinstance(data["stream_seeds"], list) and len(data["stream_seeds"]) <= MAX_STREAMS
                and all(isinstance(s, str) and 0 < len(s) <= 256 for s in data["stream_seeds"])):
            raise ValueError("an option out of its range")
        fields = dict(data, suite=suite_from_json(data["suite"], default_max_memory() if max_memory is None
                                                  else max_memory))
        fields["min_size"], fields["max_size"] = fields.pop("min_bytes"), fields.pop("max_bytes")
        return cls(**fields, **execution)


def preset_plan(sources: list[str], preset: str | None, size: int | None,
                max_bytes: int | None) -> tuple[list[str], int | None]:
    """The sources of a comparison and the bytes per generator: the sources
    given, else the named preset's, tested to its length unless a size or
    --max is given, else the default sources (nmap's)."""
    if preset is not None and preset not in PRESETS:
        raise UsageError(f"unknown preset {preset!r}: choose from {', '.join(PRESETS)}")
    if sources:
        if preset is not None:
            raise UsageError(f"give sources or --preset {preset}, not both")
        return sources, size
    if preset is None:
        return list(DEFAULT_SOURCES), size
    chosen = PRESETS[preset]
    return list(chosen.sources), size if size is not None or max_bytes is not None else chosen.default_bytes


def source_run(spec: str, options: CompareOptions, layout: StreamLayout | None = None) -> RunRequest:
    """One source's test, as a request: a plain run or a progressive one, of
    the source or of its streams under ``layout``; --seed goes to generators only."""
    from randqa.engine.request import stream_request

    request, _suite = stream_request(
        spec, options.suite, seed=None if is_data_spec(spec) else options.seed, size=options.size,
        endless_size=DEFAULT_COMPARE_BYTES, endless_last=DEFAULT_COMPARE_BYTES, segment=options.segment,
        progressive=(options.min_size, options.max_size, options.keep_going) if options.progressive else None,
        layout=layout)
    return request


def run_source_tests(spec: str, options: CompareOptions,
                progress: Callable[[str, int | None], ContextManager[Callable[[int], None]]] | None = None,
                *, saved: Saved | None = None, context: dict[str, Any] | None = None, command: str | None = None,
                layout: StreamLayout | None = None) -> tuple[RunResult, str | None]:
    """Test one source with the suite: a plain run, or a progressive one,
    on the comparison's workers when it has them; with why its last
    checkpoint save failed (None: saved, or no checkpoint).

    ``progress(name, total_bytes)`` returns a context manager that is called
    with byte counts (a ProgressBar); total is None when unknown (a file).
    ``saved`` is the checkpoint of this source's run to continue; with
    ``layout`` the source's streams are tested.
    """
    from randqa.engine.execute import Execution, execute

    name = "stdin" if spec == "-" else spec
    if layout is not None:
        from randqa.sources.multistream import stream_name

        name = stream_name(spec, layout.count, layout.scheme)
    execution = Execution(workers=options.workers, threads=options.jobs, checkpoint=options.checkpoint,
                          checkpoint_every_s=options.checkpoint_every_s, command=command, outputs=options.outputs,
                          context=context, resume_note=options.resume_note)
    bar = (lambda total: progress(name, total)) if progress else None
    result = execute(saved.run if saved is not None else source_run(spec, options, layout), execution, bar,
                     saved=saved, fresh=saved is None)
    return result, execution.checkpoint_failure


def planned_bytes(options: CompareOptions) -> int:
    """How many bytes one generator's test reads at most (files: up to this)."""
    size = options.size or DEFAULT_COMPARE_BYTES
    return (options.max_size or size) if options.progressive else size


def compare_result(command: str, environment: dict[str, Any], options: CompareOptions, runs: list[RunResult],
                   elapsed_s: float, interrupted: bool = False) -> CompareResult:
    """The comparison of ``runs`` with ``options``; ``environment`` says
    where and when it ran (randqa._report.environment)."""
    return CompareResult(command=command, environment=environment, suite=options.suite.name,
                         bytes_requested=planned_bytes(options), progressive=options.progressive,
                         speed_repeats=options.speed_repeats, elapsed_s=elapsed_s, interrupted=interrupted, runs=runs)


def run_comparison(specs: list[str], options: CompareOptions, command: str, environment: dict[str, Any],
                   progress: Callable[[str, int | None], ContextManager[Callable[[int], None]]] | None = None,
                   saved: Saved | None = None, failures: list[RandqaError] | None = None) -> CompareResult:
    """Measure and test every source in turn; return the comparison.

    Ctrl-C stops at once; the comparison covers the sources done so far (the
    current one's partial run included) and says ``interrupted``.  With a
    checkpoint (``options.checkpoint``) the finished sources' documents are
    saved with the current source's state; ``saved`` (a checkpoint read
    back) continues a comparison from there.  Given a ``failures`` list, a
    source that fails (RandqaError) after others have finished ends the
    comparison too: the error is appended there and the comparison holds the
    finished runs.  When the last checkpoint save fails (each source's
    saves hold the finished sources, so the last one is what a resume
    reads), a ``SaveFailed`` ends the ``failures`` list.
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
    save_failure: str | None = None
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
            result, save_failure = run_source_tests(spec, options, progress, saved=current, context=context,
                                                    command=command, layout=layout)
        except RandqaError as exc:
            if failures is None or not runs:
                raise
            failures.append(exc)
            break
        saved = None
        timed = None if speed is None else speed.speed
        result.speed = Speed(speed_mb_s=None if timed is None else round(timed.median, 3),
                             speed_bytes=None if timed is None else timed.nbytes,
                             speed_method=None if timed is None else speed.method,
                             generation_mb_s=None if speed is None else round(speed.generation.median, 3))
        if speed is not None and speed.note:
            result.remarks.append(speed.note)
        if options.predict and not result.interrupted and layout is None:  # the predictors read one stream
            try:
                result.predictability = predictability(spec, result.source.get("seed"))
            except KeyboardInterrupt:
                interrupted = True
        try:
            result.runtime = None if interrupted else runtime_facts(spec, result.source.get("seed"))
        except KeyboardInterrupt:
            interrupted = True
        if result.runtime is not None and result.runtime.get("live_equal") is False:
            result.remarks.append(f"{spec}-live differs from {spec} from byte {result.runtime['first_difference']} "
                                  "on: randqa's C is not the runtime")
        runs.append(result.to_json())
        if interrupted or result.interrupted:
            interrupted = True
            break
    if save_failure is not None:
        if failures is None:
            raise SaveFailed(save_failure)
        failures.append(SaveFailed(save_failure))
    return compare_result(command, environment, options, [RunResult.from_json(run) for run in runs],
                          time.perf_counter() - start, interrupted)
