"""A Source reading a real runtime's generator: the stdout of its driver process.

The process runs in its own session, so a Ctrl-C at the terminal reaches
randqa alone, which finishes the chunk in flight from the still-running
runtime before it reports.  ``close`` kills the process's whole group (what
the driver forked goes too) and reaps it.  The
runtime's stream never ends: if its process does, the run stops with one
line naming the runtime, its exit status and what it said on stderr (kept in a
temporary file, which cannot fill up and block it as a pipe could): the
first line naming an error, exception, panic or fatal condition, as the
runtimes put the cause before their stack traces, else the last line.
The process gets a temporary folder of its own as TMPDIR, removed after it
is reaped: a runtime that is killed leaves its files there (R's
/tmp/RtmpXXXXXX is removed only when R exits by itself).
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
from dataclasses import KW_ONLY, InitVar, dataclass, field
from typing import Any

from randqa.errors import InputError
from randqa.sources.base import Source
from randqa.sources.runtimes.processes import has_ended, kill_and_reap

#: seconds to wait for a killed process to be reaped
REAP_TIMEOUT_S = 10
_CAUSE = re.compile(r"error|exception|panic|fatal", re.IGNORECASE)


@dataclass(eq=False, repr=False)
class LiveSource(Source):
    """The byte stream a runtime's own generator writes (backend ``NAME-live``),
    from the driver process that ``command`` starts."""

    endless = True

    # field(): no default, though Source's class attributes give one
    name: str = field()
    seed: int = field()
    command: InitVar[list[str]]
    _: KW_ONLY
    runtime: str
    runtime_version: str
    output: str
    seeding: str

    def __post_init__(self, command: list[str]) -> None:
        self.bytes_read = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._stderr = tempfile.TemporaryFile()
        self._tmpdir = tempfile.TemporaryDirectory(prefix="randqa-live-")
        try:
            self._process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self._stderr,
                start_new_session=True, bufsize=0, env={**os.environ, "TMPDIR": self._tmpdir.name})
        except OSError as exc:
            self._stderr.close()
            self._tmpdir.cleanup()
            raise InputError(f"backend {self.name}: cannot start {command[0]} ({exc.strerror or exc})") from None
        assert self._process.stdout is not None
        self._fd = self._process.stdout.fileno()

    def readinto(self, buffer: memoryview) -> int:
        if self._process is None:
            raise InputError(f"backend {self.name}: read after close")
        try:
            got = os.readv(self._fd, [buffer])
        except OSError as exc:
            raise InputError(f"backend {self.name}: reading from {self.runtime} failed ({exc.strerror})") from None
        if got == 0:
            raise InputError(self._ended())
        self.bytes_read += got
        return got

    def _ended(self) -> str:
        assert self._process is not None
        status = kill_and_reap(self._process, REAP_TIMEOUT_S) if _ends_within(self._process, REAP_TIMEOUT_S) else None
        self._stderr.seek(0)
        said = [line.strip() for line in self._stderr.read().decode(errors="replace").splitlines() if line.strip()]
        cause = [line for line in said if _CAUSE.search(line)]
        why = f": {(cause or said)[0 if cause else -1]}" if said else ""
        how = "closed its output" if status is None else f"exited with status {status}"
        return f"backend {self.name}: {self.runtime} {how} after {self.bytes_read} bytes{why}"

    def describe(self) -> dict[str, Any]:
        data = super().describe()
        data.update(reproducible=True, live=True, runtime=self.runtime, runtime_version=self.runtime_version,
                    output=self.output, seeding=self.seeding)
        return data

    def close(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        kill_and_reap(process, REAP_TIMEOUT_S)  # the driver's whole process group: what it forked too
        if process.stdout is not None:
            process.stdout.close()
        self._stderr.close()
        self._tmpdir.cleanup()

    def __del__(self) -> None:
        self.close()


def _ends_within(process: subprocess.Popen, seconds: float) -> bool:  # type: ignore[type-arg]
    """Whether ``process`` ends within ``seconds``, left unreaped (its group is killed next)."""
    deadline = time.monotonic() + seconds
    while not has_ended(process.pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
