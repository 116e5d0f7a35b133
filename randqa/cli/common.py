"""Pieces shared by every CLI command module: exit codes, option parsers,
output paths, the memory check, progress."""

from __future__ import annotations

import os
import shlex
import signal
import sys
from typing import Any, Callable, TextIO

from randqa.engine.signals import InterruptGuard, last_stop_signal
from randqa.errors import OutputError, UsageError
from randqa._report.extras import missing_html_extra
from randqa._report.json_report import write_json
from randqa.engine.options import size_option  # noqa: F401  (the CLI modules take it from here)

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


#: the standard streams (0, 1, 2) that were closed when randqa started
CLOSED_STREAMS: set[int] = set()


def reserve_standard_streams() -> None:
    """Open /dev/null on stdin, stdout or stderr when one is closed (`2>&-`):
    otherwise the next file opened takes its number, and a line meant for
    stderr would land in a result file, or `generate`'s header in its bytes.
    CLOSED_STREAMS records which were."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            os.open(os.devnull, os.O_RDWR)  # the lowest free number: this one
            CLOSED_STREAMS.add(fd)
    if sys.stdout is None:
        sys.stdout = open(1, "w", closefd=False)
    if sys.stderr is None:
        sys.stderr = open(2, "w", closefd=False, errors="backslashreplace")


def interrupted_exit_code() -> int:
    """128 + the stop signal that ended the run (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP)."""
    return 128 + (last_stop_signal() or signal.SIGINT)


def command_line() -> str:
    """The command as the user typed it, for reports."""
    return shlex.join(["randqa"] + sys.argv[1:])


def table_stream(json_path: str | None) -> TextIO:
    """Where the human-readable table goes: stderr when the JSON takes stdout."""
    return sys.stderr if json_path == "-" else sys.stdout


def html_report_path(html_path: str | None, *, asked: bool) -> str | None:
    """The HTML report's path when the html extra is installed.  Without it, a
    report the user asked for is refused before the run (one line naming the
    extra), and a report written only by default is left out with a note."""
    missing = missing_html_extra() if html_path else None
    if missing is None:
        return html_path
    if asked:
        raise UsageError(f"--html {html_path}: {missing}")
    emit(f"randqa: no HTML report ({missing})", sys.stderr)
    return None


def write_then_print(doc: dict[str, Any], table: Callable[[], str], json_path: str | None,
                     html_path: str | None) -> bool:
    """Write a run's or comparison's JSON and HTML files, then print its
    ``table()`` (after the JSON when that goes to stdout).  The files come
    first: a closed or full stdout must not cost them.  A stop signal while
    they are written waits until they are whole; True when one came."""
    with InterruptGuard() as guard:
        guard.updating = True
        if json_path and json_path != "-":
            write_json(doc, json_path)
        if html_path:
            from randqa._report.html import write_html_report  # matplotlib loads only when a report is drawn

            write_html_report([doc], html_path)
    if json_path == "-":
        write_json(doc, json_path)
    emit(table(), table_stream(json_path))
    return guard.pending


def emit(text: str, stream: TextIO) -> None:
    """Print ``text`` and flush it, a failed write being one line, not a traceback
    (a closed pipe still ends as BrokenPipeError, exit 141)."""
    try:
        print(text, file=stream, flush=True)
    except BrokenPipeError:
        raise
    except OSError as exc:
        name = {1: "stdout", 2: "stderr"}.get(_fileno(stream), "the output")
        raise OutputError(f"cannot write to {name} ({exc.strerror or exc})") from None


def _fileno(stream: TextIO) -> int:
    try:
        return stream.fileno()
    except (OSError, ValueError, AttributeError):
        return -1


MAX_MEMORY_HELP = ("Refuse, before the run, a suite whose tests and buffers would take more memory than this "
                   "(1G, 512M; on top of randqa's own, about 100 MB). Default: half of physical memory.")


def silence_stdout() -> None:
    """Point stdout at /dev/null once it cannot be written (a closed pipe), so
    that Python does not fail again (and exit 120) when it flushes at exit."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


class ProgressBar:
    """A tqdm bar on stderr, or nothing when stderr is not a terminal.

    Call it with the number of bytes just processed.
    """

    def __init__(self, enabled: bool | None, total: int | None, desc: str | None = None) -> None:
        if enabled is None:
            enabled = sys.stderr.isatty()
        self._bar: Any = None
        if enabled:
            from tqdm import tqdm

            self._bar = tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, file=sys.stderr, leave=False, desc=desc)

    def __call__(self, n: int) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def __enter__(self) -> "ProgressBar":
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.close()
