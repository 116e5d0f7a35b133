"""Lagged-Fibonacci generators: additive ones that drop their low bit
(glibc's and musl's random()/rand()), and additive or subtractive ones that
output every bit (the Mitchell-Moore (24, 55) generator, Go's math/rand,
.NET's System.Random).

Sources: glibc stdlib/random_r.c (TYPE_3, the default: r_i = r_{i-3} +
r_{i-31} mod 2^32, rand() = r_i >> 1; TYPE_1, 2 and 4 use the trinomials
x^7 + x^3 + 1, x^15 + x + 1, x^63 + x + 1); musl src/prng/random.c (the
same TYPE_3 recurrence and output); D. E. Knuth, TAOCP vol. 2,
3.2.2 (Mitchell and Moore's additive generator, lags 24 and 55; the
subtractive variant of 3.6); Go 1.19 src/math/rand/rng.go (x_i = x_{i-607}
+ x_{i-273} mod 2^64, Uint64() the whole word);
the .NET reference source of System.Random, which Mono runs (Knuth's
subtractive generator: x_i = x_{i-55} - x_{i-34} mod 2^31 - 1, Next() = x_i);
the prediction o_i = o_{i-3} + o_{i-31} (+1) mod 2^31 and its "right about 3 out
of 4 times" is the standard observation about glibc rand(), e.g. Peter
Selinger, "The GLIBC random number generator" (2007).

Formula.  With r_i = 2 o_i + b_i (b the dropped low bit),
o_i = o_{i-s} + o_{i-r} + (b_{i-s} AND b_{i-r}) mod M and
b_i = b_{i-s} XOR b_{i-r}: the low bits are an LFSR whose r initial bits
are unknown.  Every observed carry of 1 says b_{i-s} = b_{i-r} = 1, two
linear equations in those r bits; once they have rank r (or a few
unknowns remain that the carries of 0 single out), every later carry, and
so every later output, is known exactly.  Without that the prediction
takes carry 0 (right for about 3 outputs in 4; the structure reports the
one-step rate on the checked words).  The same relation holds for the low
8 or 16 bits of each output (rand() & 0xff, rand() & 0xffff: M = 2^8,
2^16), since additions carry only upwards.  A generator that outputs every
bit shows no carry: its last r outputs are its state, and the recurrence
(mod 2^64 or 2^63 for Go, mod 2^31 - 1 subtracting for .NET) continues it.

Minimum data: about 100 outputs for TYPE_3 (31 unknowns, two equations
per carry, a carry in one output of four): some 400 bytes of 31-bit
words, 100 bytes of rand() & 0xff; r + 24 outputs where every bit is
output (the 24 relations confirm the lags): 307 bytes of .NET's Next() as
the runtime backends write it (31 bits per call, packed;
randqa/sources/runtimes/), 5,048 of Go's 64-bit Uint64() words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from randqa.predict.base import Fit, NoFit, Predictor, continuation, packed_bytes, values_of, words_of

#: (name, short lag s, long lag r): o_i = o_{i-s} + o_{i-r} + carry mod a power of two
LAGS = (
    ("glibc TYPE_3 random()/rand(), musl random()", 3, 31),
    ("glibc TYPE_4 random()", 1, 63),
    ("glibc TYPE_2 random()", 1, 15),
    ("glibc TYPE_1 random()", 3, 7),
    ("Mitchell-Moore additive (24, 55)", 24, 55),
    ("Go math/rand (273, 607)", 273, 607),
)
#: (name, short lag s, long lag r, modulus): o_i = o_{i-r} - o_{i-s} mod the modulus, every bit output
SUBTRACTIVE = (
    (".NET System.Random, Knuth's subtractive (34, 55)", 34, 55, (1 << 31) - 1),
)
#: bits per value: little-endian words, then the runtimes' packed calls (31:
#: .NET's Next(), musl's random())
WIDTHS = (32, 16, 8, 64, 31)
#: relations the observed words must satisfy before the lags are believed
MIN_RELATIONS = 24
#: unknown low bits left after the linear equations that are enumerated
MAX_ENUMERATED_UNKNOWNS = 12


def _low_bit_masks(count: int, s: int, r: int) -> list[int]:
    """b_i as a bit mask over the r unknowns b_0 .. b_{r-1}."""
    masks = [1 << i for i in range(min(r, count))]
    for i in range(r, count):
        masks.append(masks[i - s] ^ masks[i - r])
    return masks


def _solve(rows: list[tuple[int, int]], r: int) -> tuple[int, list[int], bool]:
    """Gaussian elimination over GF(2): (a particular solution, a basis of the
    solutions of the homogeneous system, consistent?)."""
    pivots: dict[int, tuple[int, int]] = {}
    for mask, value in rows:
        for bit, (pmask, pvalue) in pivots.items():
            if mask >> bit & 1:
                mask ^= pmask
                value ^= pvalue
        if mask == 0:
            if value:
                return 0, [], False
            continue
        bit = mask.bit_length() - 1
        for other, (omask, ovalue) in list(pivots.items()):
            if omask >> bit & 1:
                pivots[other] = (omask ^ mask, ovalue ^ value)
        pivots[bit] = (mask, value)
    solution = 0
    for bit, (_mask, value) in pivots.items():
        if value:
            solution |= 1 << bit
    free = [i for i in range(r) if i not in pivots]
    kernel = []
    for f in free:
        vector = 1 << f
        for bit, (mask, _value) in pivots.items():
            if mask >> f & 1:
                vector |= 1 << bit
        kernel.append(vector)
    return solution, kernel, True


def _low_bits(initial: int, masks: np.ndarray) -> np.ndarray:
    """b_i for the given initial bits (masks: uint64 array of b_i's masks): parities of masks & initial."""
    x = masks & np.uint64(initial)
    for shift in (32, 16, 8, 4, 2, 1):
        x ^= x >> np.uint64(shift)
    return (x & np.uint64(1)).astype(np.int64)


@dataclass
class AdditiveFit(Fit):
    s: int = 3
    r: int = 31
    modulus: int = 1 << 31
    value_bits: int = 32
    #: the last r outputs and their low bits (None: unresolved, carries taken as 0)
    outputs: np.ndarray | None = None
    low_bits: np.ndarray | None = None
    observed_bytes: int = 0
    #: -1: o_i = o_(i-r) - o_(i-s) (no carry)
    sign: int = 1

    def predict(self, nbytes: int) -> np.ndarray:
        count, skip_bits = continuation(self.observed_bytes, self.value_bits, nbytes)
        s, r, m = self.s, self.r, self.modulus
        o = [int(v) for v in self.outputs]
        if self.sign < 0:
            for i in range(r, r + count):
                o.append((o[i - r] - o[i - s]) % m)
        else:
            b = [int(v) for v in self.low_bits] if self.low_bits is not None else [0] * r
            for i in range(r, r + count):
                o.append((o[i - s] + o[i - r] + (b[i - s] & b[i - r])) % m)
                b.append(b[i - s] ^ b[i - r])
        return packed_bytes(np.array(o[r:], dtype=np.uint64), self.value_bits, skip_bits)[:nbytes]

    def describe_check(self, predicted: np.ndarray, actual: np.ndarray) -> dict[str, Any]:
        s, r = self.s, self.r
        w = self.value_bits // 8
        # the carry-0 rate says something only where a low bit is hidden
        if (self.value_bits not in (8, 16, 32) or self.observed_bytes % w or len(actual) < w or self.sign < 0
                or self.modulus > 1 << 32):
            return {}
        o = np.concatenate([self.outputs.astype(np.int64), words_of(actual, w).astype(np.int64)])
        if len(o) <= r:
            return {}
        p = words_of(predicted, w).astype(np.int64)
        one_step = (o[r - s:len(o) - s] + o[:len(o) - r]) % self.modulus == o[r:]
        return {"word_exact_fraction": float(np.mean(p == o[r:])),
                "one_step_carry0_fraction": float(np.mean(one_step))}


class AdditiveFeedbackPredictor(Predictor):
    """glibc random()/rand() TYPE_1..4 and lag-(24, 55) additive generators, low bits solved."""

    name = "additive-feedback"
    summary = "additive lagged Fibonacci with a dropped low bit (glibc rand() TYPE_3: o_i = o_{i-3} + o_{i-31} + carry)"
    min_observed_bytes = 40
    max_observed_bytes = 1 << 14

    def fit(self, observed: np.ndarray) -> Fit | NoFit:
        for w in WIDTHS:
            words = values_of(observed, w)
            n = len(words)
            if n == 0:
                continue
            top = int(words.max())
            modulus = 1 << w
            if w == 32 and top < 1 << 31:
                modulus >>= 1  # glibc's 31-bit rand() in 32-bit words
            mask = np.uint64(modulus - 1)
            for label, s, r in LAGS:
                if n - r < MIN_RELATIONS:
                    continue
                with np.errstate(over="ignore"):
                    carries = (words[r:] - words[r - s:n - s] - words[:n - r]) & mask
                if np.any(carries > 1):
                    continue
                return self._fit_lags(observed, words, modulus, w, label, s, r, carries.astype(np.int64))
            for label, s, r, m in SUBTRACTIVE:
                if n - r < MIN_RELATIONS or top >= m:
                    continue
                x = words.astype(np.int64)
                if np.any((x[r:] - x[:n - r] + x[r - s:n - s]) % m):
                    continue
                structure = {"summary": f"{label}: o_i = o_(i-{r}) - o_(i-{s}) mod {m}, every bit output",
                             "lags": [s, r], "modulus": m, "word_bits": w, "low_bits_solved": True}
                return AdditiveFit(structure, s=s, r=r, modulus=m, value_bits=w, outputs=words[n - r:].copy(),
                                   low_bits=np.zeros(r, dtype=np.int64), observed_bytes=len(observed), sign=-1)
        return NoFit("no lag pair relates the words up to a carry",
                     {"lags": [[s, r] for _label, s, r in LAGS] + [[s, r] for _label, s, r, _m in SUBTRACTIVE]})

    def _fit_lags(self, observed: np.ndarray, words: np.ndarray, modulus: int, w: int, label: str,
                  s: int, r: int, carries: np.ndarray) -> Fit:
        n = len(words)
        bits = modulus.bit_length() - 1
        if not carries.any():
            structure = {
                "summary": f"{label}: o_i = o_(i-{s}) + o_(i-{r}) mod 2^{bits}, no carry in {n - r} relations: "
                           "every bit output",
                "lags": [s, r], "modulus_bits": bits, "word_bits": w, "low_bits_solved": True,
            }
            return AdditiveFit(structure, s=s, r=r, modulus=modulus, value_bits=w, outputs=words[n - r:].copy(),
                               low_bits=np.zeros(r, dtype=np.int64), observed_bytes=len(observed))
        if r > 64:  # the low-bit solver keeps each unknown's mask in a 64-bit word
            structure = {"summary": f"{label}: carries seen, low bits of {r} lags not solved",
                         "lags": [s, r], "modulus_bits": bits, "word_bits": w, "low_bits_solved": False}
            return AdditiveFit(structure, s=s, r=r, modulus=modulus, value_bits=w, outputs=words[n - r:].copy(),
                               low_bits=None, observed_bytes=len(observed))
        mask_list = _low_bit_masks(n, s, r)
        masks = np.array(mask_list, dtype=np.uint64)
        rows = []
        for i in np.flatnonzero(carries) + r:
            rows += [(mask_list[i - s], 1), (mask_list[i - r], 1)]
        solution, kernel, consistent = _solve(rows, r)
        low_bits = None
        note = "low bits unresolved: carries taken as 0"
        if consistent and len(kernel) <= MAX_ENUMERATED_UNKNOWNS:
            # the carries of 0 single out the solutions: b is linear in the initial bits
            base = _low_bits(solution, masks)
            shifts = [_low_bits(v, masks) for v in kernel]
            matches = []
            for k in range(1 << len(kernel)):
                b = base.copy()
                for j, shift in enumerate(shifts):
                    if k >> j & 1:
                        b ^= shift
                if np.array_equal(b[r - s:n - s] & b[:n - r], carries):
                    matches.append(b)
                    if len(matches) > 1:
                        break
            if len(matches) == 1:
                low_bits = matches[0]
                note = f"low bits solved ({len(rows) // 2} carries of 1 in {n - r} relations)"
            elif matches:
                note = "low bits ambiguous: carries taken as 0"
        elif not consistent:
            note = "carries contradict the low-bit LFSR: carries taken as 0"
        structure = {
            "summary": f"{label}: o_i = o_(i-{s}) + o_(i-{r}) + carry mod 2^{bits}, {note}",
            "lags": [s, r], "modulus_bits": bits, "word_bits": w, "low_bits_solved": low_bits is not None,
        }
        return AdditiveFit(structure, s=s, r=r, modulus=modulus, value_bits=w, outputs=words[n - r:].copy(),
                           low_bits=None if low_bits is None else low_bits[n - r:].copy(),
                           observed_bytes=len(observed))
