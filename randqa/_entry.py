"""The ``randqa`` command's entry point (and ``python -m randqa``'s).

Importing the CLI takes a second or two (numpy, scipy, click).  A stop
signal in that time ends the command as one during a run does: one line on
stderr and exit 128 + N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP), never a
traceback; a signal the caller ignores stays ignored.  This module imports
nothing of randqa's until its handlers are in place.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

#: the signals that stop randqa with its results so far (randqa.engine.signals.STOP_SIGNALS)
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def main() -> None:
    """Run the ``randqa`` command."""
    stopped: list[int] = []

    def stop(signum: int, frame: Any) -> None:
        stopped.append(signum)
        raise KeyboardInterrupt

    # everything from the first handler on is inside the try: a signal the
    # moment a handler is in place (before the others, or the import) stops
    # the same way, not with a traceback
    try:
        for signum in _STOP_SIGNALS:
            if signal.getsignal(signum) != signal.SIG_IGN:
                signal.signal(signum, stop)
        # numpy's OpenBLAS starts a thread per core that spins after each call:
        # CPU time for nothing in a command that spreads its own work (--jobs);
        # set before numpy is imported, and left to the caller when set already
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        from randqa.cli import main as run_command
    except KeyboardInterrupt:
        _exit_interrupted("interrupted while starting", stopped)
    try:
        run_command()
    except KeyboardInterrupt:
        # a signal between the import and the command's own handlers, or
        # after it restored ours
        _exit_interrupted("interrupted", stopped)


def _exit_interrupted(what: str, stopped: list[int]) -> None:
    """One line on stderr and exit 128 + the signal that stopped the command."""
    try:
        print(f"randqa: error: {what}", file=sys.stderr, flush=True)
    except OSError:
        pass
    sys.exit(128 + (stopped[-1] if stopped else signal.SIGINT))
