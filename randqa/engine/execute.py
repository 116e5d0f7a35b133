"""The one entry of every run: ``execute(request)`` starts or continues a
RunRequest, for ``randqa test``, ``randqa resume``, each source of
``compare``, the seed sweep and the Python API.

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
from randqa.engine.checkpoint import Checkpoint, Saved, read_checkpoint
from randqa.sources import open_source
from randqa.engine.records import DEFAULT_CHECKPOINT_EVERY_S
from randqa.engine.request import RunRequest, identity_of, open_request, suite_from_json
from randqa.engine.run import Progressive, run_stream
from randqa.errors import InputError, UsageError, one_line
from randqa.run_result import RunResult
from randqa.sizes import format_size
from randqa.sources import Source

#: makes a progress bar counting up to a total (None: unknown); it is called with each count done
BarFactory = Callable[[int | None], ContextManager[Callable[[int], None]]]


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
    #: set by the run: why its last checkpoint could not be written (None: saved, or no checkpoint)
    checkpoint_failure: str | None = None


def prior_checkpoint(run: RunRequest, execution: Execution) -> Saved | None:
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


def execute(request: RunRequest, execution: Execution | None = None, bar: BarFactory | None = None, *,
            saved: Saved | None = None, fresh: bool = False, source: Source | None = None,
            seeded: Callable[[int], Source] | None = None) -> RunResult:
    """Run (or continue) ``request``.  ``saved`` is its checkpoint when the
    caller read it; ``fresh``: start anew whatever the checkpoint path holds
    (the next source of a comparison).  ``source``: an opened source to test
    instead of the one the request names (a Python object given to the API;
    the caller closes it, and workers never open it themselves); ``seeded``
    opens one stream of a seed sweep (default: the generator the request names)."""
    execution = execution if execution is not None else Execution()
    if saved is None and not fresh:
        saved = prior_checkpoint(request, execution)
    suite = suite_from_json(request.suite)
    if saved is not None:
        check_resume(saved)
        request = replace(request, seed=saved.run.seed)
    resume = (saved.progress, saved.states) if saved is not None else None
    bars = bar or (lambda total: contextlib.nullcontext(None))
    if request.kind == "seed-sweep":
        _notice_resume(saved, request, execution)
        name = request.source
        return _seed_sweep(request, suite, execution, bars, resume, seeded or (lambda seed: open_source(name, seed=seed)))
    with contextlib.nullcontext(source) if source is not None else open_request(request) as opened:
        _notice_resume(saved, request, execution)  # once everything that could refuse the run has been checked
        request = replace(request, seed=opened.seed)
        saver = _saver(request, execution)
        progressive = Progressive(**request.progressive) if request.progressive else None
        with bars(request.progress_total(opened.unit_bits)) as on_progress:
            if on_progress is not None and resume is not None:
                on_progress(resume[0].position)
            try:
                return run_stream(opened, suite, limit=request.limit, progressive=progressive,
                                  spec=request.source if source is None else None,
                                  fold=(request.fold[0], request.fold[1]) if request.fold else None,
                                  segment=request.segment, workers=execution.workers, threads=execution.threads,
                                  saver=saver, resume=resume, on_progress=on_progress)
            except StateError as exc:
                raise InputError(f"checkpoint {execution.checkpoint}: its state does not fit the run ({exc})") from None
            finally:
                execution.checkpoint_failure = saver.failure if saver is not None else None


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


def _check_state(run: RunRequest, suite: Any, saved: Saved) -> None:
    from randqa.battery._sharing import SharedStatisticMismatch
    from randqa.engine.jobs import StreamJob, loaded

    if run.seed_sweep is not None:
        from randqa.engine.seed_sweep import SeedSweepJob

        job: Any = SeedSweepJob(run.source, run.seed_sweep["positions"], run.seed_sweep["base_seed"])
    else:
        job = StreamJob(suite)
    try:
        for accumulator in loaded(job, 0, saved.states):
            accumulator.finalize()  # numbers of the right kinds may still not make a state
    except (StateError, SharedStatisticMismatch) as exc:
        raise InputError(f"checkpoint {saved.path}: its state does not fit the run ({one_line(exc)})") from None
    except (ArithmeticError, TypeError, ValueError, IndexError, KeyError, AttributeError) as exc:
        raise InputError(f"checkpoint {saved.path}: its state does not fit the run "
                         f"({type(exc).__name__}: {one_line(exc)})") from None


def _notice_resume(saved: Saved | None, run: RunRequest, execution: Execution) -> None:
    if saved is None:
        return
    done = saved.progress.position
    what = f"{done:,} seeds" if run.kind == "seed-sweep" else format_size(done)
    state = "finished" if saved.progress.complete else f"{what} done"
    execution.notice(f"randqa: resuming from {saved.path} ({state}){execution.resume_note}")


def _saver(run: RunRequest, execution: Execution) -> Checkpoint | None:
    if not execution.checkpoint:
        return None
    return Checkpoint(execution.checkpoint, execution.checkpoint_every_s, run, execution.command, execution.outputs,
                      execution.context)


def _seed_sweep(request: RunRequest, suite: Any, execution: Execution, bars: BarFactory, resume: Any,
                seeded: Callable[[int], Source]) -> RunResult:
    from randqa.engine.seed_sweep import run_seed_sweep

    sweep = request.seed_sweep or {}
    seeds, positions, base = sweep["seeds"], sweep["positions"], sweep["base_seed"]
    saver = _saver(request, execution)
    with bars(request.progress_total()) as on_progress:
        if on_progress is not None and resume is not None:
            on_progress(resume[0].position * positions)
        try:
            return run_seed_sweep(request.source, seeded, seeds, positions=positions, base_seed=base,
                                  thresholds=suite.thresholds, on_progress=on_progress, workers=execution.workers,
                                  segment=request.segment, saver=saver, resume=resume)
        except StateError as exc:
            raise InputError(f"checkpoint {execution.checkpoint}: its state does not fit the run ({exc})") from None
        finally:
            execution.checkpoint_failure = saver.failure if saver is not None else None
