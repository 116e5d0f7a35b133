"""Errors that end a run with one line on stderr and a distinct exit code.

Exit codes (the README's table): 0 nothing failed, 1 a test failed, 2 an
error (one of the classes below, or an operating-system error such as a
full disk), 3 an internal error (a bug: rerun with --debug for the
traceback), 128 + N a stop signal N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP)
after the partial results were written, 141 stdout closed.
"""


def one_line(value: object, limit: int = 200) -> str:
    """``str(value)`` on one line, shortened to ``limit`` characters (an
    exception's message inside randqa's own one-line errors)."""
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


class RandqaError(Exception):
    """A problem with what the user asked for or gave us (exit code 2)."""

    exit_code = 2


class UsageError(RandqaError):
    """Bad option values: sizes, names, combinations."""


class InputError(RandqaError):
    """Unreadable, empty or malformed input data."""


class SuiteError(RandqaError):
    """A suite file that cannot be loaded; the message names file and problem."""


class OutputError(RandqaError):
    """A result file or stdout that cannot be written (full disk, read-only folder)."""


class OutputClosed(RandqaError):
    """stdout went away before the results were written (exit code 141, 128 + SIGPIPE)."""

    exit_code = 141

    def __init__(self) -> None:
        super().__init__("output closed before all results were written (broken pipe)")
