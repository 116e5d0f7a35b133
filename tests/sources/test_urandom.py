"""The urandom backend survives what s2n-tls's PR fixed: its descriptor
closed under it, or another file put on that descriptor number.  It reads
the real device, retries on EINTR, and never loops forever."""

from __future__ import annotations

import errno
import os
import signal
import stat
import threading
from typing import Any, Callable

import numpy as np
import pytest

from randqa.errors import InputError
from randqa.sources import _urandom
from randqa.sources.backends import open_backend
from randqa.sources.urandom import UrandomSource


def within(seconds: float, action: Callable[[], Any]) -> Any:
    """Run ``action`` in a thread; fail (instead of hanging) if it takes too long."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = action()
        except BaseException as exc:  # handed back to the test
            outcome["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still running after {seconds} s: it hangs"
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def read(source: UrandomSource, n: int) -> np.ndarray:
    buffer = np.zeros(n, dtype=np.uint8)
    source.readinto(memoryview(buffer))
    return buffer


def looks_random(data: np.ndarray) -> bool:
    """All 256 byte values present in 64 KiB: device output, not a file of zeros."""
    return len(np.unique(data)) == 256


def test_urandom_reads_the_device():
    with open_backend("urandom") as source:
        held = os.fstat(source.reader.fd)
        assert stat.S_ISCHR(held.st_mode) and held.st_rdev == os.stat("/dev/urandom").st_rdev
        a, b = read(source, 1 << 16), read(source, 1 << 16)
        assert looks_random(a) and looks_random(b) and not np.array_equal(a, b)
        info = source.describe()
        assert info["reproducible"] is False and info["strategy"] == "check" and info["device"] == "/dev/urandom"


def test_closed_descriptor_is_reopened_and_the_stream_goes_on():
    source = UrandomSource()
    assert looks_random(read(source, 1 << 16))
    old = source.reader.fd
    os.close(old)  # someone closes "our" fd, as in s2n-tls issue #4324
    data = within(20, lambda: read(source, 1 << 16))
    assert looks_random(data)
    assert source.reader.reopens == 1
    assert stat.S_ISCHR(os.fstat(source.reader.fd).st_mode)
    source.close()


def test_another_file_on_the_descriptor_number_is_not_read(tmp_path):
    zeros = tmp_path / "zeros.bin"
    zeros.write_bytes(bytes(1 << 20))
    source = UrandomSource()
    read(source, 4096)
    number = source.reader.fd
    other = os.open(zeros, os.O_RDONLY)
    os.dup2(other, number)  # a regular file now sits on the cached fd number
    os.close(other)
    try:
        data = within(20, lambda: read(source, 1 << 16))
        assert looks_random(data), "read the regular file instead of the device"
        assert source.reader.reopens == 1 and source.reader.fd != number
        # the foreign descriptor is left alone: still the regular file, still open
        assert os.fstat(number).st_ino == os.stat(zeros).st_ino
        source.close()
        assert os.fstat(number).st_ino == os.stat(zeros).st_ino
    finally:
        os.close(number)


def test_the_cached_strategy_fails_fast_instead_of_looping(tmp_path):
    # the pre-fix behaviour (no identity check) must still end: an error, not a hang
    closed = _urandom.UrandomReader("/dev/urandom", "cached", 0)
    os.close(closed.fd)
    with pytest.raises(OSError) as info:
        within(20, lambda: closed.fill(bytearray(4096)))
    assert info.value.errno == errno.EBADF

    short = tmp_path / "short.bin"
    short.write_bytes(bytes(100))
    swapped = _urandom.UrandomReader("/dev/urandom", "cached", 0)
    other = os.open(short, os.O_RDONLY)
    os.dup2(other, swapped.fd)
    os.close(other)
    with pytest.raises(OSError, match="end of file"):
        within(20, lambda: swapped.fill(bytearray(4096)))
    os.close(swapped.fd)


def test_a_device_that_gives_nothing_ends_in_an_error_not_a_loop(tmp_path):
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    source = UrandomSource(path=str(empty))
    with pytest.raises(InputError, match="end of file"):
        within(20, lambda: read(source, 4096))
    assert source.reader.reopens == 1  # tried the path once more, then gave up
    source.close()


def test_reads_interrupted_by_signals_complete():
    caught = []
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: caught.append(signum))
    signal.setitimer(signal.ITIMER_REAL, 0.0005, 0.0005)
    try:
        with open_backend("urandom") as source:
            blocks = [within(30, lambda: read(source, 4 << 20)) for _ in range(8)]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
        signal.signal(signal.SIGALRM, previous)
    assert caught, "no signal arrived during the reads"
    for block in blocks:  # every block filled to its end, by the device
        assert looks_random(block[-(1 << 16):])


def test_strategies_give_device_bytes_and_leak_no_descriptors():
    before = len(os.listdir("/proc/self/fd"))
    for strategy in ("cached", "check", "reopen"):
        for call_bytes in (0, 16, 2048):
            reader = _urandom.UrandomReader("/dev/urandom", strategy, call_bytes)
            buffer = np.zeros(1 << 16, dtype=np.uint8)
            reader.fill(memoryview(buffer))
            assert looks_random(buffer)
            reader.close()
    assert len(os.listdir("/proc/self/fd")) == before


def test_urandom_read_size_parameter():
    with open_backend("urandom:16") as source:
        assert source.name == "urandom:16" and source.describe()["read_call_bytes"] == 16
        assert looks_random(read(source, 1 << 16))


def test_unknown_strategy_is_refused():
    with pytest.raises(ValueError, match="strategy"):
        _urandom.UrandomReader("/dev/urandom", "sometimes", 0)
