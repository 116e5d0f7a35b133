"""OpenSSL's RAND_bytes from the real libcrypto (ctypes), as nmap's benchmark used it.

``RAND_bytes`` writes straight into the caller's buffer, so no byte passes
through Python.  It cannot be seeded reproducibly; a ``--seed`` given is
recorded as ignored.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import lru_cache
from typing import Any

from randqa.errors import InputError, UsageError
from randqa.sources.base import UnseededSource


@lru_cache(maxsize=1)
def libcrypto() -> ctypes.CDLL:
    """The system's libcrypto with RAND_bytes and OpenSSL_version typed."""
    path = ctypes.util.find_library("crypto")
    if path is None:
        raise UsageError("openssl backend: libcrypto not found (install OpenSSL's shared library)")
    lib = ctypes.CDLL(path)
    lib.RAND_bytes.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.RAND_bytes.restype = ctypes.c_int
    try:
        lib.OpenSSL_version.argtypes = [ctypes.c_int]
        lib.OpenSSL_version.restype = ctypes.c_char_p
    except AttributeError:  # OpenSSL < 1.1 has SSLeay_version instead
        pass
    return lib


def openssl_version() -> str:
    lib = libcrypto()
    try:
        return lib.OpenSSL_version(0).decode()
    except AttributeError:
        return "unknown OpenSSL"


class OpenSSLSource(UnseededSource):
    """RAND_bytes into each buffer (in pieces below 2**31, its int limit)."""

    MAX_CALL = 1 << 30

    def __init__(self, *, ignored_seed: int | None = None) -> None:
        self.name = "openssl"
        super().__init__(ignored_seed=ignored_seed)
        self._rand_bytes = libcrypto().RAND_bytes

    def readinto(self, buffer: memoryview) -> int:
        n = len(buffer)
        if n == 0:
            return 0
        target = (ctypes.c_char * n).from_buffer(buffer)
        address = ctypes.addressof(target)
        done = 0
        while done < n:
            step = min(n - done, self.MAX_CALL)
            if self._rand_bytes(address + done, step) != 1:
                raise InputError("openssl: RAND_bytes failed")
            done += step
        del target
        return n

    def describe(self) -> dict[str, Any]:
        data = super().describe()
        data.update(library=openssl_version())
        return data
