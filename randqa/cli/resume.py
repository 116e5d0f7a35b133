"""``randqa resume PATH``: continue a run from its checkpoint."""

from __future__ import annotations

import click

from randqa.cli.workers import launch_run, parallel_options
from randqa.files import check_output_paths


@click.command("resume")
@click.argument("path", metavar="CHECKPOINT")
@parallel_options(resume=True)
@click.option("--json", "json_path", metavar="PATH", help="Write the results as JSON here (default: where the run wrote them).")
@click.option("--html", "html_path", metavar="PATH", help="Write the HTML report here (default: where the run wrote it).")
@click.option("--progress/--no-progress", default=None, help="Progress bar on stderr (default: when stderr is a terminal).")
def resume_command(path: str, jobs: int, scheduler: str | None, checkpoint_every: float, json_path: str | None,
                   html_path: str | None, progress: bool | None) -> int:
    """Continue the run saved in CHECKPOINT (by `randqa test ... --checkpoint CHECKPOINT`),
    on this machine's cores or a cluster (--scheduler), and report it as the
    run itself would have.  A finished run's checkpoint reports its results again."""
    from randqa.cli.reports import resume_comparison
    from randqa.cli.test import _report_run
    from randqa.engine.checkpoint import read_checkpoint

    saved = read_checkpoint(path)
    json_path = json_path or saved.outputs.get("json")
    html_path = html_path or saved.outputs.get("html")
    check_output_paths({"--json": json_path, "--html": html_path}, (path,))
    if saved.context and "compare" in saved.context:
        return resume_comparison(saved, jobs=jobs, scheduler=scheduler, checkpoint_every=checkpoint_every,
                                 json_path=json_path, html_path=html_path, progress=progress)
    result = launch_run(saved.run, jobs=jobs, scheduler=scheduler, checkpoint=path, checkpoint_every=checkpoint_every,
                        outputs={"json": json_path, "html": html_path}, progress=progress, saved=saved,
                        command=saved.command)
    return _report_run(result, json_path, html_path)


COMMANDS: list[click.Command] = [resume_command]
