"""CLI commands about reports: ``compare`` and ``report``."""

from __future__ import annotations

import sys
from typing import Any

import click

from randqa.battery.suites import DEFAULT_SUITE
from randqa.cli.common import (
    EXIT_OK,
    MAX_MEMORY_HELP,
    ProgressBar,
    command_line,
    emit,
    interrupted_exit_code,
    size_option,
    write_then_print,
)
from randqa.cli.streams import stream_options
from randqa.cli.workers import closing, parallel_options, workers_for
from randqa.engine import compare as comparing
from randqa.engine.plan import plan_compare
from randqa.errors import RandqaError
from randqa.files import check_output_paths
from randqa.report.environment import environment
from randqa.report.terminal import render_compare

#: where `randqa compare` writes its report unless --html or --no-html says otherwise
DEFAULT_HTML = "randqa-report.html"


@click.command("compare")
@click.argument("sources", nargs=-1, metavar="[NAME|-|PATH]...")
@click.option("-n", "--bytes", "size", callback=size_option, metavar="SIZE",
              help=f"Test this much of each source (binary suffixes: 64M, 1G). Default: "
                   f"{comparing.DEFAULT_COMPARE_BYTES >> 20} MiB of a generator, all of a file.")
@click.option("--seed", type=click.IntRange(min=0), help="Seed every generator with this (default: each drawn from the OS and recorded).")
@click.option("--suite", default=DEFAULT_SUITE, show_default=True, help="Suite name (see `randqa suites`) or path of a suite TOML file.")
@click.option("--tests", "test_names", metavar="A,B", help="Run only these tests of the suite.")
@click.option("--progressive/--no-progressive", default=True, show_default=True,
              help="Test at doubling lengths from --min to --max and report where each source first fails; "
                   "--no-progressive tests each source once at --bytes.")
@click.option("--min", "min_bytes", callback=size_option, metavar="SIZE",
              help=f"First length of --progressive (default {comparing.DEFAULT_PROGRESSIVE_MIN >> 10} KiB).")
@click.option("--max", "max_bytes", callback=size_option, metavar="SIZE", help="Last length of --progressive (default: --bytes).")
@click.option("--keep-going", is_flag=True, help="With --progressive, go on to --max after the first failure.")
@click.option("--speed-repeats", type=click.IntRange(min=1), default=comparing.SPEED_REPEATS, show_default=True,
              help="Timed speed runs per generator; the median is reported.")
@stream_options(several_schemes=True)
@click.option("--json", "json_path", metavar="PATH", help="Write the results as JSON to PATH ('-' for stdout).")
@click.option("--html", "html_path", metavar="PATH", default=DEFAULT_HTML, show_default=True,
              help="Write a self-contained HTML report to PATH.")
@click.option("--no-html", is_flag=True, help="Write no HTML report.")
@parallel_options
@click.option("--predict/--no-predict", "run_predictors", default=True, show_default=True,
              help="Run randqa predict's predictors on each source: the table's 'predictable from' column.")
