"""``randqa.test`` on every kind of source the API takes, and its errors.

Source: the sources the README's "From Python" section lists (names, paths, BitGenerator instances
and classes, bytes-like data, binary files, iterables of chunks, callables
f(k) -> bytes).  The same 64 KiB given as each kind must give the same
statistics and p-values (the quick suite); each kind with a wrong type, a
wrong size and an empty input raises the documented exception (TypeError,
ValueError, ValueError).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

import randqa

from schema_check import assert_valid_document

SIZE = 1 << 16
DATA = np.random.PCG64(3).random_raw(SIZE // 8).astype("<u8").tobytes()  # pcg64 seed 3's first 64 KiB


def statistics(result: randqa.Result) -> list[tuple[str, float | None, float | None]]:
    return [(t.name, t.statistic, t.pvalue) for t in result]


@pytest.fixture(scope="module")
def reference() -> randqa.Result:
    return randqa.test(DATA, suite="quick")


def _chunks():
    cuts = [0, 1, 1000, 1001, 40_000, SIZE]
    return (DATA[a:b] for a, b in zip(cuts, cuts[1:]))


@pytest.fixture(scope="module")
def data_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("d") / "data.bin"
    path.write_bytes(DATA)
    return path


SOURCES = {
    "bytes": lambda path: DATA,
    "bytearray": lambda path: bytearray(DATA),
    "memoryview": lambda path: memoryview(DATA),
    "memoryview of words": lambda path: memoryview(np.frombuffer(DATA, dtype="<u8")),
    "uint8 ndarray": lambda path: np.frombuffer(DATA, dtype=np.uint8),
    "2-D uint8 ndarray": lambda path: np.frombuffer(DATA, dtype=np.uint8).reshape(256, -1),
    "BytesIO": lambda path: io.BytesIO(DATA),
    "open file": lambda path: open(path, "rb"),
    "unbuffered file": lambda path: open(path, "rb", buffering=0),
    "list of chunks": lambda path: list(_chunks()),
    "generator of chunks": lambda path: _chunks(),
    "chunks as arrays": lambda path: [np.frombuffer(c, dtype=np.uint8) for c in _chunks()],
    "callable": lambda path: io.BytesIO(DATA).read,
    "path str": lambda path: str(path),
    "pathlib.Path": lambda path: path,
}


@pytest.mark.parametrize("make", SOURCES.values(), ids=SOURCES.keys())
def test_every_data_kind_tests_the_same_bytes(make, reference, data_path):
    source = make(data_path)
    n = SIZE if callable(source) and not isinstance(source, type) else None
    result = randqa.test(source, n, suite="quick")
    assert result.bytes_tested == SIZE
    assert statistics(result) == statistics(reference)
    assert_valid_document(result.to_json())
    if hasattr(source, "closed"):
        assert not source.closed  # the caller's file stays open
        source.close()


def test_generators_by_instance_class_and_name_test_the_same_bytes(reference):
    runs = [randqa.test(np.random.PCG64(3), SIZE, suite="quick"),
            randqa.test(np.random.PCG64, SIZE, seed=3, suite="quick"),
            randqa.test("pcg64", SIZE, seed=3, suite="quick"),
            randqa.test(np.random.Generator(np.random.PCG64(3)), SIZE, suite="quick")]
    for run in runs:
        assert statistics(run) == statistics(reference)
        assert (run.name, run.seed) == ("pcg64", 3)  # a fresh instance of a known class is that backend
        assert_valid_document(run.to_json())


def test_an_instance_is_tested_from_its_current_state(reference):
    bitgen = np.random.PCG64(3)
    bitgen.random_raw(1)  # past the start: no longer "pcg64 seed 3"
    run = randqa.test(bitgen, SIZE - 8, suite="quick")
    expected = randqa.test(DATA[8:], suite="quick")
    assert statistics(run) == statistics(expected)
    assert run.name == "numpy.random.PCG64" and run.seed is None
    assert run.source["reproducible"] is False
    fresh = np.random.PCG64(3)
    fresh.random_raw(SIZE // 8)
    assert bitgen.random_raw() == fresh.random_raw()  # advanced by exactly what was read


def test_an_unknown_bitgenerator_class_and_a_32_bit_instance():
    class Counter(np.random.PCG64):
        """A PCG64 under another name: randqa does not know it, so it names it by its class."""

    run = randqa.test(Counter, 4096, seed=9, suite="quick")
    assert run.name.endswith("Counter") and run.seed == 9 and run.source["seeding"].endswith("(9)")
    mt = randqa.test(np.random.MT19937(5), 4096, suite="quick")
    assert mt.name == "mt19937-numpy" and "4 little-endian bytes" in mt.source["output"]


def test_callables_are_endless_generators():
    calls = []

    def counter(k: int) -> bytes:
        calls.append(k)
        return np.random.default_rng(len(calls)).bytes(k)

    run = randqa.test(counter, "3M", suite="quick")
    assert run.bytes_tested == 3 << 20 and max(calls) <= 1 << 20
    assert run.name.endswith("counter") and run.source["reproducible"] is False
    default = randqa.test(lambda k: bytes(k), suite="quick", tests="frequency")
    assert default.bytes_tested == 64 << 20  # a generator's default, as the CLI's
    short = randqa.test(io.BytesIO(b"\x55" * 5000).read, 10_000, suite="quick")
    assert short.bytes_tested == 5000 and short.notes[0].startswith("input ended after 5000 bytes")


def test_names_and_options_reach_the_source(data_path):
    named = randqa.test(DATA, suite="quick", name="my data")
    assert named.name == "my data"
    folded = randqa.test(DATA, suite="quick", word_bits=16, low_bits=1, name="d")
    assert folded.name == "d[low1/16]" and folded.bytes_tested == SIZE // 16
    assert folded.source["folding"] == {"word_bits": 16, "low_bits": 1}
    text = "".join(np.random.default_rng(1).choice(["0", "1"], 20_001))
    bits = randqa.test(text.encode(), suite="quick", format="bits")
    assert bits.bits_tested == 20_001 and "bits_requested" in bits.to_json()
    progressive = randqa.test(io.BytesIO(DATA), suite="quick", progressive=True, min="8K")
    assert [step["bytes"] for step in progressive.to_json()["lengths"]] == [8192, 16384, 32768, 65536]
    sweep = randqa.test(np.random.PCG64, seed_sweep=20, positions=8, seed=4)
    assert sweep.name == "pcg64" and sweep.to_json()["seed_sweep"]["base_seed"] == 4


BAD_TYPES = {
    "object": (object(), "source must be a backend name"),
    "int": (5, "got int"),
    "None": (None, "got NoneType"),
    "dict": ({"a": b"x"}, "got dict"),
    "float array": (np.zeros(8), "numpy array of float64"),
    "text chunk": (["abc"], "chunk 1 of chunks is str"),
    "text file": (io.StringIO("0101"), "open it in binary mode"),
    "callable returning text": (lambda k: "x" * k, "is str, not bytes"),
    "non-contiguous view": (memoryview(bytes(64)).cast("B", (8, 8))[::2], "not C-contiguous"),
}


@pytest.mark.parametrize("source, message", BAD_TYPES.values(), ids=BAD_TYPES.keys())
def test_a_wrong_type_raises_type_error(source, message):
    with pytest.raises(TypeError, match=message):
        randqa.test(source, 4096, suite="quick")


KINDS = {
    "name": "pcg64", "path": None, "bytes": DATA, "ndarray": np.frombuffer(DATA, dtype=np.uint8),
    "file": None, "chunks": None, "callable": None, "instance": None, "class": np.random.PCG64,
}


def _make(kind: str, data_path: Path):
    makers = {"path": lambda: str(data_path), "file": lambda: io.BytesIO(DATA), "chunks": lambda: list(_chunks()),
              "callable": lambda: io.BytesIO(DATA).read, "instance": lambda: np.random.PCG64(1)}
    return makers[kind]() if kind in makers else KINDS[kind]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n, error, message", [
    ("12Q", ValueError, "invalid size '12Q'"),
    (0, ValueError, "invalid size '0': must be greater than zero"),
    (-3, ValueError, "invalid size '-3'"),
    (1.5, TypeError, "n must be a whole number of bytes or a size string"),
    (True, TypeError, "not bool"),
])
def test_a_wrong_size_raises(kind, n, error, message, data_path):
    with pytest.raises(error, match=message):
        randqa.test(_make(kind, data_path), n, suite="quick")


EMPTY = {
    "bytes": b"", "bytearray": bytearray(), "memoryview": memoryview(b""), "ndarray": np.empty(0, np.uint8),
    "file object": io.BytesIO(b""), "list": [], "iterator": iter([b"", b""]), "callable": lambda k: b"",
}


@pytest.mark.parametrize("source", EMPTY.values(), ids=EMPTY.keys())
def test_an_empty_input_raises_value_error(source):
    with pytest.raises(ValueError, match=r"no data \(empty input\)$"):
        randqa.test(source, suite="quick")


def test_an_empty_file_raises_value_error(tmp_path):
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match=f"{empty}: no data"):
        randqa.test(empty, suite="quick")
    with open(empty, "rb") as f, pytest.raises(ValueError, match="no data"):
        randqa.test(f, suite="quick")


@pytest.mark.parametrize("source, kwargs, message", [
    (DATA, {"seed": 1}, "--seed applies to generator names and BitGenerator classes, not to data"),
    (np.random.PCG64(1), {"seed": 1}, "tested from its current state"),
    (np.random.PCG64(1), {"format": "bits"}, "--format bits applies to stdin and files, not to generators"),
    (DATA, {"seed_sweep": 10}, "--seed-sweep needs a generator backend"),
    ("pcg64", {"seed_sweep": 10, "n": 1024}, "--seed-sweep reads --positions bytes of each seeded stream"),
    ("no-such-generator", {}, "unknown source 'no-such-generator'"),
    ("pcg64", {"suite": "nope"}, "unknown suite 'nope'"),
    ("pcg64", {"threads": 0}, r"^Invalid value for threads: 0 is not in the range 1<=x<=256\.$"),
])
def test_bad_combinations_raise_value_error(source, kwargs, message):
    with pytest.raises(ValueError, match=message):
        randqa.test(source, **kwargs)


@pytest.mark.parametrize("kwargs, message", [
    ({"seed": "7"}, "seed must be a whole number, not str"),
    ({"threads": 1.0}, "threads must be a whole number, not float"),
    ({"jobs": 1.0}, "jobs must be a whole number, not float"),
    ({"progressive": "yes"}, "progressive must be True or False"),
    ({"tests": 5}, "tests must be a comma-separated string or a list"),
    ({"json": 3}, "json must be a path"),
    ({"suite": None}, "suite must be a string"),
])
@pytest.mark.filterwarnings(r"ignore:randqa\.test\(jobs=:DeprecationWarning")  # its deprecated cases
def test_options_of_the_wrong_type_raise_type_error(kwargs, message):
    with pytest.raises(TypeError, match=message):
        randqa.test("pcg64", 4096, **kwargs)


@pytest.mark.parametrize("function, source, kwargs", [
    (randqa.test, "pcg64", {}),
    (randqa.compare, ["pcg64"], {"progressive": False, "speed_repeats": 1, "predict": False}),
])
def test_jobs_is_the_deprecated_name_of_threads(function, source, kwargs):
    with pytest.warns(DeprecationWarning, match=r"jobs=\.\.\.\) is deprecated: use threads="):
        old = function(source, "64K", seed=1, suite="quick", jobs=2, **kwargs)
    new = function(source, "64K", seed=1, suite="quick", threads=2, **kwargs)
    pairs = list(zip(getattr(old, "runs", [old]), getattr(new, "runs", [new])))
    assert pairs and all(mine.to_json()["tests"] == theirs.to_json()["tests"] for mine, theirs in pairs)
    assert "threads=2" in json.dumps(old.to_json())  # the call as the report records it
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="give threads, not both threads and jobs"):
        function(source, "64K", jobs=2, threads=3, **kwargs)
