"""Writing result files so that a failure never loses or corrupts them.

``check_output_paths`` refuses, before any work, the output paths that
could only fail at the end (the CLI and the Python API both use it).

Every file randqa writes (JSON, HTML, checkpoints) goes through
``write_atomically``: the bytes go to a temporary file in the target's
folder, which is flushed to disk (fsync) and then renamed over the target.
A full disk or a crash leaves the previous file untouched, and a reader
never sees half a file.  A symlink at the target is replaced, not followed:
rename acts on the directory entry.  A target that exists and is not a
regular file (/dev/null, /dev/stdout, a pipe such as bash's ``>(jq .)``) is
written in place: renaming over it would replace the device or the pipe
itself (as root, /dev/null would become a file).

The file gets the permissions the user's umask gives a new file (0666 &
~umask), or keeps those of the regular file it replaces: a private
stream's results stay as private as the user made them.
"""

from __future__ import annotations

import os
import shlex
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable

from randqa.errors import UsageError


def is_special_file(path: str) -> bool:
    """Whether ``path`` (its symlinks followed) exists and is neither a
    regular file nor a directory: a device or a pipe, written in place."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def write_atomically(path: str, data: bytes | Callable[[BinaryIO], None]) -> None:
    """Replace ``path`` with ``data`` in one step; OSError leaves ``path`` as it
    was.  ``data`` is the bytes, or a function that writes them to the open
    file (so a large file is streamed, never built whole in memory).  A
    device or a pipe at ``path`` is written to instead."""
    def write(f: BinaryIO) -> None:
        if callable(data):
            data(f)
        else:
            f.write(data)

    if is_special_file(path):
        with open(path, "wb") as f:
            write(f)
        return
    folder = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(prefix=".randqa-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(temporary, _mode_for(path))
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    _sync_folder(folder)


def _mode_for(path: str) -> int:
    """The permissions of the regular file at ``path`` (not through a
    symlink, which is replaced), else what the umask gives a new file."""
    try:
        status = os.lstat(path)
    except OSError:
        status = None
    if status is not None and stat.S_ISREG(status.st_mode):
        return stat.S_IMODE(status.st_mode)
    return 0o666 & ~current_umask()


def current_umask() -> int:
    """This process's umask, read without changing it (Linux's
    /proc/self/status; elsewhere set and restored at once)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _sync_folder(folder: str) -> None:
    # the rename itself reaches the disk only when the folder is synced
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def check_output_paths(outputs: dict[str, str | None], inputs: tuple[str, ...] = (), *,
                       stdout_ok: tuple[str, ...] = ("--json",)) -> None:
    """Refuse, before any work, output paths that could only fail or destroy
    something at the end: '-' where stdout cannot take it, a directory, a
    missing or unwritable folder, one file named twice, an input as output.

    ``outputs`` maps each option (``--json``) to its path or None.
    """
    seen: dict[str, str] = {}
    for option, path in outputs.items():
        if not path:
            continue
        if path == "-":
            if option not in stdout_ok:
                raise UsageError(f"{option} -: {option} writes a file; give its path")
            if "-" in seen:
                raise UsageError(f"{seen['-']} and {option} both name stdout ('-')")
            seen["-"] = option
            continue
        if os.path.isdir(path):
            raise UsageError(f"{option} {path}: is a directory")
        folder = os.path.dirname(path) or "."
        if not os.path.isdir(folder):
            raise UsageError(f"{option} {path}: folder {folder} does not exist")
        if is_special_file(path):  # written in place, not through the folder
            if not os.access(path, os.W_OK):
                raise UsageError(f"{option} {path}: cannot write to it (permission denied)")
        else:
            _probe_folder(option, path, folder)
        key = os.path.realpath(path)
        if key in seen:
            raise UsageError(f"{seen[key]} and {option} both name {path}: give each output its own file")
        seen[key] = option
        for name in inputs:
            if name != "-" and os.path.exists(name) and os.path.realpath(name) == key:
                raise UsageError(f"{option} {path}: is also an input; write the output elsewhere")


def shown_path(path: str) -> str:
    """A path as a shell would take it back, on one line: a name from a file
    (a checkpoint) may hold control characters, shown escaped, never sent."""
    return shlex.quote(path) if path.isprintable() else repr(path)


def _probe_folder(option: str, path: str, folder: str) -> None:
    # the write at the end goes through a temporary file in the same folder
    # (randqa.files): creating one now finds a read-only or forbidden folder
    try:
        fd, probe = tempfile.mkstemp(prefix=".randqa-", suffix=".probe", dir=folder)
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot write in folder {folder} ({exc.strerror or exc})") from None
    os.close(fd)
    os.unlink(probe)


def cache_root() -> Path:
    """randqa's cache folder: ``$XDG_CACHE_HOME/randqa``, else ``~/.cache/randqa``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "randqa"
