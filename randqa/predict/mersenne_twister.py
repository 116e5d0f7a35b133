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

Covers MT19937 (C reference, C++ std::mt19937, numpy's MT19937, R's and
Ruby's default generators), CPython's ``random`` (whose 32-bit outputs are
MT19937's, whatever the seeding) and MT19937-64 (std::mt19937_64).

PHP's mt_rand() (ext/standard/mt_rand.c, PHP 7.1 and later in its default
MT_RAND_MT19937 mode) returns the tempered word shifted right by one, 31
bits, so each output hides one bit b_k: x_k = T^-1(2 y_k) ^ b_k T^-1(1), T^-1
being linear over GF(2).  The recurrence for x_(k+624) then involves only
b_(k+1) (through the low 31 bits of x_(k+1); T^-1(1) has bit 31 clear, so
b_k never reaches upper(x_k)) and b_(k+397) ^ b_(k+624): of the 4 values of
those two unknowns, one satisfies all 32 equations.  So
n - 624 outputs give b_1 .. b_(n-624), and 2 x 624 - 1 outputs give a whole
state window x_0 .. x_623 (x_0's hidden bit is never used).  The runtime
backends write the 31 bits packed (randqa/sources/runtimes/).

Minimum data: 2,496 bytes (624 x 4 = 312 x 8), at word boundaries; PHP's
mt_rand(): 1,247 outputs of 31 bits, 4,833 bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from randqa.predict.base import Fit, NoFit, Predictor, bytes_of, continuation, packed_bytes, values_of, words_of


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


#: PHP's mt_rand(): 31 bits per output
DROPPED_BIT_VALUE_BITS = 31
DROPPED_BIT_MIN_OUTPUTS = 2 * MT19937.n - 1


def hidden_low_bits(y: np.ndarray) -> np.ndarray | None:
    """The dropped low bits b_1 .. b_(n-624) of MT19937 outputs shifted right
    by one (``y``, uint64), or None when some relation admits no choice or more
    than one (not such a stream).  Index 0 of the result is b_0, left 0."""
    p = MT19937
    n = len(y)
    k = n - p.n
    base = untemper(y << _u(1), p)
    flip = untemper(np.array([1], dtype=np.uint64), p)[0]
    # each relation x_(k+624) = x_(k+397) ^ A(upper(x_k) | lower(x_(k+1))) depends on b_(k+1) and on
    # b_(k+397) ^ b_(k+624) alone: which of their 4 values hold it
    holds = np.zeros((4, k), dtype=bool)
    for choice in range(4):
        first = base[1:k + 1] ^ (flip if choice & 1 else _u(0))
        far = base[p.m:p.m + k] ^ (flip if choice & 2 else _u(0))
        holds[choice] = _next_words(base[:k], first, far, p) == base[p.n:p.n + k]
    if not np.all(holds.sum(axis=0) == 1):
        return None
    b = np.zeros(n, dtype=np.uint64)
    b[1:k + 1] = np.argmax(holds, axis=0) & 1
    return b


@dataclass
class DroppedBitFit(Fit):
    #: the last 624 state words
    state: np.ndarray | None = None
    observed_bytes: int = 0

    def predict(self, nbytes: int) -> np.ndarray:
        count, skip_bits = continuation(self.observed_bytes, DROPPED_BIT_VALUE_BITS, nbytes)
        y = temper(extend_state(self.state, count, MT19937), MT19937) >> _u(1)
        return packed_bytes(y, DROPPED_BIT_VALUE_BITS, skip_bits)[:nbytes]


def _fit_dropped_bit(observed: np.ndarray) -> Fit | str:
    """PHP's mt_rand(): the state from 31-bit outputs, or why not."""
    p = MT19937
    y = values_of(observed, DROPPED_BIT_VALUE_BITS)
    if len(y) < DROPPED_BIT_MIN_OUTPUTS:
        return f"31-bit: needs {-(-DROPPED_BIT_MIN_OUTPUTS * DROPPED_BIT_VALUE_BITS // 8)} bytes"
    b = hidden_low_bits(y)
    if b is None:
        return "31-bit: no single hidden bit fits every relation"
    window = untemper((y[:p.n] << _u(1)) | b[:p.n], p)
    later = temper(extend_state(window, len(y) - p.n, p), p) >> _u(1)
    if not np.array_equal(later, y[p.n:]):
        return f"31-bit: {int(np.count_nonzero(later != y[p.n:]))} of {len(y) - p.n} outputs differ"
    state = extend_state(window, len(y) - p.n, p)[-p.n:] if len(y) > p.n else window
    structure = {"summary": f"PHP mt_rand(): MT19937 >> 1, the {len(y) - p.n} hidden low bits solved, state recovered",
                 "generator": "mt19937 >> 1 (PHP mt_rand)", "state_words": p.n,
                 "state_head": [f"{int(v):#x}" for v in state[:3]]}
    return DroppedBitFit(structure, needed_bytes=-(-DROPPED_BIT_MIN_OUTPUTS * DROPPED_BIT_VALUE_BITS // 8),
                         state=state, observed_bytes=len(observed))


class MersenneTwisterPredictor(Predictor):
    """Untempering n consecutive outputs of MT19937 or MT19937-64."""

    name = "mt19937"
    summary = ("MT19937 / MT19937-64 / CPython random state from n outputs by inverting the tempering; "
               "PHP mt_rand()'s dropped bit solved")
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
        dropped = _fit_dropped_bit(observed)
        if isinstance(dropped, Fit):
            return dropped
        reasons.append(dropped)
        return NoFit("twist recurrence broken (" + "; ".join(reasons) + ")")
