"""Running a runtime's short commands (a version query, a build, a timing
run) with bounded time and memory, leaving nothing behind.

Each command runs in a session of its own (so in its own process group),
and that whole group is killed when the command ends, times out, prints
more than ``max_bytes``, or randqa is stopped (Ctrl-C while it waits): a
driver's forked children, a shell's pipeline, a hung ``node --version``'s
helpers go with it.  The command's exit status is read first (``waitid``
with ``WNOWAIT`` leaves it unreaped, so its process group id cannot be
reused before the group is killed), so killing the rest does not change it.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

#: the most each of stdout and stderr may hold: a version, a compiler's
#: messages or a timing's seconds are far less; a command that prints
#: without end is stopped here rather than filling memory
MAX_OUTPUT_BYTES = 4 << 20
#: seconds to read what is left in the pipes once the command has ended
_DRAIN_S = 2.0
#: how often the wait looks up to see whether the command has ended
_POLL_S = 0.05


class CommandFailed(Exception):
    """The command could not be started, took too long or printed too much
    (the message says which, after the command's name)."""


@dataclass(frozen=True)
class Finished:
    """A command that ended: its exit status and what it printed."""

    returncode: int
    stdout: str
    stderr: str


def run_bounded(command: list[str], *, timeout: float, max_bytes: int = MAX_OUTPUT_BYTES,
                cwd: str | Path | None = None, env: dict[str, str] | None = None) -> Finished:
    """Run ``command`` to its end (stdin empty) and return its exit status and
    output; CommandFailed when it cannot start, runs past ``timeout``
    seconds or prints more than ``max_bytes`` on stdout or stderr.  Its
    process group is killed before this returns or raises, whatever happens."""
    try:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, cwd=cwd, env=env, start_new_session=True)
    except OSError as exc:
        raise CommandFailed(f"cannot start it ({exc.strerror or exc})") from None
    assert process.stdout is not None and process.stderr is not None
    output = {process.stdout: bytearray(), process.stderr: bytearray()}
    deadline = time.monotonic() + timeout
    try:
        with selectors.DefaultSelector() as selector:
            for pipe in output:
                selector.register(pipe, selectors.EVENT_READ)
            ended = False
            while selector.get_map():
                if not ended and has_ended(process.pid):
                    ended = True
                    _kill_group(process.pid)  # what it left running; the pipes then reach their end
                    deadline = min(deadline, time.monotonic() + _DRAIN_S)
                left = deadline - time.monotonic()
                if left <= 0:
                    if ended:
                        break  # a child that left the group holds a pipe: keep what came
                    raise CommandFailed(f"took more than {timeout:g} s")
                for key, _events in selector.select(min(left, _POLL_S)):
                    chunk = os.read(key.fd, 1 << 16)
                    if not chunk:
                        selector.unregister(key.fileobj)
                        continue
                    kept = output[key.fileobj]  # type: ignore[index]
                    kept += chunk
                    if len(kept) > max_bytes:
                        raise CommandFailed(f"printed more than {max_bytes} bytes")
        while not has_ended(process.pid):  # its output closed: the command itself ends
            if time.monotonic() > deadline:
                raise CommandFailed(f"took more than {timeout:g} s")
            time.sleep(_POLL_S)
        returncode = kill_and_reap(process)
    finally:
        if process.returncode is None:  # stopped here (timeout, too much output, Ctrl-C)
            kill_and_reap(process)
        process.stdout.close()
        process.stderr.close()
    return Finished(returncode, output[process.stdout].decode(errors="replace"),
                    output[process.stderr].decode(errors="replace"))


def kill_and_reap(process: subprocess.Popen, timeout: float | None = None) -> int | None:  # type: ignore[type-arg]
    """Kill the process group of ``process`` (started with
    ``start_new_session``), then reap it: its exit status, or None when it
    has not gone within ``timeout`` seconds.  A process already reaped
    (``returncode`` set) is left alone: its group id may belong to another
    process by now."""
    if process.returncode is not None:
        return process.returncode
    _kill_group(process.pid)
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def has_ended(pid: int) -> bool:
    """Whether process ``pid`` (a child) has ended; it is left unreaped."""
    try:
        found = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:  # reaped already
        return True
    return found is not None


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # nothing of it is left
