"""Options and plumbing shared by the commands that run segments on workers
(``test``, ``compare``, ``resume``): ``--jobs``, ``--scheduler``,
``--segment``, ``--checkpoint``, ``--checkpoint-every``."""

from __future__ import annotations

import contextlib
import os
from typing import Any

import click

from randqa.cli.common import ProgressBar, command_line, size_option
from randqa.engine.run import DEFAULT_CHECKPOINT_EVERY_S
from randqa.results import RunResult


def parallel_options(command: Any = None, *, resume: bool = False) -> Any:
    """--jobs, --scheduler, --segment, --checkpoint and --checkpoint-every
    (test and compare; resume takes the first two and the last)."""
    options = [
        click.option("-j", "--jobs", type=click.IntRange(min=1, max=256), default=os.cpu_count() or 1,
                     show_default="every core",
                     help="Worker processes that test segments of the stream side by side (an embedded Dask "
                          "cluster; 1: all in this process). Runs no longer than one segment stay in this process, "
                          "where the suite's tests run in this many threads."),
        click.option("--scheduler", metavar="ADDRESS",
                     help="Send the segments to the Dask cluster at ADDRESS (tcp://host:8786) instead; "
                          "default: $RANDQA_SCHEDULER."),
    ]
    if not resume:
        options += [
            click.option("--segment", callback=size_option, metavar="SIZE",
                         help="Bytes per segment (default: the multiple of every test's block size nearest 1 GiB "
                              "for generators and files, 256 MiB for streams read in order such as stdin)."),
            click.option("--checkpoint", metavar="PATH",
                         help="Save the merged results of the finished prefix to PATH, and continue from it when "
                              "PATH holds this run (see `randqa resume`)."),
        ]
    options.append(click.option("--checkpoint-every", type=click.FloatRange(min=0), default=DEFAULT_CHECKPOINT_EVERY_S,
                                show_default=True, metavar="SECONDS",
                                help="Seconds between checkpoints (one is also written at exit)."))

    def decorate(target: Any) -> Any:
        for option in reversed(options):
            target = option(target)
        return target

    return decorate(command) if command is not None else decorate


def workers_for(jobs: int, scheduler: str | None) -> Any:
    """The Dask workers of a run (randqa.engine.parallel.Workers, started on
    first use), or None when it runs in this process: --jobs 1 and no
    --scheduler or RANDQA_SCHEDULER."""
    from randqa.engine.parallel import Workers, scheduler_address

    address = scheduler_address(scheduler)
    return Workers(jobs, address) if jobs > 1 or address else None


def closing(workers: Any) -> Any:
    """A context that closes ``workers`` (None: nothing to close)."""
    return workers if workers is not None else contextlib.nullcontext()


def launch_run(run: Any, *, jobs: int, scheduler: str | None, checkpoint: str | None, checkpoint_every: float,
               outputs: dict[str, Any], progress: bool | None, saved: Any = None, command: str | None = None) -> RunResult:
    """Run a RunSpec: in this process, or with segments on Dask workers."""
    from randqa.engine.launch import Execution, launch

    workers = workers_for(jobs, scheduler)
    execution = Execution(workers=workers, threads=jobs, checkpoint=checkpoint, checkpoint_every_s=checkpoint_every,
                          command=command or command_line(), outputs=outputs)
    with closing(workers):
        return launch(run, execution, lambda total: ProgressBar(progress, total), saved=saved)
