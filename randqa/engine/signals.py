"""The stop signals a run catches, and the guard that lets a chunk in the
tests' update finish before the run stops."""

from __future__ import annotations

import signal
from typing import Any


#: the signals that stop a run with its partial results written: Ctrl-C,
#: and what batch schedulers, `timeout` and a closed terminal send
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


_last_stop_signal: int | None = None


def last_stop_signal() -> int | None:
    """The stop signal most recently caught by an InterruptGuard in this
    process (None if none): the CLI exits with 128 + it."""
    return _last_stop_signal


def clear_stop_signal() -> None:
    """Forget the last stop signal (at the start of a command)."""
    global _last_stop_signal
    _last_stop_signal = None


class InterruptGuard:
    """A stop signal (SIGINT, SIGTERM, SIGHUP) during a read stops at once;
    during the tests' update it waits for the chunk to finish, so no
    accumulator is left half-updated.  Either way ``signum`` records which
    signal arrived, and ``last_stop_signal()`` returns it."""

    def __init__(self) -> None:
        self.updating = False
        self.pending = False
        self.signum: int | None = None
        #: stop signals caught so far (a second one ends what a first lets finish)
        self.stops = 0
        self._previous: dict[int, Any] = {}

    def _handler(self, signum: int, frame: Any) -> None:
        global _last_stop_signal
        self.signum = _last_stop_signal = signum
        self.stops += 1
        if self.updating:
            self.pending = True
        else:
            raise KeyboardInterrupt

    def __enter__(self) -> "InterruptGuard":
        try:
            for signum in STOP_SIGNALS:
                # an ignored signal stays ignored: `nohup` ignores SIGHUP, a
                # shell ignores SIGINT for background jobs
                if signal.getsignal(signum) != signal.SIG_IGN:
                    self._previous[signum] = signal.signal(signum, self._handler)
        except ValueError:  # not the main thread: leave signals alone
            self._restore()
        return self

    def _restore(self) -> None:
        for signum, previous in self._previous.items():
            # None: a handler installed outside Python, which cannot be put back
            signal.signal(signum, signal.SIG_DFL if previous is None else previous)
        self._previous = {}

    def __exit__(self, *exc: object) -> None:
        self._restore()
