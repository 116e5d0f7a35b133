"""Pieces shared by every CLI command module: exit codes, option parsers, progress."""

from __future__ import annotations

import os
import shlex
import sys
from typing import Any, TextIO

import click

from randqa.errors import UsageError
from randqa.sizes import parse_size

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def command_line() -> str:
    """The command as the user typed it, for reports."""
    return shlex.join(["randqa"] + sys.argv[1:])


def table_stream(json_path: str | None) -> TextIO:
    """Where the human-readable table goes: stderr when the JSON takes stdout."""
    return sys.stderr if json_path == "-" else sys.stdout


def check_output_path(path: str | None, option: str) -> None:
    """Refuse an output path whose folder is missing before a long run, not after."""
    if path and path != "-":
        folder = os.path.dirname(path) or "."
        if not os.path.isdir(folder):
            raise UsageError(f"{option} {path}: folder {folder} does not exist")


def size_option(ctx: click.Context, param: click.Parameter, value: str | None) -> int | None:
    """click callback turning '64K' etc. into an int (UsageError on nonsense)."""
    return None if value is None else parse_size(value)


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
