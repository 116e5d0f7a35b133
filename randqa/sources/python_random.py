"""``python-random``: CPython's ``random.Random(seed)``, MT19937 seeded by
``init_by_array`` with the 32-bit limbs of ``abs(seed)``, least significant
first.  Its bytes are ``getrandbits(32*k).to_bytes(4*k, "little")``, which
is each 32-bit output as 4 little-endian bytes, in order (CPython fills
getrandbits' words from the least significant end).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from randqa.sources.base import GeneratorSource, Source
from randqa.sources.bitgenerators import _any_size_seed, _PendingBytes
from randqa.sources.jumps import mt19937_jump


class PythonRandomSource(GeneratorSource):
    """CPython's random.Random(seed) (MT19937, init_by_array) as 4-byte LE words."""

    word_bytes = 4

    def __init__(self, seed: int) -> None:
        self.name = "python-random"
        self.seed = seed
        self._rng = random.Random(seed)
        self._buffer = _PendingBytes()

    def _words(self, count: int) -> bytes:
        return self._rng.getrandbits(32 * count).to_bytes(4 * count, "little")

    def readinto(self, buffer: memoryview) -> int:
        return self._buffer.fill(buffer, 4, self._words)

    @property
    def can_jump(self) -> bool:
        return True

    def _jump(self, words: int) -> None:
        version, internal, gauss = self._rng.getstate()
        key = mt19937_jump(np.array(internal[:624], dtype=np.uint32), internal[624], words)
        self._rng.setstate((version, tuple(int(v) for v in key) + (0,), gauss))

    def describe(self) -> dict[str, Any]:
        data = super().describe()
        data.update(reproducible=True, algorithm="CPython random.Random (MT19937)",
                    output="32-bit outputs as 4 little-endian bytes (getrandbits(32k).to_bytes(4k, 'little'))",
                    seeding="random.Random(seed): init_by_array(32-bit limbs of seed, least significant first)")
        return data


def open_python_random(seed: int | None) -> Source:
    return PythonRandomSource(_any_size_seed("python-random", seed))
