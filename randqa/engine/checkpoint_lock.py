"""``CheckpointLock`` keeps two runs off one checkpoint path: an ``fcntl``
lock on ``PATH.lock``, removed at exit."""

from __future__ import annotations

import errno
import fcntl
import os

from randqa.errors import UsageError

#: the lock file beside a checkpoint, while a run uses it
LOCK_SUFFIX = ".lock"


class CheckpointLock:
    """Keeps other randqa runs off checkpoint ``path`` while this one uses it:
    an exclusive ``fcntl`` lock on ``PATH.lock``, which holds this
    process's PID and is removed when the run ends.  A second run is refused
    with one line naming the first one's PID."""

    def __init__(self, path: str) -> None:
        self.path = path + LOCK_SUFFIX
        self.checkpoint = path
        self._fd: int | None = None

    def __enter__(self) -> "CheckpointLock":
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
            except OSError as exc:
                raise UsageError(f"--checkpoint {self.checkpoint}: cannot lock it ({exc.strerror or exc}: "
                                 f"{self.path})") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                holder = _read_pid(fd)
                os.close(fd)
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise UsageError(f"--checkpoint {self.checkpoint}: cannot lock it ({exc.strerror or exc})") from None
                who = f"PID {holder}" if holder else "its PID not yet written"
                raise UsageError(f"checkpoint {self.checkpoint} is in use by another randqa run ({who}); wait for it "
                                 "to end, or give another --checkpoint path") from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except OSError:
                same = False
            if same:  # else the run before removed the file between our open and lock: lock the new one
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is None:
            return
        try:
            os.unlink(self.path)  # while locked: a run waiting on this file tries again on a new one
        except OSError:
            pass
        os.close(self._fd)
        self._fd = None


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() and len(text) < 12 else None
