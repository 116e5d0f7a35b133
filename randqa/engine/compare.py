"""Several sources side by side: generation speed next to test quality.

Speed is measured apart from testing (randqa.bench.generation_speed on fresh
sources), so the cost of the tests never pollutes a generator's MB/s; then
each source is tested with the suite as ``randqa test`` would.  The result is
one JSON document (``kind = "compare"``) whose ``runs`` are ``randqa test``
results plus ``speed_mb_s``; terminal table, JSON file and HTML report are
all rendered from that document.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from typing import Any, Callable, ContextManager

from randqa import engine
from randqa._version import __version__
from randqa.bench import generation_speed
from randqa.errors import UsageError
from randqa.results import RunResult
from randqa.sources import Source, is_data_spec, open_source
from randqa.battery.suites import Suite

#: what ``randqa compare`` with no arguments compares: the contenders of the
#: nmap mail, the Linux kernel pair, and two modern references
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

#: each speed repeat reads about this long, bounded by the sizes below, so a
#: fast generator is timed over enough bytes and a slow one does not take ages
SPEED_TARGET_SECONDS = 0.2
SPEED_MIN_BYTES = 1 << 20
SPEED_MAX_BYTES = 64 << 20
SPEED_REPEATS = 5


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
    #: threads running the suite's tests side by side (engine ``jobs``)
    jobs: int = 1


def _open(spec: str, seed: int | None) -> Source:
    """open_source, with --seed going to generators only: a comparison may
    mix seeded generators with files and stdin (open_source's own rule tells
    a path from a generator name)."""
    return open_source(spec, seed=None if is_data_spec(spec) else seed)


def check_sources(specs: list[str], seed: int | None) -> None:
    """Refuse unknown names and a repeated stdin before any work starts."""
    if specs.count("-") > 1:
        raise UsageError("stdin ('-') can be compared only once")
    for spec in specs:
        if spec != "-":
            _open(spec, seed).close()


def measure_speed(spec: str, seed: int | None, repeats: int = SPEED_REPEATS) -> tuple[float | None, int]:
    """Median generation MB/s of a generator and the bytes each repeat read.

    Only endless sources (generators) have a generation speed: a file's read
    rate is the disk's, and stdin cannot be read twice; those give None.
    """
    if spec == "-":
        return None, 0
    with _open(spec, seed) as probe_source:
        if not probe_source.endless:
            return None, 0

    def fresh() -> Source:
        return _open(spec, seed)

    # one short probe picks a length that takes about SPEED_TARGET_SECONDS
    probe = generation_speed(fresh, SPEED_MIN_BYTES, repeats=1)
    nbytes = int(min(SPEED_MAX_BYTES, max(SPEED_MIN_BYTES, probe * 1e6 * SPEED_TARGET_SECONDS)))
    nbytes -= nbytes % (1 << 16)
    return generation_speed(fresh, nbytes, repeats=repeats), nbytes


def run_source_tests(spec: str, options: CompareOptions,
                progress: Callable[[str, int | None], ContextManager[Callable[[int], None]]] | None = None,
                ) -> RunResult:
    """Test one source with the suite: a plain run, or a progressive one.

    ``progress(name, total_bytes)`` returns a context manager that is called
    with byte counts (a ProgressBar); total is None when unknown (a file).
    """
    with _open(spec, options.seed) as source:
        limit = options.size
        if limit is None and source.endless:
            limit = DEFAULT_COMPARE_BYTES
        if options.progressive:
            # stdin and files: until the data ends
            last = options.max_bytes or limit or engine.UNTIL_END
            total = last if source.endless or options.max_bytes or options.size else None
        else:
            total = limit if source.endless or options.size else None
        with (progress(source.name, total) if progress else contextlib.nullcontext(None)) as bar:
            if options.progressive:
                return engine.run_progressive(source, options.suite, options.min_bytes, last, options.keep_going,
                                              jobs=options.jobs, on_progress=bar)
            return engine.run(source, options.suite, limit=limit, jobs=options.jobs, on_progress=bar)


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
                   ) -> dict[str, Any]:
    """Measure and test every source in turn; return the compare document.

    Ctrl-C stops at once; the document covers the sources done so far (the
    current one's partial run included) and says ``interrupted``.
    """
    check_sources(specs, options.seed)
    start = time.perf_counter()
    runs: list[dict[str, Any]] = []
    interrupted = False
    for spec in specs:
        try:
            speed, speed_bytes = measure_speed(spec, options.seed, options.speed_repeats)
        except KeyboardInterrupt:
            interrupted = True
            break
        result = run_source_tests(spec, options, progress)
        run = result.to_json()
        run["speed_mb_s"] = None if speed is None else round(speed, 3)
        run["speed_bytes"] = speed_bytes or None
        runs.append(run)
        if result.interrupted:
            interrupted = True
            break
    return compare_document(command, environment, options, runs, time.perf_counter() - start, interrupted)
