"""Command line interface: one module per command group.

- ``test``: ``randqa test``, ``randqa suites``;
- ``backends``: ``randqa list``, ``generate``, ``bench``;
- ``reports``: ``randqa compare``, ``randqa report``;
- ``predict``: ``randqa predict``;
- ``resume``: ``randqa resume`` (a run from its checkpoint); ``workers``: the
  options of runs whose segments go to Dask workers;
- ``common``: exit codes, option parsing, output paths, the memory check, progress bars.

Exit codes: 0 nothing failed, 1 a test failed, 2 an error (one line on
stderr: bad usage or input, a file or stdout that cannot be written, too
little memory), 3 an internal error (one line; ``--debug`` or
``RANDQA_DEBUG=1`` shows the traceback), 128 + N stopped by signal N
(130 Ctrl-C, 143 SIGTERM, 129 SIGHUP) after writing what was tested, 141
stdout closed before the results were written (`generate` alone ends
quietly with 0 then: its reader had all it wanted).
"""

from __future__ import annotations

import os
import sys
import traceback

import click

from randqa._version import __version__
from randqa.cli import backends, predict, reports, resume, test
from randqa.cli.common import EXIT_INTERNAL, EXIT_USAGE, interrupted_exit_code, reserve_standard_streams, silence_stdout
from randqa.engine.signals import InterruptGuard, clear_stop_signal, last_stop_signal
from randqa.errors import OutputClosed, OutputError, RandqaError, one_line

#: set to 1 in the environment: tracebacks of internal errors, as --debug
DEBUG_VARIABLE = "RANDQA_DEBUG"


class _Stopped(Exception):
    """A stop signal during a command (click would print an empty line for a KeyboardInterrupt)."""


class _Group(click.Group):
    """click turns a broken stdout pipe into a silent exit 1; randqa says so
    and exits 141 instead (a verdict nobody received is not a success).  A
    stop signal leaves as _Stopped, so that stderr gets one line."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise OutputClosed() from None
        except KeyboardInterrupt:
            raise _Stopped() from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="randqa")
@click.option("--debug", is_flag=True, help=f"Show the traceback of an internal error (also {DEBUG_VARIABLE}=1); "
                                            "accepted anywhere on the command line.")
def cli(debug: bool) -> None:
    """Statistical randomness quality tester: quality next to speed."""


for _command in test.COMMANDS + backends.COMMANDS + reports.COMMANDS + predict.COMMANDS + resume.COMMANDS:
    cli.add_command(_command)


def _fail(message: str, code: int) -> int:
    try:
        print(f"randqa: error: {message}", file=sys.stderr, flush=True)
    except OSError:
        pass  # stderr is gone too: the exit code is all that is left
    return code


def _settle_stdout(code: int) -> int:
    """Flush stdout while a failure can still be reported and change the exit code."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
        return code if code not in (0, 1) else _fail(str(OutputClosed()), OutputClosed.exit_code)
    except OSError as exc:
        silence_stdout()
        return code if code not in (0, 1) else _fail(f"cannot write to stdout ({exc.strerror or exc})", EXIT_USAGE)
    return code


def _debug_requested(args: list[str]) -> tuple[bool, list[str]]:
    """Whether --debug (anywhere before a '--') or RANDQA_DEBUG=1 asks for
    tracebacks, and the arguments without --debug."""
    end = args.index("--") if "--" in args else len(args)
    debug = any(a == "--debug" for a in args[:end])
    kept = [a for a in args[:end] if a != "--debug"] + args[end:]
    return debug or os.environ.get(DEBUG_VARIABLE, "") not in ("", "0"), kept


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI, turning every error into one stderr line and its exit code."""
    reserve_standard_streams()
    debug, args = _debug_requested(list(sys.argv[1:] if argv is None else argv))
    clear_stop_signal()
    try:
        # SIGTERM and SIGHUP stop like Ctrl-C, wherever they arrive; the
        # engine's own guards let the chunk in flight finish first
        with InterruptGuard():
            code = cli.main(args=args, prog_name="randqa", standalone_mode=False)
    except RandqaError as exc:
        if debug:
            traceback.print_exc()
        if isinstance(exc, OutputClosed):
            silence_stdout()
        code = _fail(str(exc), exc.exit_code)
        if isinstance(exc, (OutputClosed, OutputError)) and last_stop_signal() is not None:
            code = interrupted_exit_code()  # a closed terminal (SIGHUP) takes its output with it
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else str(exc), err=True)
        code = EXIT_USAGE
    except click.UsageError as exc:
        code = _fail(exc.format_message().replace("\n", " "), EXIT_USAGE)
    except click.ClickException as exc:
        code = _fail(exc.format_message().replace("\n", " "), exc.exit_code or EXIT_USAGE)
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except (click.Abort, KeyboardInterrupt, _Stopped):
        code = _fail("interrupted", interrupted_exit_code())
    except MemoryError as exc:
        if debug:
            traceback.print_exc()
        # numpy's message names the allocation that failed: the real cause, when it is one
        detail = one_line(exc)
        code = _fail(f"out of memory{f' ({detail})' if detail else ''}: test less at once (a smaller --max-memory "
                     "refuses such suites before the run)", EXIT_USAGE)
    except OSError as exc:
        # the system refused something (a full disk, a vanished device): not a bug
        if debug:
            traceback.print_exc()
        where = f"{exc.filename}: " if exc.filename else ""
        code = _fail(f"{where}{exc.strerror or exc}", EXIT_USAGE)
    except Exception as exc:  # noqa: BLE001 - anything unforeseen is one line and exit 3
        if debug:
            traceback.print_exc()
        summary = one_line(exc)
        hint = "the traceback is above" if debug else "rerun with --debug for the traceback"
        code = _fail(f"internal error ({type(exc).__name__}{': ' + summary if summary else ''}); {hint}", EXIT_INTERNAL)
    sys.exit(_settle_stdout(code or 0))
