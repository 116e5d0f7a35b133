"""V8's Math.random(): xorshift128 state words read back from a few doubles.

Sources: V8's src/base/utils/random-number-generator.h (XorShift128: s1 =
state0, s0 = state1, state0 = s0, s1 ^= s1 << 23, s1 ^= s1 >> 17, s1 ^= s0,
s1 ^= s0 >> 26, state1 = s1; ToDouble uses state0 alone, its top 52 bits)
and src/numbers/math-random.cc (a refill runs 64 steps into a cache that
Math.random() reads from its last entry to its first), as in V8 11.3 (Node
20); G. Marsaglia, "Xorshift RNGs", J. Stat. Softw. 8 (2003) (the
xorshift128 step, a bijection).  Recovering V8's state from Math.random()
outputs is well known since V8 dropped the + of xorshift128+ from the
double; here it is plain linear algebra, no solver.

Formula.  Let o_t be state0 after step t.  The step makes the state after
step t the pair (o_t, o_(t+1)), and o_(t+2) = f(o_t, o_(t+1)) with
f(x, y) = h(x) ^ y ^ (y >> 26), h(x) = u ^ (u >> 17), u = x ^ (x << 23):
GF(2)-linear.  A double shows the top 52 bits of an o_t.  Four doubles
read from one cache block are four consecutive steps in reverse; the 24
hidden bits of the first two steps are the unknowns, and the top 52 bits
of the next two steps give 104 linear equations in them (y's low bits
reach the top bits only through the next step, hence four, not three).
Then every o_t follows, forward by f and backward by inverting h.  The
stream's k-th double comes from step 64 (j div 64) + 63 - (j mod 64),
j = k + a, with a the doubles of the first block already used before the
stream starts: 0 for a fresh generator, tried first; the other offsets are
tried when the observed doubles contradict it.

Minimum data: four doubles, as the runtime backends write them (52 bits
each, packed least significant bit first): 26 bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from randqa.predict.base import Fit, NoFit, Predictor, continuation, packed_bytes, values_of

#: bits of each double, and how many of state0's bits are hidden below them
DOUBLE_BITS = 52
HIDDEN = 64 - DOUBLE_BITS
CACHE = 64
#: consecutive steps that determine the state
SOLVE_STEPS = 4
M64 = (1 << 64) - 1


def _f(x: int, y: int) -> int:
    u = x ^ ((x << 23) & M64)
    return u ^ (u >> 17) ^ y ^ (y >> 26)


def _undo_right(z: int, shift: int) -> int:
    x = z
    for _ in range(64 // shift):
        x = z ^ (x >> shift)
    return x


def _undo_left(z: int, shift: int) -> int:
    x = z
    for _ in range(64 // shift):
        x = z ^ ((x << shift) & M64)
    return x


def _previous(x1: int, x2: int) -> int:
    """o_t from o_(t+1) and o_(t+2): f inverted in its first argument."""
    return _undo_left(_undo_right(x2 ^ x1 ^ (x1 >> 26), 17), 23)


def step_of(k: int, offset: int) -> int:
    """The step whose state0 gives the stream's k-th double, ``offset`` doubles of the first block used before."""
    j = k + offset
    return CACHE * (j // CACHE) + CACHE - 1 - j % CACHE


# ---------------------------------------------------------------- the linear solve

def _symbolic(value: int, first_unknown: int) -> list[int]:
    """The 64 bits of a word whose top 52 bits are ``value`` and whose low 12
    are unknowns first_unknown.. : each bit an affine form (bit 0 the constant)."""
    bits = [1 << (first_unknown + i + 1) for i in range(HIDDEN)]
    return bits + [(value >> i) & 1 for i in range(DOUBLE_BITS)]


def _shl(word: list[int], s: int) -> list[int]:
    return [0] * s + word[:64 - s]


def _shr(word: list[int], s: int) -> list[int]:
    return word[s:] + [0] * s


def _xor(*words: list[int]) -> list[int]:
    out = list(words[0])
    for w in words[1:]:
        out = [a ^ b for a, b in zip(out, w)]
    return out


def _symbolic_f(x: list[int], y: list[int]) -> list[int]:
    u = _xor(x, _shl(x, 23))
    return _xor(u, _shr(u, 17), y, _shr(y, 26))


def _solve(rows: list[int], unknowns: int) -> int | None:
    """The one solution of affine rows (bit 0: the constant side) in ``unknowns``
    bits, or None when they contradict each other or leave a bit free."""
    pivots: dict[int, int] = {}
    for row in rows:
        for bit, pivot in pivots.items():
            if row >> bit & 1:
                row ^= pivot
        if row >> 1 == 0:
            if row & 1:
                return None
            continue
        bit = row.bit_length() - 1
        for other in list(pivots):
            if pivots[other] >> bit & 1:
                pivots[other] ^= row
        pivots[bit] = row
    if len(pivots) < unknowns:
        return None
    return sum(((pivots[i + 1] & 1) << i) for i in range(unknowns))


def recover_pair(tops: list[int]) -> tuple[int, int] | None:
    """(o_t, o_(t+1)) in full from the top 52 bits of o_t .. o_(t+3), or None
    if no xorshift128 state gives them."""
    x, y = _symbolic(tops[0], 0), _symbolic(tops[1], HIDDEN)
    z = _symbolic_f(x, y)
    w = _symbolic_f(y, z)
    rows = []
    for word, top in ((z, tops[2]), (w, tops[3])):
        for i in range(HIDDEN, 64):
            rows.append(word[i] ^ ((top >> (i - HIDDEN)) & 1))
    low = _solve(rows, 2 * HIDDEN)
    if low is None:
        return None
    mask = (1 << HIDDEN) - 1
    return (tops[0] << HIDDEN) | (low & mask), (tops[1] << HIDDEN) | (low >> HIDDEN)


def outputs(pair: tuple[int, int], base: int, steps: list[int]) -> dict[int, int]:
    """o_s for each step s, from (o_base, o_(base+1))."""
    lo, hi = min(steps + [base]), max(steps + [base + 1])
    known = {base: pair[0], base + 1: pair[1]}
    for t in range(base + 2, hi + 1):
        known[t] = _f(known[t - 2], known[t - 1])
    for t in range(base - 1, lo - 1, -1):
        known[t] = _previous(known[t + 1], known[t + 2])
    return {s: known[s] for s in steps}


@dataclass
class CacheFit(Fit):
    #: o at steps base and base + 1, the block offset, the doubles observed and the bytes
    pair: tuple[int, int] = (0, 0)
    base: int = 0
    offset: int = 0
    observed_bytes: int = 0

    def predict(self, nbytes: int) -> np.ndarray:
        count, skip_bits = continuation(self.observed_bytes, DOUBLE_BITS, nbytes)
        first = 8 * self.observed_bytes // DOUBLE_BITS
        steps = [step_of(k, self.offset) for k in range(first, first + count)]
        known = outputs(self.pair, self.base, steps)
        values = np.array([known[s] >> HIDDEN for s in steps], dtype=np.uint64)
        return packed_bytes(values, DOUBLE_BITS, skip_bits)[:nbytes]


class XorShift128CachePredictor(Predictor):
    """V8's Math.random(): the 128-bit state from four doubles of one cache block."""

    name = "xorshift128-cache"
    summary = "V8 Math.random(): xorshift128 state from four 52-bit doubles, the 64-double cache read backwards"
    min_observed_bytes = -(-SOLVE_STEPS * DOUBLE_BITS // 8)
    max_observed_bytes = 1 << 12

    def fit(self, observed: np.ndarray) -> Fit | NoFit:
        tops = [int(v) for v in values_of(observed, DOUBLE_BITS)]
        if len(tops) < SOLVE_STEPS:
            return NoFit(f"needs {SOLVE_STEPS} doubles of {DOUBLE_BITS} bits")
        solved: dict[int, tuple[int, int] | None] = {}
        for offset in range(CACHE):
            # four doubles of one block: the first k whose block holds k .. k+3
            k = next((k for k in range(len(tops) - SOLVE_STEPS + 1)
                      if step_of(k, offset) - step_of(k + SOLVE_STEPS - 1, offset) == SOLVE_STEPS - 1), None)
            if k is None:
                continue
            base = step_of(k + SOLVE_STEPS - 1, offset)
            if k not in solved:
                solved[k] = recover_pair([tops[k + SOLVE_STEPS - 1 - i] for i in range(SOLVE_STEPS)])
            pair = solved[k]
            if pair is None:
                continue
            steps = [step_of(i, offset) for i in range(len(tops))]
            known = outputs(pair, base, steps)
            if any(known[s] >> HIDDEN != top for s, top in zip(steps, tops)):
                continue
            structure = {"summary": f"xorshift128 state0 {pair[0]:#018x}, state1 {pair[1]:#018x} at step {base}; "
                                    f"{offset} doubles of the first cache block used before the stream",
                         "state": [pair[0], pair[1]], "step": base, "cache_offset": offset}
            return CacheFit(structure, pair=pair, base=base, offset=offset, observed_bytes=len(observed))
        return NoFit("no xorshift128 state gives these 52-bit values in cache order")
