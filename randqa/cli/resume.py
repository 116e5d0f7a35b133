"""``randqa resume PATH``: continue a run from its checkpoint.

The checkpoint is data (randqa/engine/checkpoint.py): what it says is
checked, and what it could only choose for the user is not taken from it
unseen.  Its folder must be writable (the checkpoint is saved again there)
before anything runs; the run's JSON and HTML go where ``--json`` and
``--html`` say (from the current folder, as for any command), or where the
checkpoint's run wrote them (saved as absolute paths; a relative one of an
older checkpoint is taken from the checkpoint's folder), and those paths
are then shown and checked before the run like any output path; a run of
``module:attr`` code is continued only by a command that names the code
itself (``randqa test module:attr ... --checkpoint PATH``).
"""

from __future__ import annotations

import os
from typing import Any

import click

from randqa.cli.common import size_option
from randqa.cli.workers import checkpoint_lock, launch_run, parallel_options
from randqa.engine.options import click_option
from randqa.errors import UsageError
from randqa.files import check_output_paths, shown_path


@click.command("resume")
@click.argument("path", metavar="CHECKPOINT")
@parallel_options(resume=True)
@click_option("json", help="Write the results as JSON here (default: where the run wrote them).")
@click_option("html", help="Write the HTML report here (default: where the run wrote it).")
@click.option("--max-memory", callback=size_option, metavar="SIZE",
              help="Refuse a checkpoint whose suite would take more memory than this (default: half of physical "
                   "memory), before anything of it is loaded.")
@click_option("progress")
def resume_command(path: str, jobs: int, scheduler: str | None, scheduler_timeout: float, checkpoint_every: float,
                   json_path: str | None, html_path: str | None, max_memory: int | None, progress: bool | None,
                   **tls: Any) -> int:
    """Continue the run saved in CHECKPOINT (by `randqa test ... --checkpoint CHECKPOINT`),
    on this machine's cores or a cluster (--scheduler), and report it as the
    run itself would have.  A finished run's checkpoint reports its results again."""
    from randqa.cli.reports import resume_comparison
    from randqa.cli.test import _report_run
    from randqa.engine.checkpoint import read_checkpoint
    from randqa.engine.execute import check_resume
    from randqa.sources.bitgenerators import looks_like_module_attribute
    from randqa.sources.user_code import is_user_code_path

    check_output_paths({"checkpoint": path})  # saved again at every checkpoint: its folder must take it
    with checkpoint_lock(path):
        saved = read_checkpoint(path, max_memory)
        _check_memory(saved, jobs, max_memory)
        check_resume(saved)  # a comparison writes its finished runs when a source fails: not for these
        compared = (saved.context or {}).get("compare")
        sources = compared.get("sources") if isinstance(compared, dict) else [saved.run.source]
        options = compared.get("options") if isinstance(compared, dict) else None
        schemes = (options.get("stream_seeds") if isinstance(options, dict) else
                   [(saved.run.streams or {}).get("scheme")])  # a scheme may name code too
        named = [*(sources or []), *(schemes if isinstance(schemes, list) else [])]
        code = next((s for s in named if isinstance(s, str) and (looks_like_module_attribute(s) or
                                                                 is_user_code_path(s))), None)
        if code is not None:
            raise UsageError(f"checkpoint {path}: its run tests {code}, code randqa would import and run; a "
                             f"checkpoint names no code to run: continue it with the command that names it, "
                             f"`{_command_naming(saved, code, path, compared=bool(compared))}`")
        chosen = {"json": json_path, "html": html_path}
        json_path = json_path or _saved_output(saved.outputs.get("json"), path)
        html_path = html_path or _saved_output(saved.outputs.get("html"), path)
        inputs = (path, saved.run.source)
        check_output_paths({"--json": json_path, "--html": html_path}, inputs)
        taken = [f"{kind.upper()} to {'stdout' if where == '-' else shown_path(where)}"
                 for kind, where in (("json", json_path), ("html", html_path)) if where and not chosen[kind]]
        # shown on the "resuming from" line, once nothing else can refuse the run
        note = (f"; writing its {' and its '.join(taken)}, where the run wrote {'them' if len(taken) > 1 else 'it'} "
                "(--json and --html choose others)") if taken else ""
        if compared:
            return resume_comparison(saved, jobs=jobs, scheduler=scheduler, scheduler_timeout=scheduler_timeout,
                                     tls=tls, checkpoint_every=checkpoint_every, json_path=json_path,
                                     html_path=html_path, progress=progress, max_memory=max_memory, resume_note=note)
        return launch_run(saved.run, jobs=jobs, scheduler=scheduler, scheduler_timeout=scheduler_timeout, tls=tls,
                          checkpoint=path, checkpoint_every=checkpoint_every,
                          outputs={"json": json_path, "html": html_path}, progress=progress,
                          report=lambda result: _report_run(result, json_path, html_path), saved=saved,
                          command=saved.command, resume_note=note)


def _saved_output(where: Any, checkpoint: str) -> Any:
    """An output path the checkpoint's run wrote: absolute as checkpoints save
    them; a relative one (an older checkpoint's) is taken from the
    checkpoint's folder, where such outputs usually lie, never from whatever
    folder the resume runs in."""
    if not isinstance(where, str) or where == "-" or os.path.isabs(where):
        return where
    return os.path.join(os.path.dirname(os.path.abspath(checkpoint)), where)


def _command_naming(saved: Any, code: str, path: str, *, compared: bool) -> str:
    """The command that continues a checkpoint whose run names ``code``: the
    command that started it (the same run resumes from its checkpoint), else
    one built from the run's source and --stream-seeds scheme."""
    command = saved.command
    if isinstance(command, str) and command.startswith("randqa ") and command.isprintable() and path in command:
        return command
    name = "compare" if compared else "test"
    if code == saved.run.source or compared:
        named = code if code == saved.run.source else f"... --stream-seeds {shown_path(code)}"
        return f"randqa {name} {named} ... --checkpoint {shown_path(path)}"
    streams = saved.run.streams or {}
    return (f"randqa test {shown_path(str(saved.run.source))} --streams {streams.get('count')} --stream-seeds "
            f"{shown_path(code)} ... --checkpoint {shown_path(path)}")


def _check_memory(saved: Any, jobs: int, max_memory: int | None) -> None:
    """Refuse, before the run, a run whose suite would take more than
    --max-memory, as `randqa test` does (a comparison: its options' suite)."""
    from randqa.engine.memory import check_request_memory, default_max_memory
    from randqa.engine.request import suite_from_json

    request = saved.run
    if request.seed_sweep is not None:
        return
    check_request_memory(request, suite_from_json(request.suite),
                         default_max_memory() if max_memory is None else max_memory, jobs)


COMMANDS: list[click.Command] = [resume_command]
