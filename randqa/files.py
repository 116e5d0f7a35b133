"""Writing result files so that a failure never loses or corrupts them.

Every file randqa writes (JSON, HTML, checkpoints) goes through
``write_atomically``: the bytes go to a temporary file in the target's
folder, which is flushed to disk (fsync) and then renamed over the target.
A full disk or a crash leaves the previous file untouched, and a reader
never sees half a file.  A symlink at the target is replaced, not followed:
rename acts on the directory entry.
"""

from __future__ import annotations

import os
import tempfile


def write_atomically(path: str, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step; OSError leaves ``path`` as it was."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(prefix=".randqa-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    _sync_folder(folder)


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
