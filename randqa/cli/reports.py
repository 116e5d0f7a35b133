"""CLI commands about reports: ``compare`` and ``report``."""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any

import click

from randqa.cli.common import (
    html_report_path,
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
from randqa.cli.workers import checkpoint_lock, closing, parallel_options, with_checkpoint_failure, workers_for
from randqa.engine import compare as comparing
from randqa.engine.options import click_option
from randqa.engine.plan import plan_compare
from randqa.engine.read_options import DEFAULT_PROGRESSIVE_MIN
from randqa.engine.records import SaveFailed
from randqa.errors import InputError, RandqaError
from randqa.files import check_output_paths
from randqa._report.environment import environment
from randqa._report.terminal import render_compare

#: where `randqa compare` writes its report unless --html or --no-html says otherwise
DEFAULT_HTML = "randqa-report.html"


@click.command("compare")
@click.argument("sources", nargs=-1, metavar="[NAME|-|PATH]...")
@click_option("n", help=f"Test this much of each source (binary suffixes: 64M, 1G). Default: "
                        f"{comparing.DEFAULT_COMPARE_BYTES >> 20} MiB of a generator, all of a file.")
@click_option("seed", help="Seed every generator with this (default: each drawn from the OS and recorded).")
@click_option("suite")
@click_option("tests")
@click_option("progressive", flags=("--progressive/--no-progressive",), default=True, is_flag=False,
              show_default=True, help="Test at doubling lengths from --min to --max and report where each source "
                                      "first fails; --no-progressive tests each source once at --bytes.")
@click_option("min", cli_default=None, show_default=False,
              help=f"First length of --progressive (default {DEFAULT_PROGRESSIVE_MIN >> 10} KiB).")
@click_option("max", help="Last length of --progressive (default: --bytes).")
@click_option("keep_going", help="With --progressive, go on to --max after the first failure.")
@click_option("speed_repeats")
@stream_options(several_schemes=True)
@click_option("json")
@click_option("html", default=DEFAULT_HTML, show_default=True)
@click.option("--no-html", is_flag=True, help="Write no HTML report.")
@parallel_options
@click_option("preset", type=click.Choice(list(comparing.PRESETS)),
              help="Compare a named set instead of SOURCES: " + "; ".join(
                  f"{name}: {p.about}, to {p.default_bytes >> 20} MiB" for name, p in comparing.PRESETS.items()) + ".")
@click_option("predict")
@click.option("--max-memory", callback=size_option, metavar="SIZE", help=MAX_MEMORY_HELP)
@click_option("progress", help="Progress bars on stderr (default: when stderr is a terminal).")
def compare_command(sources: tuple[str, ...], size: int | None, seed: int | None, suite: str, test_names: str | None,
                    progressive: bool, min_size: int | None, max_size: int | None, keep_going: bool,
                    speed_repeats: int, streams: int | None, stream_seeds: tuple[str, ...], interleave: int | None,
                    json_path: str | None, html_path: str | None, no_html: bool, jobs: int,
                    scheduler: str | None, scheduler_timeout: float, segment: int | None, checkpoint: str | None,
                    checkpoint_every: float, preset: str | None, run_predictors: bool, max_memory: int | None,
                    progress: bool | None, **tls: str | None) -> int:
    """Compare generators: speed as applications call them next to test quality.

    Each SOURCE is a generator name (`randqa list`), a file, or '-' for
    stdin.  With none, compares the default set: urandom, openssl,
    glibc-rand-byte, glibc-rand-short, dnet-arc4, lfsr113, siprand, pcg64,
    chacha, and states nmap's answer; with `--preset runtimes`, each language
    runtime's default generator and urandom, with a sentence per runtime.
    Speed (MB/s) is the median of several
    timed runs, apart from testing, calling each generator as applications
    do: the real libc rand(), OpenSSL, the kernel, each runtime calling its
    own generator in its own loop; randqa's compiled loop for
    the rest (a footnote per row says which).  Files and stdin have none.  Exits 0 when the
    comparison completed, whatever the verdicts (the table says which
    sources failed), 2 on a usage or input error, 130 when interrupted.
    """
    if no_html:
        html_path = None
    asked = click.get_current_context().get_parameter_source("html_path") is not click.core.ParameterSource.DEFAULT
    html_path = html_report_path(html_path, asked=asked)
    chosen, size = comparing.preset_plan(list(sources), preset, size, max_size)
    options = plan_compare(suite=suite, tests=test_names, size=size, seed=seed, progressive=progressive,
                           min_size=min_size, max_size=max_size, keep_going=keep_going, speed_repeats=speed_repeats,
                           jobs=jobs, predict=run_predictors, max_memory=max_memory, segment=segment,
                           checkpoint=checkpoint, checkpoint_every_s=checkpoint_every,
                           outputs={"--json": json_path, "--html": html_path, "--checkpoint": checkpoint},
                           inputs=sources, streams=streams, stream_seeds=stream_seeds, interleave=interleave)
    return _compare(chosen, options, scheduler=scheduler, scheduler_timeout=scheduler_timeout, tls=tls,
                    json_path=json_path, html_path=html_path, progress=progress)


def resume_comparison(saved: Any, *, jobs: int, scheduler: str | None, scheduler_timeout: float,
                      tls: dict[str, str | None], checkpoint_every: float, json_path: str | None,
                      html_path: str | None, progress: bool | None, max_memory: int | None = None,
                      resume_note: str = "") -> int:
    """`randqa resume` of a comparison's checkpoint: the sources not finished yet
    (what the checkpoint says of them checked first, as a compare document)."""
    from randqa._report.schema import DocumentError, validate

    def damaged(problem: str) -> InputError:
        return InputError(f"checkpoint {saved.path}: damaged (its comparison: {problem})")

    state = saved.context["compare"]
    if not isinstance(state, dict) or set(state) != {"sources", "options", "runs", "environment"}:
        raise damaged("not the fields randqa writes")
    sources, runs = state["sources"], state["runs"]
    if not (isinstance(sources, list) and all(isinstance(s, str) for s in sources) and isinstance(runs, list)
            and len(runs) < len(sources) and saved.run.source == sources[len(runs)]):
        raise damaged("its sources and finished runs do not match")
    try:
        options = comparing.CompareOptions.from_json(state["options"], max_memory, jobs=jobs, checkpoint=saved.path,
                                                     checkpoint_every_s=checkpoint_every)
    except (TypeError, ValueError) as exc:
        raise damaged(f"its options: {exc}") from None
    try:
        header = comparing.compare_result(saved.command or "", state["environment"], options, [], 0.0).to_json()
        validate({**header, "runs": runs})
    except (DocumentError, TypeError, AttributeError) as exc:
        raise damaged(str(exc)) from None
    options = replace(options, resume_note=resume_note)
    return _compare(sources, options, scheduler=scheduler, scheduler_timeout=scheduler_timeout, tls=tls,
                    json_path=json_path, html_path=html_path, progress=progress, saved=saved, command=saved.command)


def _compare(sources: list[str], options: Any, *, scheduler: str | None, scheduler_timeout: float,
             tls: dict[str, str | None], json_path: str | None, html_path: str | None, progress: bool | None,
             saved: Any = None, command: str | None = None) -> int:
    """Run a comparison (on Dask workers when asked), write its files, then
    print its table; the workers are shut down after that."""

    def bar(name: str, total: int | None) -> ProgressBar:
        return ProgressBar(progress, total, desc=name)

    options = replace(options, outputs={"json": json_path, "html": html_path},
                      workers=workers_for(options.jobs, scheduler, scheduler_timeout, tls))
    failures: list[RandqaError] = []  # a source that failed after others finished: theirs are kept
    with checkpoint_lock(None if saved is not None else options.checkpoint), closing(options.workers):
        doc = comparing.run_comparison(sources, options, command or command_line(), environment(), progress=bar,
                                       saved=saved, failures=failures)
        if not doc.runs:
            emit("randqa: interrupted before any source was tested", sys.stderr)
            return interrupted_exit_code()
        stopped = write_then_print(doc.to_json(), lambda: render_compare(doc), json_path, html_path)
        if html_path:
            emit(f"report: {html_path}", sys.stderr)
    for failure in failures:
        if not isinstance(failure, SaveFailed):
            raise failure
    lost = next((str(f) for f in failures if isinstance(f, SaveFailed)), None)  # run_comparison adds one at most
    return with_checkpoint_failure(interrupted_exit_code() if doc.interrupted or stopped else EXIT_OK, lost)


@click.command("report")
@click.argument("results", nargs=-1, required=True, metavar="RESULT.json...")
@click.option("-o", "--output", "output", required=True, metavar="PATH", help="Where to write the HTML report.")
def report_command(results: tuple[str, ...], output: str) -> int:
    """Render saved JSON results (`randqa test --json`, `randqa compare --json`)
    as one self-contained HTML report."""
    from randqa._report.html import load_document, write_html_report

    check_output_paths({"-o": output}, results)
    documents = [load_document(path) for path in results]
    write_html_report(documents, output, "-o")
    return EXIT_OK


COMMANDS: list[click.Command] = [compare_command, report_command]
