"""``randqa test`` and ``randqa suites``: test one source with a suite.

The options are checked by randqa.engine.plan (the Python API's
``randqa.test`` uses the same plan), and the run goes through
randqa.engine.execute: in this process, or in segments on Dask workers.
"""

from __future__ import annotations

import click

from randqa.battery.suites import load_suite, suite_names
from randqa.cli.common import (
    html_report_path,
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
from randqa.engine.options import click_option
from randqa.engine.plan import TestOptions, plan_test
from randqa._report.terminal import render_run
from randqa.results import FAILING
from randqa.run_result import Provenance, RunResult


@click.command("test")
@click.argument("source", metavar="SOURCE")
@click_option("n")
@click_option("seed")
@click_option("suite")
@click_option("tests")
@click_option("format")
@click_option("word_bits")
@click_option("low_bits")
@click_option("sequences")
@click_option("progressive")
@click_option("min")
@click_option("max")
@click_option("keep_going")
@click_option("seed_sweep")
@click_option("positions")
@stream_options
@click_option("json")
@click_option("html")
@parallel_options
@click.option("--max-memory", callback=size_option, metavar="SIZE", help=MAX_MEMORY_HELP)
@click_option("progress")
def test_command(source: str, size: int | None, seed: int | None, suite: str, test_names: str | None, fmt: str,
                 word_bits: str | None, low_bits: int | None, sequences: int | None, progressive: bool, min_size: int,
                 max_size: int | None, keep_going: bool, seed_sweep: int | None, positions: int, streams: int | None,
                 stream_seeds: str | None, interleave: int | None, json_path: str | None, html_path: str | None,
                 jobs: int, scheduler: str | None, scheduler_timeout: float, segment: int | None,
                 checkpoint: str | None, checkpoint_every: float, max_memory: int | None, progress: bool | None,
                 **tls: str | None) -> int:
    """Test SOURCE: '-' for stdin, a file path, a generator name (`randqa list`),
    or your own generator in Python, as ./FILE.py:NAME or MODULE:NAME read
    from the folder you stand in.

    \b
    Your own generator: `randqa test SOURCE` with one of these SOURCEs
    (examples/mygen.py in randqa's source holds each of them):
      ./mygen.py:MyGen --seed 1   a class with random_raw(n), made as MyGen(1)
      mygen:MyGen --seed 1        the same, by module name
      ./mygen.py:MyPCG --seed 1   a numpy BitGenerator class, made as MyPCG(1)
      ./mygen.py:rng              a BitGenerator instance, from its state
      ./mygen.py:my_splitmix      an object with random_raw, from its state
      ./mygen.py:my_bytes         a function f(k) returning up to k bytes
      ./mygen.py:make --seed 1    a function make(seed), called as make(1)

    A class or make(seed) takes --seed (drawn and recorded when not given);
    an instance or f(k) takes none.  randqa.test(mygen.MyGen, seed=1) in
    Python reads each form the same way.
    """
    html_path = html_report_path(html_path, asked=True)
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
