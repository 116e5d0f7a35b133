"""``randqa test`` and ``randqa suites``: test one source with a suite.

The options are checked by randqa.engine.plan (the Python API's
``randqa.test`` uses the same plan), and the run goes through
randqa.engine.execute: in this process, or in segments on Dask workers.
"""

from __future__ import annotations

import click

from randqa.battery.suites import DEFAULT_SUITE, load_suite, suite_names
from randqa.cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    MAX_MEMORY_HELP,
    command_line,
    interrupted_exit_code,
    size_option,
    write_then_print,
)
from randqa.cli.streams import stream_options
from randqa.cli.workers import checkpoint_lock, launch_run, parallel_options
from randqa.engine.options import option_type
from randqa.engine.plan import TestOptions, plan_test
from randqa._report.terminal import render_run
from randqa.results import FAILING
from randqa.run_result import Provenance, RunResult


@click.command("test")
@click.argument("source", metavar="SOURCE")
@click.option("-n", "--bytes", "size", callback=size_option, metavar="SIZE",
              help="Test this much (1000, 64K, 16MiB, 2G; binary suffixes). Counts bits with --format bits. "
                   "Default: all of a file or stdin, 64 MiB of a generator.")
@click.option("--seed", type=option_type("seed"), help="Seed of a generator backend (default: drawn from the OS and recorded).")
@click.option("--suite", default=DEFAULT_SUITE, show_default=True, help="Suite name (see `randqa suites`) or path of a suite TOML file.")
@click.option("--tests", "test_names", metavar="A,B", help="Run only these tests of the suite.")
@click.option("--format", "fmt", type=option_type("format"), default="bytes", show_default=True,
              help="bytes: raw binary. bits: ASCII '0'/'1' text as NIST STS reads it.")
@click.option("--word-bits", type=option_type("word_bits"),
              help="Fold: every test reads only the low --low-bits bits of each word of this size (PractRand's [Low1/8]).")
@click.option("--low-bits", type=option_type("low_bits"),
              help="With --word-bits: how many low bits of each word to keep (default 1).")
@click.option("--sequences", type=option_type("sequences"), metavar="K",
              help="For suites that test sequences (nist-sp800-22): test K sequences and give STS's second-level analysis.")
@click.option("--progressive", is_flag=True, help="Test doubling lengths from --min to --max; stop at the first failure.")
@click.option("--min", "min_size", callback=size_option, metavar="SIZE", default="1K", show_default=True,
              help="First length of --progressive.")
@click.option("--max", "max_size", callback=size_option, metavar="SIZE",
              help="Last length of --progressive (default: -n; else 1 GiB of a generator, or all of stdin or a file).")
@click.option("--keep-going", is_flag=True, help="With --progressive, go on to --max after a failure.")
@click.option("--seed-sweep", "seed_sweep", type=option_type("seed_sweep"), metavar="K",
              help="Test the starts of K streams seeded --seed, --seed+1, ... (generators only; see randqa/engine/seed_sweep.py).")
@click.option("--positions", type=option_type("positions"), default=256, show_default=True,
              help="Bytes read from the start of each stream by --seed-sweep.")
@stream_options
@click.option("--json", "json_path", metavar="PATH", help="Write the results as JSON to PATH ('-' for stdout).")
@click.option("--html", "html_path", metavar="PATH", help="Write a self-contained HTML report to PATH.")
@parallel_options
@click.option("--max-memory", callback=size_option, metavar="SIZE", help=MAX_MEMORY_HELP)
@click.option("--progress/--no-progress", default=None, help="Progress bar on stderr (default: when stderr is a terminal).")
def test_command(source: str, size: int | None, seed: int | None, suite: str, test_names: str | None, fmt: str,
                 word_bits: str | None, low_bits: int | None, sequences: int | None, progressive: bool, min_size: int,
                 max_size: int | None, keep_going: bool, seed_sweep: int | None, positions: int, streams: int | None,
                 stream_seeds: str | None, interleave: int | None, json_path: str | None, html_path: str | None,
                 jobs: int, scheduler: str | None, scheduler_timeout: float, segment: int | None,
                 checkpoint: str | None, checkpoint_every: float, max_memory: int | None, progress: bool | None,
                 **tls: str | None) -> int:
    """Test SOURCE: '-' for stdin, a file path, or a generator name (`randqa list`)."""
    plan = plan_test(TestOptions(
        size=size, seed=seed, suite=suite, tests=test_names, fmt=fmt, word_bits=int(word_bits) if word_bits else None,
        low_bits=low_bits, sequences=sequences, progressive=progressive, min_size=min_size, max_size=max_size,
        keep_going=keep_going, seed_sweep=seed_sweep, positions=positions, jobs=jobs, max_memory=max_memory,
        streams=streams, stream_seeds=stream_seeds, interleave=interleave),
        {"--json": json_path, "--html": html_path, "--checkpoint": checkpoint}, (source,))
    request = plan.request(source, segment)
    with checkpoint_lock(checkpoint):
        return launch_run(request, jobs=jobs, scheduler=scheduler, scheduler_timeout=scheduler_timeout, tls=tls,
                          checkpoint=checkpoint, checkpoint_every=checkpoint_every,
                          outputs={"json": json_path, "html": html_path}, progress=progress,
                          report=lambda result: _report_run(result, json_path, html_path))


def _report_run(result: RunResult, json_path: str | None, html_path: str | None) -> int:
    """Write JSON/HTML, then print the table; return the exit code of a run."""
    from randqa._report.environment import environment

    result.provenance = Provenance(command_line(), **environment())
    stopped = write_then_print(result.to_json(), lambda: render_run(result), json_path, html_path)
    if result.interrupted or stopped:
        return interrupted_exit_code()
    return EXIT_FAILED if result.verdict in FAILING else EXIT_OK


@click.command("suites")
def suites_command() -> int:
    """List the suites shipped with randqa."""
    for name in suite_names():
        s = load_suite(name)
        print(f"{name:<16} {len(s.tests):>3} tests  {s.description}")
    return EXIT_OK


COMMANDS: list[click.Command] = [test_command, suites_command]
