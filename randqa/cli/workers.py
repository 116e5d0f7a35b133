"""Options and plumbing shared by the commands that run segments on workers
(``test``, ``compare``, ``resume``): ``--jobs``, ``--scheduler``,
``--scheduler-timeout``, ``--tls-*``, ``--segment``, ``--checkpoint``,
``--checkpoint-every``."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any, Callable

import click

from randqa.cli.common import EXIT_FAILED, EXIT_OK, ProgressBar, command_line, size_option
from randqa.engine.options import click_option
from randqa.engine.parallel import SCHEDULER_TIMEOUT_S
from randqa.engine.records import SaveFailed
from randqa.errors import UsageError
from randqa.run_result import RunResult


def parallel_options(command: Any = None, *, resume: bool = False) -> Any:
    """--jobs, --scheduler with --scheduler-timeout and --tls-*, --segment,
    --checkpoint and --checkpoint-every (test and compare; resume takes all
    but --segment and --checkpoint)."""
    options = [
        click_option("jobs"),
        click.option("--scheduler", metavar="ADDRESS",
                     help="Send the segments to the Dask cluster at ADDRESS (tcp://host:8786, or tls://host:8786 "
                          "with the --tls-* files) instead; default: $RANDQA_SCHEDULER. The scheduler and its "
                          "workers are trusted: Dask's protocol unpickles what they send."),
        click_option("scheduler_timeout"),
        click.option("--tls-ca-file", metavar="PATH",
                     help="tls:// scheduler: the cluster's CA certificate (default: Dask's "
                          "distributed.comm.tls.ca-file)."),
        click.option("--tls-cert", metavar="PATH",
                     help="tls:// scheduler: this client's certificate (default: distributed.comm.tls.client.cert)."),
        click.option("--tls-key", metavar="PATH",
                     help="tls:// scheduler: this client's key, unless it is in --tls-cert's file (default: "
                          "distributed.comm.tls.client.key)."),
    ]
    if not resume:
        options += [
            click.option("--segment", callback=size_option, metavar="SIZE",
                         help="Bytes per segment (default: the multiple of every test's block size nearest 1 GiB "
                              "for generators and files, 32 MiB for streams read in order such as stdin)."),
            click.option("--checkpoint", metavar="PATH",
                         help="Save the merged results of the finished prefix to PATH, and continue from it when "
                              "PATH holds this run (see `randqa resume`)."),
        ]
    options.append(click_option("checkpoint_every"))

    def decorate(target: Any) -> Any:
        for option in reversed(options):
            target = option(target)
        return target

    return decorate(command) if command is not None else decorate


def workers_for(jobs: int, scheduler: str | None, scheduler_timeout: float = SCHEDULER_TIMEOUT_S,
                tls: dict[str, str | None] | None = None) -> Any:
    """The Dask workers of a run (randqa.engine.parallel.Workers, started on
    first use), or None when it runs in this process: --jobs 1 and no
    --scheduler or RANDQA_SCHEDULER.  The address and the TLS files are
    checked here, before any work."""
    from randqa.engine.parallel import Workers
    from randqa.engine.scheduler import TLS_NEEDS_TLS_SCHEDULER, TlsFiles, scheduler_address

    address = scheduler_address(scheduler)
    files = TlsFiles(**{name.removeprefix("tls_"): value for name, value in (tls or {}).items()})
    if files.given() and address is None:
        raise UsageError(TLS_NEEDS_TLS_SCHEDULER)
    return Workers(jobs, address, timeout=scheduler_timeout, tls=files) if jobs > 1 or address else None


def checkpoint_lock(path: str | None) -> Any:
    """A context that keeps other runs off checkpoint ``path`` (None: nothing to lock)."""
    from randqa.engine.checkpoint_lock import CheckpointLock

    return CheckpointLock(path) if path else contextlib.nullcontext()


def closing(workers: Any) -> Any:
    """A context that closes ``workers`` (None: nothing to close), having
    connected to a --scheduler first: a wrong or silent one is refused
    before any work, not after a first segment tested here."""
    if workers is not None and workers.scheduler:
        try:
            workers.client()
        except BaseException:
            workers.close()
            raise
    return workers if workers is not None else contextlib.nullcontext()


def saved_outputs(outputs: dict[str, Any]) -> dict[str, Any]:
    """Output paths as a checkpoint keeps them: absolute ('-' stays stdout),
    so that a resume from another folder writes where the run would have."""
    return {kind: os.path.abspath(where) if isinstance(where, str) and where != "-" else where
            for kind, where in outputs.items()}


def launch_run(run: Any, *, jobs: int, scheduler: str | None, scheduler_timeout: float = SCHEDULER_TIMEOUT_S,
               tls: dict[str, str | None] | None = None, checkpoint: str | None, checkpoint_every: float,
               outputs: dict[str, Any], progress: bool | None, report: Callable[[RunResult], int],
               saved: Any = None, command: str | None = None, resume_note: str = "") -> int:
    """Run a RunRequest, in this process or with segments on Dask workers, and
    ``report`` it (its files written, its table printed) before the workers
    are shut down: a stopped run's results do not wait for that."""
    from randqa.engine.execute import Execution, execute

    workers = workers_for(jobs, scheduler, scheduler_timeout, tls)
    execution = Execution(workers=workers, threads=jobs, checkpoint=checkpoint, checkpoint_every_s=checkpoint_every,
                          command=command or command_line(), outputs=saved_outputs(outputs),
                          resume_note=resume_note)
    with closing(workers):
        code = report(execute(run, execution, lambda total: ProgressBar(progress, total), saved=saved))
    return with_checkpoint_failure(code, execution.checkpoint_failure)


def with_checkpoint_failure(code: int, failure: str | None) -> int:
    """The exit code of a run reported with ``code`` whose last checkpoint
    save failed with ``failure`` (None: saved, or no checkpoint), said on
    one line: the results are reported whole; what is lost is the run's
    resumption, an error of its own (an interruption's code stays)."""
    if not failure:
        return code
    print(f"randqa: error: {failure}; the results were written and shown, but the checkpoint does not hold them",
          file=sys.stderr, flush=True)
    return code if code not in (EXIT_OK, EXIT_FAILED) else SaveFailed.exit_code
