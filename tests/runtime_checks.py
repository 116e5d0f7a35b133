"""What every runtime's tests (tests/sources/test_runtime_<runtime>.py) check
the same way: a backend's values read back from its stream, and its live
twin against randqa's C byte for byte on a seed drawn for the run.

A runtime backend's stream packs each call's b bits from the least
significant, eight calls to a word of b bytes (randqa/sources/runtimes/
__init__.py), so the stream read as one little-endian integer holds value k
in bits [k b, (k + 1) b).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from randqa.sources.backends import open_backend
from randqa.sources.base import read_full
from randqa.sources.runtimes import driver_for, find_runtime_backend


def read_stream(name: str, seed: int | None, nbytes: int) -> bytes:
    """The first ``nbytes`` of backend ``name``'s stream."""
    buffer = bytearray(nbytes)
    with open_backend(name, seed) as source:
        assert read_full(source, memoryview(buffer)) == nbytes
    return bytes(buffer)


def unpack_values(data: bytes, bits: int) -> list[int]:
    """The ``bits``-bit values packed in ``data``, first value lowest."""
    values: list[int] = []
    # a word of `bits` bytes holds eight values: unpacking word by word keeps
    # this linear in the length (one shift of the whole stream per value is not)
    for start in range(0, len(data), bits):
        word = data[start:start + bits]
        whole = int.from_bytes(word, "little")
        values.extend((whole >> (k * bits)) & ((1 << bits) - 1) for k in range(len(word) * 8 // bits))
    return values


def signed(value: int, bits: int) -> int:
    """A ``bits``-bit two's-complement value as a Python int."""
    return value - (1 << bits) if value >> (bits - 1) else value


def backend_values(name: str, seed: int, count: int) -> list[int]:
    """The first ``count`` values backend ``name`` writes for ``seed`` (whole words read)."""
    backend = find_runtime_backend(name)
    assert backend is not None
    bits = backend.bits_per_call
    words = -(-count // 8)
    return unpack_values(read_stream(name, seed, words * bits), bits)[:count]


def values_at(name: str, seed: int, indices: tuple[int, ...]) -> list[int]:
    """The values backend ``name`` writes for ``seed`` at call ``indices``
    (from 0): what a known answer printed by the runtime pins."""
    values = backend_values(name, seed, max(indices) + 1)
    return [values[i] for i in indices]


def known_answers(table: str) -> dict[str, dict[int, list]]:
    """A table of known answers too long to read as code,
    tests/data/known_answers/``table``.json: backend, then seed (JSON keys
    are text), then the values the runtime printed, as it printed them."""
    path = Path(__file__).parent / "data" / "known_answers" / f"{table}.json"
    return {name: {int(seed): values for seed, values in seeds.items()}
            for name, seeds in json.loads(path.read_text()).items()}


def known_answers_test(name: str, indices: tuple[int, ...], answers: dict[int, list[int]]):
    """The test that backend ``name``'s values at ``indices`` are the ones its
    runtime printed, one case a seed of ``answers``:
    ``test_x_equals_runtime = known_answers_test(NAME, INDICES, ANSWERS)``."""

    @pytest.mark.parametrize("seed", sorted(answers))
    def test_known_answers(seed: int) -> None:
        assert values_at(name, seed, indices) == answers[seed]

    return test_known_answers


def skip_unless_installed(name: str) -> None:
    """Skip the test when the runtime behind backend ``name`` is not installed."""
    driver = driver_for(name)
    if not driver.available():
        pytest.skip(f"{driver.name} is not installed ({driver.missing_program()} not on PATH)")


def assert_live_equals_compiled(name: str, nbytes: int) -> None:
    """``name``-live and ``name`` write the same ``nbytes`` for a seed drawn
    now (the seed is in the failure message, to reproduce it)."""
    skip_unless_installed(name)
    backend = find_runtime_backend(name)
    assert backend is not None
    seed = backend.resolve_seed(None)
    live = read_stream(name + "-live", seed, nbytes)
    compiled = read_stream(name, seed, nbytes)
    if live != compiled:
        first = next(k for k in range(nbytes) if live[k] != compiled[k])
        pytest.fail(f"{name}-live and {name} differ from byte {first} on with --seed {seed}")
