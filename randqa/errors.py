"""Errors that end a run with one line on stderr and a distinct exit code."""


class RandqaError(Exception):
    """A problem with what the user asked for or gave us (exit code 2)."""

    exit_code = 2


class UsageError(RandqaError):
    """Bad option values: sizes, names, combinations."""


class InputError(RandqaError):
    """Unreadable, empty or malformed input data."""


class SuiteError(RandqaError):
    """A suite file that cannot be loaded; the message names file and problem."""


class OutputClosed(RandqaError):
    """stdout went away before the results were written (exit code 141, 128 + SIGPIPE)."""

    exit_code = 141

    def __init__(self) -> None:
        super().__init__("output closed before all results were written (broken pipe)")
