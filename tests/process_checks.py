"""Whether the processes a test started are gone: the pids a command wrote
to a file, polled until they end (a loaded machine may take a while)."""

from __future__ import annotations

import time
from pathlib import Path

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
