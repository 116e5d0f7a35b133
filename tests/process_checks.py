"""Whether the processes a test started are gone: the pids a command wrote
to a file, polled until they end (a loaded machine may take a while); a
stream that sends this process a stop signal part-way."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from randqa.sources import Source

#: generous: a loaded machine may take long to let a killed process go
GONE_WITHIN_S = 30


def gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie of another parent counts), waiting up to GONE_WITHIN_S."""
    deadline = time.monotonic() + GONE_WITHIN_S
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


def pids(path: Path) -> list[int]:
    deadline = time.monotonic() + GONE_WITHIN_S
    while not (path.exists() and path.read_text().endswith("\n")):
        assert time.monotonic() < deadline, "the command never wrote its pids"
        time.sleep(0.05)
    return [int(p) for p in path.read_text().split()]


class StopsAfter(Source):
    """A stream read in order (as stdin is) over ``data``, where a stop
    signal (Ctrl-C) arrives once ``stop_at`` bytes have been read."""

    def __init__(self, data: bytes, stop_at: int) -> None:
        self.data, self.stop_at, self.read = data, stop_at, 0
        self.name = "stdin"

    def readinto(self, buffer: memoryview) -> int:
        if self.read == self.stop_at:
            self.stop_at = -1
            os.kill(os.getpid(), signal.SIGINT)  # the run's handler raises KeyboardInterrupt here
            for _ in range(1000):
                time.sleep(0.01)
            raise AssertionError("the stop signal was not seen")
        end = len(self.data) if self.stop_at < 0 else self.stop_at
        got = min(len(buffer), end - self.read)
        buffer[:got] = self.data[self.read:self.read + got]
        self.read += got
        return got
