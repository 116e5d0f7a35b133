"""Speed as applications call it: the libc shim calls the real rand().

The reference is libc itself, through ctypes: ``srand(s)`` then ``rand()``
in the same process.  The shim (``_as_called.libc_rand_fill``) must give the
same first outputs for every mode, so what randqa times for ``glibc-rand*``
is libc's generator, called once per output; and randqa's own
reimplementation, which the tests read, must still give libc's bytes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import platform

import numpy as np
import pytest

from randqa.sources.backends import open_backend
from randqa.sources.base import read_full
from randqa.speed import _as_called, as_called as as_called_module
from randqa.speed.as_called import COMPILED_METHOD, LibcRandSource, as_called, as_called_speed, speed_method

SEEDS = [0, 1, 42, 2**31 - 1, 2**31, 2**32 - 1]
#: mode -> (backend, bytes per output, mask, numpy dtype)
MODES = {0: ("glibc-rand", 4, 0xFFFFFFFF, "<u4"), 1: ("glibc-rand-byte", 1, 0xFF, "u1"), 2: ("glibc-rand-short", 2, 0xFFFF, "<u2")}


def libc() -> ctypes.CDLL:
    lib = ctypes.CDLL(ctypes.util.find_library("c"))
    lib.srand.argtypes = [ctypes.c_uint]
    lib.rand.restype = ctypes.c_int
    return lib


def libc_outputs(seed: int, count: int, mask: int) -> list[int]:
    lib = libc()
    lib.srand(seed)
    return [lib.rand() & mask for _ in range(count)]


def shim_outputs(seed: int, count: int, mode: int) -> list[int]:
    _, width, _, dtype = MODES[mode]
    buffer = np.zeros(count * width, dtype=np.uint8)
    _as_called.libc_rand_fill(buffer, mode, seed=seed)
    return buffer.view(dtype).tolist()


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("seed", SEEDS)
def test_shim_first_outputs_equal_libc_rand(seed, mode):
    _, _, mask, _ = MODES[mode]
    assert shim_outputs(seed, 1000, mode) == libc_outputs(seed, 1000, mask)


def test_shim_without_a_seed_continues_libc_state():
    first = shim_outputs(5, 10, 1)
    buffer = np.zeros(10, dtype=np.uint8)
    _as_called.libc_rand_fill(buffer, 1)
    assert first + buffer.tolist() == libc_outputs(5, 20, 0xFF)


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="randqa reimplements glibc's rand()")
@pytest.mark.parametrize("seed", [1, 7, 12345, 2**32 - 1])
def test_bytes_randqa_tests_equal_libc_rand(seed):
    for mode, (name, width, mask, dtype) in MODES.items():
        tested = bytearray(3000 * width)
        with open_backend(name, seed) as source:
            read_full(source, memoryview(tested))
        expected = libc_outputs(seed, 3000, mask)
        assert np.frombuffer(bytes(tested), dtype=dtype).tolist() == expected, name
        assert shim_outputs(seed, 3000, mode) == expected, name


def test_libc_rand_source_keeps_words_split_by_reads():
    whole = bytearray(1001)
    LibcRandSource("glibc-rand", 9).readinto(memoryview(whole))
    source = LibcRandSource("glibc-rand", 9)
    pieces = bytearray()
    for size in (3, 1, 6, 991):
        part = bytearray(size)
        source.readinto(memoryview(part))
        pieces += part
    assert pieces == whole
    assert np.frombuffer(bytes(whole[:1000]), dtype="<u4").tolist() == libc_outputs(9, 250, 0xFFFFFFFF)


def test_shim_refuses_bad_input():
    with pytest.raises(ValueError, match="mode"):
        _as_called.libc_rand_fill(bytearray(4), 3)
    with pytest.raises(ValueError, match="multiple of 2"):
        _as_called.libc_rand_fill(bytearray(3), 2)
    with pytest.raises(ValueError, match="2\\*\\*32"):
        _as_called.libc_rand_fill(bytearray(4), 0, seed=2**32)
    with pytest.raises(TypeError):
        _as_called.libc_rand_fill(b"read-only", 1)


def test_glibc_rand_byte_speed_is_timed_through_the_libc_shim(monkeypatch):
    path = as_called("glibc-rand-byte", 3)
    assert path.method == "libc rand(), one call per byte" and not path.tested_path
    with path.open() as source:
        assert isinstance(source, LibcRandSource)
    timed: list[int] = []
    real = _as_called.libc_rand_fill

    def counting(buffer, mode, seed=None):
        timed.append(len(buffer))
        assert mode == 1
        return real(buffer, mode, seed=seed)

    monkeypatch.setattr(as_called_module._as_called, "libc_rand_fill", counting)
    result = as_called_speed("glibc-rand-byte", 1 << 20, repeats=2, seed=3)
    # the warm-up read, then two runs of 1 MiB, all through libc's rand()
    assert sum(timed) == (1 << 16) + 2 * (1 << 20)
    assert result.method == path.method and len(result.speed.rates) == 2
    # randqa's reimplementation is timed apart, as the feed rate
    assert result.generation_is_separate and len(result.generation.rates) == 2


def test_other_generators_are_timed_on_the_path_randqa_tests():
    for name in ("dnet-arc4", "openssl", "urandom", "pcg64"):
        path = as_called(name, 1)
        assert path.tested_path, name
    assert speed_method("dnet-arc4") == speed_method("msvc-rand-byte") == COMPILED_METHOD
    assert "RAND_bytes" in speed_method("openssl")
    assert "/dev/urandom" in speed_method("urandom") and "16 B per call" in speed_method("urandom:16")
    assert "random_raw" in speed_method("pcg64")
    with pytest.raises(KeyError):
        as_called("no-such-generator", 1)
