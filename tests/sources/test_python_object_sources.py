"""randqa.sources.python_objects: the Sources behind ``randqa.test``'s Python inputs.

Source: the module's docstring (what each kind of object gives).  Each is
read into small buffers that cut its chunks, words and calls anywhere, and
must give exactly its bytes in order; a few hundred bytes each.
"""

from __future__ import annotations

import numpy as np
import pytest

from randqa.sources import open_source
from randqa.sources.base import read_full
from randqa.sources.python_objects import (BufferSource, CallableSource, ChunkSource, FileObjectSource,
                                           bitgenerator_instance_source, python_object_source)

DATA = bytes(range(256)) * 3


def read_in_pieces(source, sizes=(1, 7, 64, 3, 1000)) -> bytes:
    out = bytearray()
    for size in sizes * 20:
        buffer = bytearray(size)
        got = read_full(source, memoryview(buffer))
        out += buffer[:got]
        if got < size:
            break
    return bytes(out)


class ReadOnly:
    """A file-like object with read() only, as some wrappers are."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def read(self, n: int) -> bytes:
        chunk = self.data[self.pos:self.pos + min(n, 5)]  # short reads, as pipes give
        self.pos += len(chunk)
        return chunk


@pytest.mark.parametrize("make", [
    lambda: BufferSource(DATA, "b"),
    lambda: BufferSource(np.frombuffer(DATA, np.uint8).reshape(3, 256), "a"),
    lambda: FileObjectSource(ReadOnly(DATA), "r"),
    lambda: ChunkSource([DATA[:100], b"", DATA[100:101], np.frombuffer(DATA[101:], np.uint8)], "c"),
], ids=["bytes", "2-D array", "read() only", "chunks"])
def test_data_sources_give_their_bytes_in_order(make):
    assert read_in_pieces(make()) == DATA


def test_a_callable_keeps_what_it_returned_beyond_a_read():
    calls = []

    def too_much(k: int) -> bytes:
        calls.append(k)
        start = 100 * (len(calls) - 1)
        return DATA[start:start + 100] if start < len(DATA) else b""

    source = CallableSource(too_much, "f")
    assert read_in_pieces(source, (30, 30)) == DATA and len(calls) == 9  # 8 calls of up to 100 bytes, then the end


def test_an_instance_keeps_the_tail_of_a_split_word():
    words = np.random.PCG64(1).random_raw(40).astype("<u8").tobytes()
    source = bitgenerator_instance_source(np.random.PCG64(1))
    assert read_in_pieces(source, (3, 5, 13))[:len(words)] == words


def test_names_and_kinds():
    assert python_object_source(b"x")[0].name == "bytes"
    assert python_object_source(bytearray(b"x"))[1] == "data"
    assert python_object_source(np.random.Generator(np.random.PCG64(2)))[1] == "instance"
    assert python_object_source(np.random.SFC64, seed=1)[0].name == "sfc64"
    assert open_source(lambda k: b"", name="mine").name == "mine"
    with pytest.raises(TypeError, match="read\\(\\) returned text"):
        read_in_pieces(FileObjectSource(type("T", (), {"read": lambda self, n: "01"})(), "t"))
