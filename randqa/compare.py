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

import contextlib
import datetime
import os
import platform
import time
from dataclasses import dataclass
from typing import Any, Callable, ContextManager

import randqa
from randqa import engine
from randqa.report.speed_notes import FEED_NOTE, feed_differs, method_markers, nmap_answer
from randqa.speed.as_called import AsCalledSpeed, as_called_speed
from randqa.speed.generation import REPEATS as SPEED_REPEATS
from randqa.errors import UsageError
from randqa.results import VERDICT_ORDER
from randqa.sizes import format_size
from randqa.sources import Source, is_data_spec, open_source
from randqa.suites import Suite

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


def environment() -> dict[str, Any]:
    """Where and when a run happened, for the report's metadata."""
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu": cpu_model(),
    }


def cpu_model() -> str:
    """The CPU's marketing name (Linux /proc/cpuinfo), else what platform knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Hardware", "cpu model") and value.strip():
                    return f"{value.strip()} ({os.cpu_count()} logical CPUs)"
    except OSError:
        pass
    return f"{platform.processor() or platform.machine() or 'unknown'} ({os.cpu_count()} logical CPUs)"


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


def run_source_tests(spec: str, options: CompareOptions,
                progress: Callable[[str, int | None], ContextManager[Callable[[int], None]]] | None = None,
                ) -> engine.RunResult:
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


def compare_document(command: str, options: CompareOptions, runs: list[dict[str, Any]],
                     elapsed_s: float, interrupted: bool = False) -> dict[str, Any]:
    """The compare JSON document (schema in the README, section JSON)."""
    return {
        "randqa_version": randqa.__version__,
        "kind": "compare",
        "command": command,
        **environment(),
        "suite": options.suite.name,
        "bytes_requested": planned_bytes(options),
        "progressive": options.progressive,
        "speed_repeats": options.speed_repeats,
        "elapsed_s": round(elapsed_s, 3),
        "interrupted": interrupted,
        "runs": runs,
    }


def run_comparison(specs: list[str], options: CompareOptions, command: str,
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
            speed = measure_speed(spec, options.seed, options.speed_repeats)
        except KeyboardInterrupt:
            interrupted = True
            break
        result = run_source_tests(spec, options, progress)
        run = result.to_json()
        run["speed_mb_s"] = None if speed is None else round(speed.speed.median, 3)
        run["speed_bytes"] = None if speed is None else speed.speed.nbytes
        run["speed_method"] = None if speed is None else speed.method
        run["generation_mb_s"] = None if speed is None else round(speed.generation.median, 3)
        runs.append(run)
        if result.interrupted:
            interrupted = True
            break
    return compare_document(command, options, runs, time.perf_counter() - start, interrupted)


def failing_tests(run: dict[str, Any]) -> list[str]:
    """Names of the tests that failed or looked suspicious, worst first."""
    bad = [t for t in run["tests"] if t.get("verdict") in ("fail", "suspicious")]
    bad.sort(key=lambda t: -VERDICT_ORDER[t["verdict"]])
    return [t["name"] + ("" if t["verdict"] == "fail" else "?") for t in bad]


def render_table(doc: dict[str, Any]) -> str:
    """The terminal table of a compare document."""
    progressive = any("first_failure_bytes" in run for run in doc["runs"])
    markers = method_markers(doc["runs"])
    feed = feed_differs(doc["runs"])
    header = ["source", "MB/s", "feed MB/s" if feed else "", "tested", "verdict", "first failure" if progressive else "",
              "seed", "failed tests"]
    rows = []
    for run in doc["runs"]:
        speed = run.get("speed_mb_s")
        generation = run.get("generation_mb_s")
        marker = markers.get(run.get("speed_method") or "", "")
        failure = run.get("first_failure_bytes")  # None: never failed, or not progressive
        seed = run["source"].get("seed")
        rows.append([
            run["source"]["name"],
            "-" if speed is None else f"{speed:.1f} {marker}".rstrip(),
            "-" if generation is None else f"{generation:.1f}",
            format_size(run["bytes_tested"]),
            run["verdict"].upper() if run["verdict"] == "fail" else run["verdict"],
            ("none" if failure is None else format_size(failure)) if progressive else "",
            "-" if seed is None else str(seed),
            ", ".join(failing_tests(run)) or "-",
        ])
    keep = [i for i, h in enumerate(header) if h]
    header = [header[i] for i in keep]
    rows = [[row[i] for i in keep] for row in rows]
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    right = {"MB/s", "feed MB/s", "tested", "first failure"}

    def line(cells: list[str]) -> str:
        out = [c.rjust(w) if h in right else c.ljust(w) for c, w, h in zip(cells, widths, header)]
        return "  ".join(out).rstrip()

    lines = [f"suite {doc['suite']}  MB/s: as applications call each generator (a, b, ... below), median of "
             f"{doc.get('speed_repeats', SPEED_REPEATS)} runs apart from testing  ('?' = suspicious)", "", line(header)]
    lines += [line(r) for r in rows]
    lines.append("")
    lines += [f"{marker}: {method}" for method, marker in markers.items()]
    if feed:
        lines.append(f"feed MB/s: {FEED_NOTE}")
    if markers:
        lines.append("")
    for run in doc["runs"]:
        for note in run.get("notes", []):
            lines.append(f"note: {run['source']['name']}: {note}")
    if doc.get("interrupted"):
        lines.append("note: interrupted: sources after the last row were not tested")
    answer = nmap_answer(doc["runs"])
    if answer:
        lines += ([] if lines[-1] == "" else [""]) + answer + [""]
    count = len(doc["runs"])
    lines.append(f"compared {count} source{'' if count == 1 else 's'} in {doc['elapsed_s']:.1f} s")
    return "\n".join(lines)
