"""Start or continue a run described as data (a ``RunSpec``): what ``randqa
test`` and ``randqa resume`` share.

With a checkpoint path that already holds a checkpoint of the same run, the
run continues from it (``randqa test ... --checkpoint c.ckpt`` typed again
after Ctrl-C resumes); a checkpoint of another run is refused with one
line.  The seed a generator drew is recorded in the checkpoint, so a run
resumed without ``--seed`` reads the same stream.
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass, field, replace
from typing import Any, Callable, ContextManager

from randqa.battery._state import StateError
from randqa.engine.checkpoint import Checkpoint, RunSpec, Saved, file_identity, read_checkpoint, suite_from_json
from randqa.engine.execute import DEFAULT_CHECKPOINT_EVERY_S, Progressive, run_stream
from randqa.engine.run import UNTIL_END
from randqa.errors import InputError, UsageError, one_line
from randqa.run_result import RunResult
from randqa.sizes import format_size
from randqa.sources import Source, is_data_spec, open_source
from randqa.sources.folded import fold_source

ProgressFactory = Callable[[int | None], ContextManager[Callable[[int], None]]]


@dataclass
class Execution:
    """How to execute a run: where its segments go and where it is saved."""

    #: a randqa.engine.parallel.Workers, or None for this process only
    workers: Any = None
    #: threads for the pieces tested in this process
    threads: int = 1
    checkpoint: str | None = None
    checkpoint_every_s: float = DEFAULT_CHECKPOINT_EVERY_S
    command: str | None = None
    outputs: dict[str, Any] = field(default_factory=dict)
    #: extra data a checkpoint carries (compare's finished runs)
    context: dict[str, Any] | None = None
    #: what `randqa resume` adds to its "resuming from" line (where the results go)
    resume_note: str = ""
    notice: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True)


def identity_of(source: str) -> dict[str, Any] | None:
    """The identity a checkpoint records for the data of ``source`` (files only)."""
    return file_identity(source) if source != "-" and is_data_spec(source) else None


def prior_checkpoint(run: RunSpec, execution: Execution) -> Saved | None:
    """The checkpoint at ``execution.checkpoint`` when it holds this run (its
    seed then replaces a missing one); None when there is none yet."""
    path = execution.checkpoint
    if not path or not os.path.exists(path):
        return None
    saved = read_checkpoint(path)
    problem = saved.run.mismatch(run)
    if problem:
        raise UsageError(f"checkpoint {path} holds another run ({problem}); resume it with `randqa resume {path}`, "
                         f"or give another --checkpoint path")
    return saved


def open_run_source(run: RunSpec) -> Source:
    """The source of a stream run: folded when asked, or the interleaved streams of --streams."""
    if run.streams is not None:
        from randqa.sources.multistream import StreamLayout, open_streams

        return open_streams(run.source, run.seed, StreamLayout.from_json(run.streams))
    source = open_source(run.source, fmt=run.fmt, seed=run.seed)
    return fold_source(source, run.fold[0], run.fold[1]) if run.fold else source


def launch(run: RunSpec, execution: Execution, progress: ProgressFactory | None = None,
           saved: Saved | None = None, fresh: bool = False) -> RunResult:
    """Run (or continue) ``run``; ``saved`` is its checkpoint when the caller
    read it; ``fresh``: start anew whatever the checkpoint path holds (the
    next source of a comparison)."""
    if saved is None and not fresh:
        saved = prior_checkpoint(run, execution)
    suite = suite_from_json(run.suite)
    if saved is not None:
        check_resume(saved)
        run.seed = saved.run.seed
    resume = (saved.progress, saved.states) if saved is not None else None
    bar = progress or (lambda total: contextlib.nullcontext(None))
    if run.kind == "seed-sweep":
        _notice_resume(saved, run, execution)
        return _seed_sweep(run, suite, execution, bar, resume)
    with open_run_source(run) as source:
        _notice_resume(saved, run, execution)  # once everything that could refuse the run has been checked
        run.seed = source.seed
        saver = _saver(run, execution)
        progressive = Progressive(**run.progressive) if run.progressive else None
        if progressive is not None:
            total = progressive.max_bytes if progressive.max_bytes < UNTIL_END else None
        else:
            total = run.limit if source.unit_bits == 8 else None
        with bar(total) as on_progress:
            if on_progress is not None and resume is not None:
                on_progress(resume[0].position)
            try:
                return run_stream(source, suite, limit=run.limit, progressive=progressive, spec=run.source,
                                  fold=tuple(run.fold) if run.fold else None, segment=run.segment,
                                  workers=execution.workers, threads=execution.threads, saver=saver,
                                  resume=resume, on_progress=on_progress)
            except StateError as exc:
                raise InputError(f"checkpoint {execution.checkpoint}: its state does not fit the run ({exc})") from None


def check_resume(saved: Saved) -> None:
    """Check what a checkpoint says against what is there now, before
    anything runs or is written: its data (a file's identity; its run is its
    own, so only the data can differ), and its state, loaded into fresh
    accumulators once and finalised; one line for anything that does not fit."""
    if saved.checked:
        return
    problem = saved.run.mismatch(replace(saved.run, identity=identity_of(saved.run.source)))
    if problem:
        raise UsageError(f"checkpoint {saved.path}: {problem}")
    _check_state(saved.run, suite_from_json(saved.run.suite), saved)
    saved.checked = True


def _check_state(run: RunSpec, suite: Any, saved: Saved) -> None:
    from randqa.engine.execute import StreamJob, loaded

    if run.seed_sweep is not None:
        from randqa.engine.seed_sweep import SeedSweepJob

        job: Any = SeedSweepJob(run.source, run.seed_sweep["positions"], run.seed_sweep["base_seed"])
    else:
        job = StreamJob(suite)
    try:
        for accumulator in loaded(job, 0, saved.states):
            accumulator.finalize()  # numbers of the right kinds may still not make a state
    except StateError as exc:
        raise InputError(f"checkpoint {saved.path}: its state does not fit the run ({exc})") from None
    except (ArithmeticError, TypeError, ValueError, IndexError, KeyError, AttributeError) as exc:
        raise InputError(f"checkpoint {saved.path}: its state does not fit the run "
                         f"({type(exc).__name__}: {one_line(exc)})") from None


def _notice_resume(saved: Saved | None, run: RunSpec, execution: Execution) -> None:
    if saved is None:
        return
    done = saved.progress.position
    what = f"{done:,} seeds" if run.kind == "seed-sweep" else format_size(done)
    state = "finished" if saved.progress.complete else f"{what} done"
    execution.notice(f"randqa: resuming from {saved.path} ({state}){execution.resume_note}")


def _saver(run: RunSpec, execution: Execution) -> Checkpoint | None:
    if not execution.checkpoint:
        return None
    return Checkpoint(execution.checkpoint, execution.checkpoint_every_s, run, execution.command, execution.outputs,
                      execution.context)


def _seed_sweep(run: RunSpec, suite: Any, execution: Execution, bar: ProgressFactory, resume: Any) -> RunResult:
    from randqa.engine.seed_sweep import run_seed_sweep
    from randqa.sources import open_backend

    sweep = run.seed_sweep or {}
    seeds, positions, base = sweep["seeds"], sweep["positions"], sweep["base_seed"]
    name = run.source
    with bar(seeds * positions) as on_progress:
        if on_progress is not None and resume is not None:
            on_progress(resume[0].position * positions)
        try:
            return run_seed_sweep(name, lambda s: open_backend(name, s), seeds, positions=positions, base_seed=base,
                                  thresholds=suite.thresholds, on_progress=on_progress, workers=execution.workers,
                                  segment=run.segment, saver=_saver(run, execution), resume=resume)
        except StateError as exc:
            raise InputError(f"checkpoint {execution.checkpoint}: its state does not fit the run ({exc})") from None
