"""Marsaglia's multiply-with-carry pair as R's "Marsaglia-Multicarry" uses it.

Sources: R's src/main/RNG.c (MARSAGLIA_MULTICARRY: I1 = 36969 (I1 & 0xFFFF)
+ (I1 >> 16), I2 = 18000 (I2 & 0xFFFF) + (I2 >> 16), the value
(I1 << 16) ^ (I2 & 0xFFFF) as a 32-bit unsigned int, times 1 / (2^32 - 1)
for the double); G. Marsaglia, "Random numbers for C: the END?",
sci.stat.math, 1999 (the two 16-bit multiply-with-carry generators).

Formula.  Write I = c 2^16 + x.  A step is x' = (a x + c) mod 2^16, c' =
(a x + c) >> 16, and each output shows x of both generators (its high half
is I1's, its low half I2's).  So two consecutive outputs give the carry:
c = x' - a x mod 2^16 (c < 2^16), hence the whole state; a third checks it
(16 bits per generator), and every later output follows.

Minimum data: three 32-bit outputs, 12 bytes (read as the 32-bit value
each double carries, little-endian; randqa/sources/runtimes/).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from randqa.predict.base import Fit, NoFit, Predictor, continuation, packed_bytes, words_of

#: R's multipliers: I1's (the output's high half) and I2's (its low half)
MULTIPLIERS = (36969, 18000)
MASK16 = 0xFFFF


def _carries(x: np.ndarray, a: int) -> np.ndarray | None:
    """The carries c_0 .. c_(n-2) of a 16-bit MWC whose x are ``x`` (int64), or
    None when consecutive steps contradict each other."""
    carries = (x[1:] - a * x[:-1]) & MASK16
    if np.any((a * x[:-2] + carries[:-1]) >> 16 != carries[1:]):
        return None
    return carries


@dataclass
class MulticarryFit(Fit):
    #: the state words I1, I2 after the last whole observed output
    state: tuple[int, int] = (0, 0)
    observed_bytes: int = 0

    def predict(self, nbytes: int) -> np.ndarray:
        count, skip_bits = continuation(self.observed_bytes, 32, nbytes)
        (a1, a2), (i1, i2) = MULTIPLIERS, self.state
        out = np.empty(count, dtype=np.uint64)
        for k in range(count):
            i1 = a1 * (i1 & MASK16) + (i1 >> 16)
            i2 = a2 * (i2 & MASK16) + (i2 >> 16)
            out[k] = ((i1 & MASK16) << 16) | (i2 & MASK16)
        return packed_bytes(out, 32, skip_bits)[:nbytes]


class MulticarryPredictor(Predictor):
    """R's Marsaglia-Multicarry: both carries from two outputs."""

    name = "multiply-with-carry"
    summary = "R's Marsaglia-Multicarry: two 16-bit multiply-with-carry generators, carries read off (R RNG.c)"
    min_observed_bytes = 12
    max_observed_bytes = 256
    granularity = 4

    def fit(self, observed: np.ndarray) -> Fit | NoFit:
        words = words_of(observed, 4).astype(np.int64)
        if len(words) < 3:
            return NoFit("needs three 32-bit outputs")
        halves = (words >> 16, words & MASK16)
        carries = [_carries(x, a) for x, a in zip(halves, MULTIPLIERS)]
        if carries[0] is None or carries[1] is None:
            return NoFit("no pair of 16-bit multiply-with-carry generators gives these words")
        # the state behind the last output: the step from the one before, carry and all
        state = tuple(int(a * x[-2] + c[-1]) for x, a, c in zip(halves, MULTIPLIERS, carries))
        structure = {"summary": f"R Marsaglia-Multicarry: I1 = {state[0]:#010x}, I2 = {state[1]:#010x}",
                     "state": list(state), "multipliers": list(MULTIPLIERS)}
        return MulticarryFit(structure, state=state, observed_bytes=len(observed))
