"""``randqa predict``: recover a generator's structure from a prefix of its
stream and check predictions of what follows."""

from __future__ import annotations

import click

from randqa.cli.common import EXIT_OK, command_line, emit, size_option, table_stream
from randqa.sources import open_source
from randqa.engine.options import click_option
from randqa.files import check_output_paths
from randqa._report.json_report import write_json
from randqa._report.terminal import render_predict


@click.command("predict")
@click.argument("source", metavar="SOURCE")
@click_option("n", help="Read this much of the source, once (default 1 MiB; all of a shorter file or stdin).")
@click_option("seed")
@click.option("--predictors", "names", metavar="A,B", help="Run only these predictors (default: all).")
@click.option("--check", "check_bytes", callback=size_option, metavar="SIZE", default="64K", show_default=True,
              help="How much of the continuation each prediction is checked against.")
@click.option("--json", "json_path", metavar="PATH", help="Write the findings as JSON to PATH ('-' for stdout).")
def predict_command(source: str, size: int | None, seed: int | None, names: str | None, check_bytes: int,
                    json_path: str | None) -> int:
    """Show predictability: observe a prefix of SOURCE ('-', a file or a
    generator name), reconstruct its recurrence, constants or state, and
    predict bytes it did not see.  Where no predictor succeeds it says so,
    which is not a proof that the generator is unpredictable."""
    from randqa.predict import predict

    check_output_paths({"--json": json_path}, (source,))
    chosen = None if names is None else [n.strip() for n in names.split(",") if n.strip()]
    with open_source(source, seed=seed) as src:
        report = predict(src, size, predictors=chosen, check_bytes=check_bytes)
    doc = report.to_json()
    doc["command"] = command_line()
    if json_path:  # the file first: a closed stdout must not cost it
        write_json(doc, json_path)
    emit(render_predict(doc), table_stream(json_path))
    return EXIT_OK


COMMANDS: list[click.Command] = [predict_command]
