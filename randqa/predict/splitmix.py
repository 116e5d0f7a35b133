"""Weyl-sequence generators behind an invertible mix: Java's
SplittableRandom.nextLong() and SplitMix64.

Sources: G. L. Steele, D. Lea, C. H. Flood, "Fast splittable pseudorandom
number generators", OOPSLA 2014 (SplittableRandom: seed += gamma, output
mix64(seed), gamma = 0x9e3779b97f4a7c15 for ``new SplittableRandom(seed)``,
any odd gamma for a split-off instance); the JDK's
java/util/SplittableRandom.java (mix64 is D. Stafford's "variant 13" of
MurmurHash3's finaliser: z ^= z >>> 30, z *= 0xbf58476d1ce4e5b9,
z ^= z >>> 27, z *= 0x94d049bb133111eb, z ^= z >>> 31); S. Vigna's
splitmix64.c (the same generator with the golden gamma).

Formula.  Each step of mix64 is a bijection of 64-bit words: x ^ (x >> s)
is undone by repeating it until the shift passes 64 bits, and the odd
multipliers have inverses mod 2^64.  So each 64-bit output gives its seed
s_i = mix64^-1(w_i); the gamma is s_{i+1} - s_i (odd), and every later
output is mix64(s_last + k gamma).

Minimum data: 8 bytes (one output) for generators seeded with the golden
gamma, as ``new SplittableRandom(seed)`` and SplitMix64 are; 16 bytes (two
outputs) for any gamma.  Outputs are read as 8-byte little-endian words.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from randqa.predict.base import Fit, NoFit, Predictor, continuation, packed_bytes, words_of

#: the gamma of ``new SplittableRandom(seed)`` and of SplitMix64: 2^64 / phi, odd
GOLDEN_GAMMA = 0x9E3779B97F4A7C15
MIX_MULTIPLIERS = (0xBF58476D1CE4E5B9, 0x94D049BB133111EB)
MIX_SHIFTS = (30, 27, 31)
M64 = (1 << 64) - 1


def _u(v: int) -> np.uint64:
    return np.uint64(v)


def mix64(z: np.ndarray) -> np.ndarray:
    """SplittableRandom.mix64 of uint64 words."""
    z = z.astype(np.uint64)
    z = (z ^ (z >> _u(MIX_SHIFTS[0]))) * _u(MIX_MULTIPLIERS[0])
    z = (z ^ (z >> _u(MIX_SHIFTS[1]))) * _u(MIX_MULTIPLIERS[1])
    return z ^ (z >> _u(MIX_SHIFTS[2]))


def _undo_xorshift(y: np.ndarray, shift: int) -> np.ndarray:
    x = y.copy()
    for _ in range(64 // shift):
        x = y ^ (x >> _u(shift))
    return x


def unmix64(w: np.ndarray) -> np.ndarray:
    """The seeds whose mix64 are the uint64 words ``w``."""
    inverses = [pow(m, -1, 1 << 64) for m in MIX_MULTIPLIERS]
    z = _undo_xorshift(w.astype(np.uint64), MIX_SHIFTS[2]) * _u(inverses[1])
    z = _undo_xorshift(z, MIX_SHIFTS[1]) * _u(inverses[0])
    return _undo_xorshift(z, MIX_SHIFTS[0])


@dataclass
class WeylFit(Fit):
    #: the seed that produced the last whole observed output, and the step
    seed: int = 0
    gamma: int = GOLDEN_GAMMA
    observed_bytes: int = 0

    def predict(self, nbytes: int) -> np.ndarray:
        count, skip_bits = continuation(self.observed_bytes, 64, nbytes)
        steps = np.arange(1, count + 1, dtype=np.uint64)
        seeds = _u(self.seed) + steps * _u(self.gamma)
        return packed_bytes(mix64(seeds), 64, skip_bits)[:nbytes]


class SplitMixPredictor(Predictor):
    """SplittableRandom / SplitMix64: invert mix64, read the Weyl sequence's step."""

    name = "splitmix"
    summary = "SplittableRandom.nextLong() / SplitMix64: mix64 inverted, seed and gamma read off (Steele et al. 2014)"
    min_observed_bytes = 8
    max_observed_bytes = 256
    granularity = 8

    def fit(self, observed: np.ndarray) -> Fit | NoFit:
        words = words_of(observed, 8)
        if len(words) == 0:
            return NoFit("needs one 8-byte output")
        seeds = [int(s) for s in unmix64(words)]
        if len(seeds) == 1:
            gamma, how = GOLDEN_GAMMA, "the golden gamma assumed (new SplittableRandom(seed), SplitMix64)"
        else:
            gamma = (seeds[1] - seeds[0]) & M64
            if not gamma & 1 or any((b - a) & M64 != gamma for a, b in zip(seeds, seeds[1:])):
                return NoFit("the unmixed outputs are not a Weyl sequence with an odd step")
            how = "golden gamma" if gamma == GOLDEN_GAMMA else "gamma from consecutive outputs"
        structure = {"summary": f"seed {seeds[-1]:#018x}, gamma {gamma:#018x} ({how})",
                     "seed": seeds[-1], "gamma": gamma}
        return WeylFit(structure, seed=seeds[-1], gamma=gamma, observed_bytes=len(observed))
