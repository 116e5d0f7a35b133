"""Running randqa as a hostile user would: in a child process whose exit
code, output and peak memory are all checked, on small real filesystems
(tmpfs) when the machine allows mounting them.

The peak is the child's own: Linux's ru_maxrss (wait4) of an exec'd child
starts from its parent's peak, which a long pytest session raises past a
gigabyte, so the child's VmHWM (the peak of its own address space since
exec) is sampled until it exits, and the smaller of the two is kept."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[1]


@dataclass
class Run:
    code: int
    out: str
    err: str
    #: the child's peak resident memory, in bytes
    max_rss: int
    timed_out: bool = False


def randqa_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "randqa", *args]


def run(args: list[str], *, stdin: int | None = subprocess.DEVNULL, cwd: str | os.PathLike | None = None,
        env: dict[str, str] | None = None, timeout: float = 120, preexec_fn=None) -> Run:
    """Run ``args`` (a whole command) to its end; kill it after ``timeout`` s
    (``timed_out`` then says so).  The child's own max RSS comes from wait4."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(args, stdin=stdin, stdout=out, stderr=err, cwd=cwd,
                                env={**os.environ, **(env or {})}, preexec_fn=preexec_fn)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        peak = _PeakSampler(proc.pid)
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timed_out = not timer.is_alive()
            timer.cancel()
            peak.stop()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        max_rss = usage.ru_maxrss * 1024
        if peak.high_water is not None:
            max_rss = min(max_rss, peak.high_water)
        return Run(proc.returncode, out.read().decode(errors="replace"), err.read().decode(errors="replace"),
                   max_rss, timed_out)


class _PeakSampler(threading.Thread):
    """Reads a child's VmHWM every few milliseconds until stopped (it only
    grows, so the last reading misses at most the final milliseconds)."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.path = f"/proc/{pid}/status"
        self.high_water: int | None = None
        self._done = threading.Event()
        self.start()

    def run(self) -> None:
        while not self._done.is_set():
            try:
                with open(self.path) as f:
                    for line in f:
                        if line.startswith("VmHWM:"):
                            self.high_water = max(self.high_water or 0, int(line.split()[1]) * 1024)
            except OSError:
                return
            self._done.wait(0.002)

    def stop(self) -> None:
        self._done.set()
        self.join()


def importable(folder: Path) -> dict[str, str]:
    """The environment that lets a child import modules from ``folder`` too."""
    return {"PYTHONPATH": os.pathsep.join(p for p in (str(folder), os.environ.get("PYTHONPATH", "")) if p)}


def randqa(*args: str, **kwargs) -> Run:
    return run(randqa_command(*args), **kwargs)


def assert_one_error_line(result: Run, *fragments: str) -> str:
    """stderr is exactly one 'randqa: error:' line holding every fragment; return it."""
    assert "Traceback" not in result.err, result.err
    lines = [line for line in result.err.splitlines() if line.strip()]
    assert len(lines) == 1, result.err
    assert lines[0].startswith("randqa: error: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def is_root() -> bool:
    return os.geteuid() == 0


@contextlib.contextmanager
def small_tmpfs(where: Path, size: str = "512k") -> Iterator[Path]:
    """A real filesystem of ``size`` mounted at ``where`` (root only; skips otherwise)."""
    if not is_root() or shutil.which("mount") is None:
        pytest.skip("a small tmpfs needs root to mount it (a real full disk cannot be made otherwise)")
    where.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def fill_filesystem(folder: Path) -> None:
    """Write filler files until the filesystem has not one byte left."""
    for size in (1 << 16, 4096, 512, 1):  # smaller writes fill what larger ones could not
        try:
            with open(folder / f"filler-{size}", "wb", buffering=0) as f:
                while True:
                    f.write(b"\0" * size)
        except OSError:
            pass


def remount_read_only(where: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True, capture_output=True)


def catches_signal(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler installed for ``signum`` (Linux /proc)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    return False


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def ignore(signum: int):
    """A preexec_fn that starts the child with ``signum`` ignored, as nohup does."""
    def preexec() -> None:
        signal.signal(signum, signal.SIG_IGN)
    return preexec