@click.option("--max-memory", callback=size_option, metavar="SIZE", help=MAX_MEMORY_HELP)
@click.option("--progress/--no-progress", default=None, help="Progress bars on stderr (default: when stderr is a terminal).")
def compare_command(sources: tuple[str, ...], size: int | None, seed: int | None, suite: str, test_names: str | None,
                    progressive: bool, min_bytes: int | None, max_bytes: int | None, keep_going: bool,
                    speed_repeats: int, streams: int | None, stream_seeds: tuple[str, ...], interleave: int | None,
                    json_path: str | None, html_path: str | None, no_html: bool, jobs: int,
                    scheduler: str | None, segment: int | None, checkpoint: str | None, checkpoint_every: float,
                    run_predictors: bool, max_memory: int | None, progress: bool | None) -> int:
    """Compare generators: speed as applications call them next to test quality.

    Each SOURCE is a generator name (`randqa list`), a file, or '-' for
    stdin.  With none, compares the default set: urandom, openssl,
    glibc-rand-byte, glibc-rand-short, dnet-arc4, lfsr113, siprand, pcg64,
    chacha, and states nmap's answer.  Speed (MB/s) is the median of several
    timed runs, apart from testing, calling each generator as applications
    do: the real libc rand(), OpenSSL, the kernel; randqa's compiled loop for
    the rest (a footnote per row says which).  Files and stdin have none.  Exits 0 when the
    comparison completed, whatever the verdicts (the table says which
    sources failed), 2 on a usage or input error, 130 when interrupted.
    """
    if no_html:
        html_path = None
    options = plan_compare(suite=suite, tests=test_names, size=size, seed=seed, progressive=progressive,
                           min_size=min_bytes, max_size=max_bytes, keep_going=keep_going, speed_repeats=speed_repeats,
                           jobs=jobs, predict=run_predictors, max_memory=max_memory, segment=segment,
                           checkpoint=checkpoint, checkpoint_every_s=checkpoint_every,
                           outputs={"--json": json_path, "--html": html_path, "--checkpoint": checkpoint},
                           inputs=sources, streams=streams, stream_seeds=stream_seeds, interleave=interleave)
    return _compare(list(sources) or list(comparing.DEFAULT_SOURCES), options, scheduler=scheduler,
                    json_path=json_path, html_path=html_path, progress=progress)


def resume_comparison(saved: Any, *, jobs: int, scheduler: str | None, checkpoint_every: float,
                      json_path: str | None, html_path: str | None, progress: bool | None) -> int:
    """`randqa resume` of a comparison's checkpoint: the sources not finished yet."""
    state = saved.context["compare"]
    options = comparing.CompareOptions.from_json(state["options"], jobs=jobs, checkpoint=saved.path,
                                                 checkpoint_every_s=checkpoint_every)
    return _compare(state["sources"], options, scheduler=scheduler, json_path=json_path, html_path=html_path,
                    progress=progress, saved=saved, command=saved.command)


def _compare(sources: list[str], options: Any, *, scheduler: str | None, json_path: str | None,
             html_path: str | None, progress: bool | None, saved: Any = None, command: str | None = None) -> int:
    """Run a comparison (on Dask workers when asked), write its files, then print its table."""

    def bar(name: str, total: int | None) -> ProgressBar:
        return ProgressBar(progress, total, desc=name)

    options.outputs = {"json": json_path, "html": html_path}
    options.workers = workers_for(options.jobs, scheduler)
    failures: list[RandqaError] = []  # a source that failed after others finished: theirs are kept
    with closing(options.workers):
        doc = comparing.run_comparison(sources, options, command or command_line(), environment(), progress=bar,
                                       saved=saved, failures=failures)
    if not doc["runs"]:
        emit("randqa: interrupted before any source was tested", sys.stderr)
        return interrupted_exit_code()
    stopped = write_then_print(doc, lambda: render_compare(doc), json_path, html_path)
    if html_path:
        emit(f"report: {html_path}", sys.stderr)
    if failures:
        raise failures[0]
    return interrupted_exit_code() if doc["interrupted"] or stopped else EXIT_OK


@click.command("report")
@click.argument("results", nargs=-1, required=True, metavar="RESULT.json...")
@click.option("-o", "--output", "output", required=True, metavar="PATH", help="Where to write the HTML report.")
def report_command(results: tuple[str, ...], output: str) -> int:
    """Render saved JSON results (`randqa test --json`, `randqa compare --json`)
    as one self-contained HTML report."""
    from randqa.report.html import load_document, write_html_report

    check_output_paths({"-o": output}, results)
    documents = [load_document(path) for path in results]
    write_html_report(documents, output, "-o")
    return EXIT_OK


COMMANDS: list[click.Command] = [compare_command, report_command]
