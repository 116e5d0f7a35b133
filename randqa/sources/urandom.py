"""The operating system's generators: the /dev/urandom device and getrandom(2).

``urandom`` reads the real device through ``_urandom.UrandomReader``,
which does what s2n-tls's fix does: it caches the device's identity
(``st_dev``, ``st_ino``, ``st_rdev``, file type) when it opens it and checks
it with ``fstat`` before every ``read``; if the descriptor was closed, or
another file now sits on that number, it opens the device again and
carries on (the foreign descriptor is left alone: it is not ours).  Reads
retry on EINTR (after running Python's signal handlers, so Ctrl-C works)
and never loop without progress.  ``urandom:SIZE`` caps each ``read`` call
at SIZE bytes, the API shape nmap's benchmark varied (16 B, 2 KiB, ...).

Neither source can be seeded; a ``--seed`` given is recorded as ignored.
"""

from __future__ import annotations

import os
from typing import Any

from randqa.errors import InputError
from randqa.sources import _urandom
from randqa.sources.base import UnseededSource

URANDOM_PATH = "/dev/urandom"
#: the three ways to hold the device that `randqa bench urandom-strategies` times
STRATEGIES = ("cached", "check", "reopen")


class UrandomSource(UnseededSource):
    """Bytes read from /dev/urandom (strategy ``check`` unless told otherwise).
    ``reader`` holds the device: its ``fd`` is the descriptor held now (-1 when
    none), its ``reopens`` how often a closed or swapped one made it reopen."""

    def __init__(self, *, strategy: str = "check", call_bytes: int = 0, path: str = URANDOM_PATH,
                 name: str = "urandom", ignored_seed: int | None = None) -> None:
        try:
            self.reader = _urandom.UrandomReader(path, strategy, call_bytes)
        except OSError as exc:
            raise InputError(f"{name}: cannot open {path} ({exc.strerror})") from None
        self.name = name
        self.path = path
        self.call_bytes = call_bytes
        super().__init__(ignored_seed=ignored_seed)

    def readinto(self, buffer: memoryview) -> int:
        try:
            self.reader.fill(buffer)
        except OSError as exc:
            raise InputError(f"{self.name}: reading {self.path} failed ({exc.strerror or exc})") from None
        return len(buffer)

    def describe(self) -> dict[str, Any]:
        data = super().describe()
        data.update(device=self.path, strategy=self.reader.strategy,
                    read_call_bytes=self.call_bytes or None, reopens=self.reader.reopens)
        return data

    def close(self) -> None:
        self.reader.close()


class GetrandomSource(UnseededSource):
    """Bytes from the getrandom(2) system call (``os.getrandom``, flags 0)."""

    #: the kernel returns at most 32 MiB - 1 per call
    MAX_CALL = (1 << 25) - 1

    def __init__(self, *, ignored_seed: int | None = None) -> None:
        if not hasattr(os, "getrandom"):  # Linux only (macOS has getentropy)
            raise InputError("getrandom: this system has no getrandom(2); use urandom")
        self.name = "getrandom"
        super().__init__(ignored_seed=ignored_seed)

    def readinto(self, buffer: memoryview) -> int:
        n = len(buffer)
        done = 0
        while done < n:
            chunk = os.getrandom(min(n - done, self.MAX_CALL))
            buffer[done:done + len(chunk)] = chunk
            done += len(chunk)
        return n
