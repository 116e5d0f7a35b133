"""What every predictor provides, and the helpers they share.

A predictor looks only at an observed prefix of a stream.  ``fit(observed)``
reconstructs what it can (a recurrence, constants, a state, a seed) and
returns a :class:`Fit`, or a :class:`NoFit` saying why its structure is not
in the prefix;
``Fit.predict(n)`` then gives the n bytes that follow the prefix, which the
runner (randqa.predict.runner) compares with the real ones.  A predictor
never sees the bytes it is checked on.

Words are read little-endian, as randqa's backends write them (see
randqa/sources/backends.py).  The runtimes' backends write each call's b
bits packed, least significant bit first (randqa/sources/runtimes/), which
for b = 8, 16, 32 and 64 is the same as little-endian words:
:func:`values_of` and :func:`packed_bytes` read and write both.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: numpy dtypes of little-endian unsigned words, by width in bytes
WORD_DTYPES: dict[int, np.dtype] = {1: np.dtype("u1"), 2: np.dtype("<u2"), 4: np.dtype("<u4"), 8: np.dtype("<u8")}


def words_of(data: np.ndarray | bytes, word_bytes: int) -> np.ndarray:
    """The whole little-endian words of ``data`` (a trailing partial word is dropped), as uint64."""
    raw = np.frombuffer(data, dtype=np.uint8) if isinstance(data, (bytes, bytearray)) else data
    n = len(raw) // word_bytes
    return raw[: n * word_bytes].view(WORD_DTYPES[word_bytes]).astype(np.uint64)


def bytes_of(words: np.ndarray, word_bytes: int) -> np.ndarray:
    """uint64 words written as little-endian words of ``word_bytes`` bytes (uint8 array)."""
    return np.asarray(words, dtype=np.uint64).astype(WORD_DTYPES[word_bytes]).view(np.uint8)


def values_of(data: np.ndarray | bytes, bits: int) -> np.ndarray:
    """The whole ``bits``-bit values (1 to 64 bits) packed least significant bit
    first in ``data``, as uint64 (a trailing partial value is dropped)."""
    raw = np.frombuffer(data, dtype=np.uint8) if isinstance(data, (bytes, bytearray)) else data
    if bits in (8, 16, 32, 64):
        return words_of(raw, bits // 8)
    n = 8 * len(raw) // bits
    stream = np.unpackbits(raw[: -(-n * bits // 8)], bitorder="little")[: n * bits].reshape(n, bits)
    padded = np.zeros((n, 64), dtype=np.uint8)
    padded[:, :bits] = stream
    return np.packbits(padded, axis=1, bitorder="little").view("<u8").ravel().astype(np.uint64)


def packed_bytes(values: np.ndarray, bits: int, skip_bits: int = 0) -> np.ndarray:
    """``bits``-bit values packed least significant bit first, without the first
    ``skip_bits`` bits, as uint8 (a last partial byte is padded with zeros)."""
    values = np.asarray(values, dtype=np.uint64)
    if bits in (8, 16, 32, 64) and skip_bits % 8 == 0:
        return bytes_of(values, bits // 8)[skip_bits // 8:]
    stream = np.unpackbits(values.astype("<u8").view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    return np.packbits(stream[:, :bits].ravel()[skip_bits:], bitorder="little")


def continuation(observed_bytes: int, bits: int, nbytes: int) -> tuple[int, int]:
    """For a prediction of ``nbytes`` after ``observed_bytes`` of ``bits``-bit
    packed values: (how many values to generate from the first not wholly
    observed, the bits of that first value that were observed).  Generate
    them, then ``packed_bytes(values, bits, skip_bits)[:nbytes]``."""
    whole = 8 * observed_bytes // bits
    skip_bits = 8 * observed_bytes - whole * bits
    return -(-(8 * nbytes + skip_bits) // bits), skip_bits


def shorten(values: list[int], keep: int = 6) -> str:
    """A long list for display: its first and last items around an ellipsis."""
    if len(values) <= keep:
        return ", ".join(str(v) for v in values)
    half = keep // 2
    return ", ".join(str(v) for v in values[:half]) + f", ... ({len(values)} in all) ..., " + ", ".join(
        str(v) for v in values[-half:])


@dataclass
class Fit(ABC):
    """What a predictor reconstructed from an observed prefix."""

    #: the recovered structure, JSON-ready and short (recurrence, constants,
    #: state, seed), with a one-line "summary" for the terminal
    structure: dict[str, Any]
    #: the shortest prefix from which this predictor provably reconstructs the
    #: same model (the runner re-fits there and checks again), or None
    needed_bytes: int | None = field(default=None, kw_only=True)

    @abstractmethod
    def predict(self, nbytes: int) -> np.ndarray:
        """The ``nbytes`` bytes that follow the observed prefix, as uint8."""

    def describe_check(self, predicted: np.ndarray, actual: np.ndarray) -> dict[str, Any]:
        """Extra structure learnt from the check (e.g. which bit positions were exact); empty by default."""
        return {}


@dataclass
class NoFit:
    """Why a prefix gave no model (shown as the structure when nothing fitted)."""

    reason: str
    #: what was looked for, for the JSON structure
    details: dict[str, Any] = field(default_factory=dict)


class Predictor(ABC):
    """One way of reconstructing a generator from its output."""

    #: name in reports and in ``predictors=[...]``
    name: str = "predictor"
    #: the literature it follows, shown in ``randqa predict --help``-style listings
    summary: str = ""
    #: the smallest prefix worth trying, in bytes
    min_observed_bytes: int = 8
    #: the largest prefix worth trying (its cost bound), in bytes
    max_observed_bytes: int = 1 << 16
    #: prefix sizes are multiples of this (its word size)
    granularity: int = 1
    #: refits are cheap enough to bisect between a failing and a succeeding prefix
    bisect: bool = True

    @abstractmethod
    def fit(self, observed: np.ndarray) -> Fit | NoFit:
        """Reconstruct from ``observed`` (uint8 array) alone, or say why its structure is not there."""
