"""Mersenne Twister state recovery by inverting the tempering.

Sources: M. Matsumoto and T. Nishimura, "Mersenne Twister: a 623-
dimensionally equidistributed uniform pseudo-random number generator",
ACM TOMACS 8 (1998) 3-30 (MT19937); T. Nishimura, "Tables of 64-bit
Mersenne Twisters", ACM TOMACS 10 (2000) 348-357 (MT19937-64).  The attack
itself is folklore, e.g. the cryptopals challenge 23 "Clone an MT19937 RNG
from its output".

Formula.  Each output is T(x_k), where T (the tempering) is a product of
invertible maps y -> y ^ ((y >> s) & b) and y -> y ^ ((y << t) & c).
Inverting T on n consecutive outputs gives n consecutive state words, and
the state words obey x_{k+n} = x_{k+m} ^ A(upper(x_k) | lower(x_{k+1})),
with A(y) = (y >> 1) ^ (a if y is odd).  So n outputs (624 of 32 bits, or
312 of 64 bits) give the whole state and every later output.  More
observed words than n are checked against the recurrence, which decides
between the 32- and 64-bit generators (2,496 bytes are n words of both).

Covers MT19937 (C reference, C++ std::mt19937, numpy's MT19937), CPython's
``random`` (whose 32-bit outputs are MT19937's, whatever the seeding) and
MT19937-64 (std::mt19937_64).

Minimum data: 2,496 bytes (624 x 4 = 312 x 8), at word boundaries.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from randqa.predict.base import Fit, NoFit, Predictor, bytes_of, words_of


@dataclass(frozen=True)
class MTParams:
    name: str
    word_bytes: int
    n: int
    m: int
    matrix_a: int
    lower_bits: int
    #: tempering: (u, d), (s, b), (t, c), l
    u: int
    d: int
    s: int
    b: int
    t: int
    c: int
    l: int

    @property
    def bits(self) -> int:
        return 8 * self.word_bytes

    @property
    def lower_mask(self) -> int:
        return (1 << self.lower_bits) - 1

    @property
    def upper_mask(self) -> int:
        return ((1 << self.bits) - 1) ^ self.lower_mask


MT19937 = MTParams("mt19937", 4, 624, 397, 0x9908B0DF, 31, 11, 0xFFFFFFFF, 7, 0x9D2C5680, 15, 0xEFC60000, 18)
MT19937_64 = MTParams("mt19937-64", 8, 312, 156, 0xB5026F5AA96619E9, 31, 29, 0x5555555555555555, 17,
                      0x71D67FFFEDA60000, 37, 0xFFF7EEE000000000, 43)
VARIANTS = (MT19937, MT19937_64)


def _u(v: int) -> np.uint64:
    return np.uint64(v)


def temper(x: np.ndarray, p: MTParams) -> np.ndarray:
    full = _u((1 << p.bits) - 1)
    y = x ^ ((x >> _u(p.u)) & _u(p.d))
    y ^= (y << _u(p.s)) & _u(p.b)
    y ^= (y << _u(p.t)) & _u(p.c)
    y ^= y >> _u(p.l)
    return y & full


def _undo_right(y: np.ndarray, shift: int, mask: int, bits: int) -> np.ndarray:
    x = y.copy()
    for _ in range(bits // shift + 1):
        x = y ^ ((x >> _u(shift)) & _u(mask))
    return x


def _undo_left(y: np.ndarray, shift: int, mask: int, bits: int) -> np.ndarray:
    full = _u((1 << bits) - 1)
    x = y.copy()
    for _ in range(bits // shift + 1):
        x = (y ^ ((x << _u(shift)) & _u(mask))) & full
    return x


def untemper(y: np.ndarray, p: MTParams) -> np.ndarray:
    """The state words whose tempered values are ``y`` (uint64 array)."""
    x = _undo_right(y, p.l, (1 << p.bits) - 1, p.bits)
    x = _undo_left(x, p.t, p.c, p.bits)
    x = _undo_left(x, p.s, p.b, p.bits)
    return _undo_right(x, p.u, p.d, p.bits)


def _next_words(first: np.ndarray, second: np.ndarray, far: np.ndarray, p: MTParams) -> np.ndarray:
    y = (first & _u(p.upper_mask)) | (second & _u(p.lower_mask))
    return far ^ (y >> _u(1)) ^ np.where(y & _u(1), _u(p.matrix_a), _u(0))


def recurrence_breaks(x: np.ndarray, p: MTParams) -> int:
    """How many of the words after the first n break the twist recurrence."""
    k = len(x) - p.n
    if k <= 0:
        return 0
    expected = _next_words(x[:k], x[1:k + 1], x[p.m:p.m + k], p)
    return int(np.count_nonzero(expected != x[p.n:]))


def extend_state(x: np.ndarray, count: int, p: MTParams) -> np.ndarray:
    """The next ``count`` state words after ``x`` (at least n words), in blocks of n - m."""
    out = np.empty(p.n + count, dtype=np.uint64)
    out[: p.n] = x[-p.n:]
    pos = p.n
    while pos < p.n + count:
        step = min(p.n - p.m, p.n + count - pos)
        k = pos - p.n
        out[pos:pos + step] = _next_words(out[k:k + step], out[k + 1:k + 1 + step], out[k + p.m:k + p.m + step], p)
        pos += step
    return out[p.n:]


@dataclass
class MTFit(Fit):
    params: MTParams = MT19937
    state: np.ndarray | None = None
    #: observed bytes after the last whole word
    skip: int = 0

    def predict(self, nbytes: int) -> np.ndarray:
        w = self.params.word_bytes
        count = -(-(nbytes + self.skip) // w)
        out = bytes_of(temper(extend_state(self.state, count, self.params), self.params), w)
        return out[self.skip:self.skip + nbytes]


class MersenneTwisterPredictor(Predictor):
    """Untempering n consecutive outputs of MT19937 or MT19937-64."""

    name = "mt19937"
    summary = "MT19937 / MT19937-64 / CPython random state from n outputs by inverting the tempering"
    min_observed_bytes = MT19937.n * 4
    max_observed_bytes = 1 << 16
    granularity = 4

    def fit(self, observed: np.ndarray) -> Fit | NoFit:
        reasons = []
        for p in VARIANTS:
            y = words_of(observed, p.word_bytes)
            if len(y) < p.n:
                reasons.append(f"{p.bits}-bit: needs {p.n * p.word_bytes} bytes")
                continue
            x = untemper(y, p)
            breaks = recurrence_breaks(x, p)
            if breaks:
                reasons.append(f"{p.bits}-bit: {breaks} of {len(x) - p.n} words")
                continue
            state = x[-p.n:]
            structure = {
                "summary": f"{p.name} state recovered from {p.n} outputs"
                           + (f", {len(x) - p.n} more words follow it" if len(x) > p.n else ""),
                "generator": p.name,
                "state_words": p.n,
                "state_head": [f"{int(v):#x}" for v in state[:3]],
            }
            usable = len(y) * p.word_bytes
            return MTFit(structure, needed_bytes=p.n * p.word_bytes, params=p, state=state,
                         skip=len(observed) - usable)
        return NoFit("twist recurrence broken (" + "; ".join(reasons) + ")")
