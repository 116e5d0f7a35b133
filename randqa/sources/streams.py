"""Sources that read data users already have: stdin and files, as raw
bytes or as NIST STS-style ASCII '0'/'1' text."""

from __future__ import annotations

import errno
import os
import stat

import numpy as np

from randqa.errors import InputError
from randqa.sources.base import NotSplittable, Source, SplitMethod

# ASCII '0' and '1' map to bit values; whitespace is skipped, anything else is an error
_BIT_VALUE = np.full(256, 255, dtype=np.uint8)
_BIT_VALUE[ord("0")] = 0
_BIT_VALUE[ord("1")] = 1
_SKIP = np.zeros(256, dtype=bool)
_SKIP[[ord(c) for c in " \t\r\n\f\v"]] = True


def _open_input(path: str) -> tuple[int, bool, str]:
    """File descriptor for ``path`` ('-' = stdin), whether we own it, and a display name."""
    if path == "-":
        try:
            os.fstat(0)
        except OSError:
            raise InputError("stdin is closed: pipe data in or give a file") from None
        return 0, False, "stdin"
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a file") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot open ({exc.strerror})") from None
    if os.path.isdir(path):
        os.close(fd)
        raise InputError(f"{path}: is a directory, not a file")
    return fd, True, path


def stated_size(info: os.stat_result) -> int | None:
    """The bytes a file's status says it holds: None for stdin, pipes and
    devices, and for a size of 0: the files of /proc and /sys say 0 and hold
    data, so they are read to their end like a pipe."""
    return info.st_size if stat.S_ISREG(info.st_mode) and info.st_size else None


def file_size(path: str) -> int | None:
    """``stated_size`` of the file at ``path`` (None when it cannot be read)."""
    try:
        return stated_size(os.stat(path))
    except (OSError, ValueError):
        return None


def is_data_spec(spec: str) -> bool:
    """Whether ``spec`` names data (stdin '-' or a file path) rather than a
    generator (``./mygen.py:NAME`` is the user's generator, not a path)."""
    from randqa.sources.user_code import is_user_code_path

    return spec == "-" or os.path.exists(spec) or (os.sep in spec and not is_user_code_path(spec))


class _FdReader:
    def __init__(self, path: str) -> None:
        self.fd, self._owned, self.display = _open_input(path)

    def readinto(self, buffer: memoryview) -> int:
        try:
            return os.readv(self.fd, [buffer])
        except IsADirectoryError:
            raise InputError(f"{self.display}: is a directory, not a file") from None
        except OSError as exc:
            if exc.errno == errno.EBADF:
                raise InputError(f"{self.display}: closed while reading") from None
            raise InputError(f"{self.display}: read failed ({exc.strerror})") from None

    def close(self) -> None:
        if self._owned and self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def regular_file_size(self) -> int | None:
        """The size of a regular file this reader opened (``stated_size``); None for stdin."""
        if not self._owned or self.fd < 0:
            return None
        return stated_size(os.fstat(self.fd))


class ByteStream(Source):
    """Raw bytes from a file or from stdin ('-')."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._reader = _FdReader(path)
        self.name = self._reader.display

    def readinto(self, buffer: memoryview) -> int:
        return self._reader.readinto(buffer)

    @property
    def split_method(self) -> SplitMethod:
        return "pread" if self._reader.regular_file_size() is not None else "sequential"

    @property
    def size(self) -> int | None:
        return self._reader.regular_file_size()

    def open_at(self, offset: int, length: int | None = None) -> Source:
        """Bytes ``[offset, offset + length)`` of the file, read with pread."""
        if self.path == "-":
            return super().open_at(offset, length)
        return PreadSource(self.path, offset, length)

    def close(self) -> None:
        self._reader.close()


class BitTextStream(Source):
    """ASCII '0'/'1' characters (whitespace ignored), as NIST STS reads them.

    Eight characters make one byte, the first character its most significant
    bit, so the bit tests see the bits in the order written.  A length that
    is not a multiple of 8 leaves 1-7 bits for :meth:`read_bits`.
    """

    unit_bits = 1

    def __init__(self, path: str | Source, read_size: int = 1 << 20) -> None:
        """Read the text from a file or stdin ('-'), or from another byte Source
        (the Python API's bytes, file objects and chunks)."""
        if isinstance(path, Source):
            self._reader: _FdReader | Source = path
            self.name = path.name
        else:
            reader = _FdReader(path)
            self._reader = reader
            self.name = reader.display
        self._raw = bytearray(read_size)
        self._bits = np.zeros(0, dtype=np.uint8)  # parsed bits not yet handed out
        self._eof = False

    def _fill(self, want_bits: int) -> None:
        pieces, have = [self._bits], len(self._bits)
        while not self._eof and have < want_bits:
            got = self._reader.readinto(memoryview(self._raw))
            if got == 0:
                self._eof = True
                break
            chars = np.frombuffer(self._raw, dtype=np.uint8, count=got)
            chars = chars[~_SKIP[chars]]
            values = _BIT_VALUE[chars]
            bad = np.flatnonzero(values == 255)
            if len(bad):
                ch = chr(chars[bad[0]])
                raise InputError(f"{self.name}: --format bits expects only '0' and '1', found {ch!r}")
            pieces.append(values)
            have += len(values)
        # one concatenation per fill, not one per read
        self._bits = np.concatenate(pieces) if len(pieces) > 1 else pieces[0]

    def readinto(self, buffer: memoryview) -> int:
        want = 8 * len(buffer)
        self._fill(want)
        whole = min(len(self._bits), want) // 8 * 8
        if whole == 0:
            return 0
        packed = np.packbits(self._bits[:whole])
        buffer[: len(packed)] = packed
        self._bits = self._bits[whole:]
        return len(packed)

    def read_bits(self, max_bits: int) -> np.ndarray:
        self._fill(max_bits)
        taken, self._bits = self._bits[:max_bits], self._bits[max_bits:]
        return taken

    def close(self) -> None:
        self._reader.close()


class PreadSource(Source):
    """Bytes ``[offset, offset + length)`` of a regular file (to its end when
    ``length`` is None), read with ``pread``: no file position is shared, so
    any number of readers can use one file side by side."""

    def __init__(self, path: str, offset: int = 0, length: int | None = None) -> None:
        if offset < 0 or (length is not None and length < 0):
            raise ValueError("offset and length must be >= 0")
        self.fd, _owned, self.name = _open_input(path)
        if not _owned or not stat.S_ISREG(os.fstat(self.fd).st_mode):
            self.close()
            raise NotSplittable(f"{path}: not a regular file, so it can only be read in order")
        self.position = offset
        self.end = None if length is None else offset + length

    def readinto(self, buffer: memoryview) -> int:
        want = len(buffer) if self.end is None else max(0, min(len(buffer), self.end - self.position))
        if want == 0:
            return 0
        got = _pread_into(self.fd, memoryview(buffer)[:want], self.position)
        self.position += got
        return got

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _pread_into(fd: int, view: memoryview, offset: int) -> int:
    if hasattr(os, "preadv"):
        return os.preadv(fd, [view], offset)
    data = os.pread(fd, len(view), offset)
    view[: len(data)] = data
    return len(data)
