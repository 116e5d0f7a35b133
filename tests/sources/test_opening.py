"""open_source (sources/opening.py): one way to open names, paths, stdin and
Python objects, with one seed rule and one format rule."""

from __future__ import annotations

import re

import numpy as np
import pytest

from randqa.errors import UsageError
from randqa.sources import open_source, seed_for
from randqa.sources.base import read_full


def first_bytes(source, n: int = 64) -> bytes:
    buffer = bytearray(n)
    assert read_full(source, memoryview(buffer)) == n
    return bytes(buffer)


@pytest.mark.parametrize("kind, message", [
    ("file", "--seed applies to generator backends, not to stdin or files"),
    ("data", "not to data (bytes, arrays, files, chunks)"),
    ("instance", "not to a BitGenerator instance, which is tested from its current state"),
    ("callable", "not to a callable source"),
])
def test_a_seed_for_what_takes_none_is_refused_or_left_to_the_generators(kind, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        seed_for(kind, 7)
    assert seed_for(kind, 7, generators_only=True) is None
    assert seed_for(kind, None) is None
    assert seed_for("generator", 7) == seed_for("class", 7) == 7


def test_paths_and_objects_follow_the_same_rules(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(range(256)))
    with pytest.raises(UsageError, match="not to stdin or files"):
        open_source(str(path), seed=1)
    with pytest.raises(UsageError, match="not to data"):
        open_source(b"abc", seed=1)
    for generator in ("pcg64", np.random.PCG64(1)):
        with pytest.raises(UsageError, match="--format bits applies to stdin and files, not to generators"):
            open_source(generator, fmt="bits")
    with open_source(path, seed=1, generators_only=True) as source:
        assert source.seed is None and first_bytes(source, 16) == bytes(range(16))


def test_an_instance_still_at_its_seeds_start_opens_as_that_backend():
    with open_source(np.random.PCG64(5), name="mine") as given, open_source("pcg64", seed=5) as named:
        assert given.name == "mine" and given.seed == 5
        assert first_bytes(given) == first_bytes(named)
        assert given.split_method == "jump"
        assert first_bytes(given.open_at(24), 40) == first_bytes(open_source("pcg64", seed=5))[24:]


def test_folding_and_naming_apply_to_every_kind(tmp_path):
    data = np.random.default_rng(3).integers(0, 256, 4096, dtype=np.uint8)
    path = tmp_path / "data.bin"
    data.tofile(path)
    from_file = open_source(str(path), fold=(32, 4), name="file")
    from_bytes = open_source(data.tobytes(), fold=(32, 4), name="bytes")
    assert (from_file.name, from_bytes.name) == ("file[low4/32]", "bytes[low4/32]")
    assert first_bytes(from_file, 512) == first_bytes(from_bytes, 512)
    assert from_file.size == 4096 // 4 * 4 // 8 and from_bytes.size is None


def test_a_list_of_bitgenerators_is_their_streams():
    with open_source([np.random.PCG64(1), np.random.PCG64(2)], interleave=8) as streams:
        assert streams.name == "pcg64[2 streams, given]"
        assert first_bytes(streams, 16)[8:] == np.random.PCG64(2).random_raw(1).astype("<u8").tobytes()
    with pytest.raises(UsageError, match="take no seed"):
        open_source([np.random.PCG64(1), np.random.PCG64(2)], seed=3)
