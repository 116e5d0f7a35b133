"""Command line interface: one module per command group.

- ``test``: ``randqa test``, ``randqa suites``;
- ``backends``: ``randqa list``, ``generate``, ``bench``;
- ``reports``: ``randqa compare``, ``randqa report``;
- ``predict``: ``randqa predict``;
- ``resume``: ``randqa resume`` (a run from its checkpoint); ``workers``: the
  options of runs whose segments go to Dask workers;
- ``common``: exit codes, option parsing, output paths, progress bars.

Exit codes: 0 nothing failed, 1 a test failed, 2 usage or input error (one
line on stderr), 130 interrupted by Ctrl-C (after printing what was tested),
141 stdout closed before the results were written (`generate` alone ends
quietly with 0 then: its reader had all it wanted).
"""

from __future__ import annotations

import os
import sys

import click

from randqa._version import __version__
from randqa.cli import backends, predict, reports, resume, test
from randqa.cli.common import EXIT_INTERRUPTED, EXIT_USAGE
from randqa.errors import OutputClosed, RandqaError


class _Group(click.Group):
    """click turns a broken stdout pipe into a silent exit 1; randqa says so
    and exits 141 instead (a verdict nobody received is not a success)."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise OutputClosed() from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="randqa")
def cli() -> None:
    """Statistical randomness quality tester: quality next to speed."""


for _command in test.COMMANDS + backends.COMMANDS + reports.COMMANDS + predict.COMMANDS + resume.COMMANDS:
    cli.add_command(_command)


def _fail(message: str, code: int) -> int:
    print(f"randqa: error: {message}", file=sys.stderr, flush=True)
    return code


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI, turning every expected error into one stderr line."""
    try:
        code = cli.main(args=argv, prog_name="randqa", standalone_mode=False)
    except RandqaError as exc:
        if isinstance(exc, OutputClosed):
            # keep Python from complaining again when it flushes stdout at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = _fail(str(exc), exc.exit_code)
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else str(exc), err=True)
        code = EXIT_USAGE
    except click.UsageError as exc:
        code = _fail(exc.format_message().replace("\n", " "), EXIT_USAGE)
    except click.ClickException as exc:
        code = _fail(exc.format_message().replace("\n", " "), exc.exit_code or EXIT_USAGE)
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except (click.Abort, KeyboardInterrupt):
        code = _fail("interrupted", EXIT_INTERRUPTED)
    sys.exit(code or 0)
