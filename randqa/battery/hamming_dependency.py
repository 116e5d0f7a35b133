"""Hamming-weight dependency (HWD): does a word's Hamming weight depend on
the weights of the words before it?

Sources: D. Blackman and S. Vigna, "A new test for Hamming-weight
dependencies", ACM Trans. Model. Comput. Simul. 32(3) (2022), and its
program hwd.c (HWD 1.1, after z9 of gjrand 4.2.1.0, described in their
"Scrambled linear pseudorandom number generators", ACM TOMS 47(4), 2021);
written here from that description.

Each w-bit little-endian word (w = ``word_bits``, 32 or 64) has a weight h
and a trit, 0 below, 1 inside, 2 above the window [w/2 - 2, w/2 + 3) for
w = 64 ([15, 18) for w = 32), hwd.c's choice, where P(trit = 1) is about
0.47 (0.40).  The signature of a word is the base-3 number of the trits of
the ``dim`` words before it, the most recent most significant.  For each
of the 3^dim signatures s the test counts the words c_s that follow it and
sums their centred weights S_s = sum (h - w/2).  Under the hypothesis a
word's weight is independent of the words before it, so each
z_s = S_s / sqrt(c_s w / 4) is a standardised sum of independent centred
Binomial(w, 1/2) weights.  An orthonormal transform, the tensor product
over the dim positions of the 3 x 3 basis (1, 1, 1)/sqrt 3, (1, 0, -1)/
sqrt 2, (-1, 2, -1)/sqrt 6 (hwd.c's "mix3"), turns the z_s into 3^dim - 1
contrasts (the constant one is dropped), each a unit-norm combination of
them: the linear and quadratic dependence of the weight on each subset of
the dim previous trits.  The contrasts are grouped by how many positions
they involve (1, 2, ..., dim/2 + 1 or more); each group's largest |z|
gives a tail by Sidak's rule over the group, and the smallest group tail
by Sidak's rule over the groups is the p-value.

The tail of one contrast: a centred Binomial(w, 1/2) weight is a sum of w
independent +-1/2 bits, sub-Gaussian with variance proxy w/4, so a unit
combination of independent standardised sums of them satisfies
P(|z| >= x) <= 2 exp(-x^2 / 2) (Hoeffding), at every x and for every
count.  That bound is used instead of the normal tail the paper uses
(2 Phi(-x), smaller by a factor of about x sqrt(2 pi), 15 at x = 6): it stays above the exact tail far out, where a normal
approximation of the sums has no guarantee.  The counts c_s are those of
the data, as in hwd.c, which makes the z_s only asymptotically
independent, so the bound is proven for fixed counts and asymptotic with
them (pvalue_kind "bound"); it is conservative in practice: on PCG64, 400
runs of 512 KiB with dim = 3 gave 0.75% below 0.05 and none below 0.01.

Parameters:
  word_bits  32 or 64 (default 64): the word whose weight is taken
  dim        1-12 (default 6; hwd.c's k, whose default is 8)
Minimum data: 10 expected words after the rarest signature (all trits 0
or 2, probability ((1 - P)/2)^dim): 28,138 64-bit words (220 KiB) for
dim = 6, 400,000 (3.1 MiB) for dim = 8.  Memory: two 8-byte counters per
signature (11 KiB for dim = 6, 8.5 MiB for dim = 12).

What it catches: xorshift128+ with shifts (23, 17, 26), V8's Math.random()
state update, read as 32-bit words with dim = 8: p = 1.9e-8 at 2 GiB and
3e-21 at 4 GiB (a word's weight against those 4 and 6 words before it);
as 64-bit words, dim = 4: 5e-10 at 4 GiB, 2e-22 at 7.5 GiB.  Vigna's
current shifts (23, 18, 5) show the same contrast more weakly (z = 4.7 at
4 GiB as 32-bit words, p = 0.014); the paper reports 6 GB to 1e-20 for
xorshift128+ with its normal tails.  xorshift32's 32-bit words at 16 MiB.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from randqa.battery._blocks import WholeBlockTest
from randqa.battery.base import OBJECT_BYTES, MemoryNeed, Range
from randqa.results import TestResult, insufficient, smallest_of

#: the weights (low, high) at which a word's trit steps from 0 to 1 and 1 to 2 (hwd.c)
TRIT_BOUNDS = {32: (15, 18), 64: (30, 35)}
#: a verdict needs this many words expected after the rarest signature
MIN_EXPECTED_PER_SIGNATURE = 10
MAX_DIM = 12

#: hwd.c's basis for one trit position: constant, linear, quadratic
BASIS = np.array([[1, 1, 1], [1, 0, -1], [-1, 2, -1]], dtype=np.float64) / np.sqrt([[3], [2], [6]])


def trit_probabilities(word_bits: int) -> np.ndarray:
    """P(trit = 0), P(trit = 1), P(trit = 2) of a uniform ``word_bits``-bit word."""
    low, high = TRIT_BOUNDS[word_bits]
    weights = np.array([math.comb(word_bits, h) for h in range(word_bits + 1)], dtype=np.float64) / 2.0 ** word_bits
    return np.array([weights[:low].sum(), weights[low:high].sum(), weights[high:].sum()])


def trit_of(weight: int, word_bits: int) -> int:
    low, high = TRIT_BOUNDS[word_bits]
    return (weight >= low) + (weight >= high)


def contrasts(z: np.ndarray, dim: int) -> np.ndarray:
    """The orthonormal transform of the 3^dim values ``z`` (signature order, most recent trit first)."""
    values = z.reshape((3,) * dim)
    for axis in range(dim):
        values = np.moveaxis(np.tensordot(BASIS, values, axes=([1], [axis])), 0, axis)
    return values.reshape(-1)


def positions_involved(dim: int) -> np.ndarray:
    """For each contrast index, how many trit positions it involves (its non-zero base-3 digits)."""
    index = np.arange(3 ** dim)
    involved = np.zeros(3 ** dim, dtype=np.int64)
    for _ in range(dim):
        involved += index % 3 != 0
        index //= 3
    return involved


def contrast_tail(z: float) -> float:
    """P(|Z| >= z) <= 2 exp(-z^2/2) for a unit combination of independent standardised sub-Gaussian sums."""
    return min(1.0, 2.0 * math.exp(-0.5 * z * z))


class HammingDependency(WholeBlockTest):
    name = "hamming_dependency"
    parameter_ranges: ClassVar[dict[str, Range]] = {"word_bits": Range(32, 64), "dim": Range(1, MAX_DIM)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        p = cls.with_defaults(params)
        cells = 3 ** p["dim"]
        # the counts and sums; at finalize the z values, the transform's two copies, the positions and their indices
        return MemoryNeed(16 * cells + 8 * p["dim"] + 64 + OBJECT_BYTES, 6 * 8 * cells)

    def __init__(self, *, word_bits: int = 64, dim: int = 6) -> None:
        if word_bits not in TRIT_BOUNDS or isinstance(word_bits, bool):
            raise ValueError(f"word_bits must be 32 or 64, not {word_bits!r}")
        if not (isinstance(dim, int) and not isinstance(dim, bool) and 1 <= dim <= MAX_DIM):
            raise ValueError(f"dim must be an integer from 1 to {MAX_DIM}, not {dim!r}")
        super().__init__(word_bits // 8)
        self.word_bits = word_bits
        self.dim = dim
        self.cursor = np.zeros(2, dtype=np.int64)  # the current signature, words seen
        self.head = np.zeros(dim, dtype=np.int64)  # the weights of the first dim words
        self.counts = np.zeros(3 ** dim, dtype=np.int64)
        self.sums = np.zeros(3 ** dim, dtype=np.int64)

    def _scan(self, run: np.ndarray) -> None:
        from randqa.battery import _hamming_dependency

        low, high = TRIT_BOUNDS[self.word_bits]
        _hamming_dependency.hamming_dependency_scan(run, self.word_bits // 8, low, high, self.cursor, self.head,
                                                    self.counts, self.sums)

    def _add_counts(self, other: "HammingDependency") -> None:
        # the right part's first dim words follow this part's last ones: replay their weights here
        signature, seen = int(self.cursor[0]), int(self.cursor[1])
        other_seen = int(other.cursor[1])
        top, half = 3 ** (self.dim - 1), self.word_bits // 2
        for weight in other.head[: min(self.dim, other_seen)].tolist():
            if seen >= self.dim:
                self.counts[signature] += 1
                self.sums[signature] += weight - half
            else:
                self.head[seen] = weight
            signature = signature // 3 + trit_of(weight, self.word_bits) * top
            seen += 1
        self.counts += other.counts
        self.sums += other.sums
        self.cursor[0] = other.cursor[0] if other_seen >= self.dim else signature
        self.cursor[1] += other_seen

    def min_words(self) -> int:
        rarest = float(trit_probabilities(self.word_bits)[0]) ** self.dim
        return math.ceil(MIN_EXPECTED_PER_SIGNATURE / rarest) + self.dim

    def finalize(self) -> list[TestResult]:
        words = int(self.cursor[1])
        needed = self.min_words()
        if words < needed:
            needs = (f"{needed} {self.word_bits}-bit words ({needed * self.word_bits // 8} bytes): "
                     f"{MIN_EXPECTED_PER_SIGNATURE} expected after the rarest signature")
            return [insufficient(self.name, needs, words=words)]
        counts = self.counts.astype(np.float64)
        z = np.divide(self.sums, np.sqrt(counts * self.word_bits / 4), out=np.zeros_like(counts), where=counts > 0)
        mixed = contrasts(z, self.dim)
        involved = positions_involved(self.dim)
        groups = self.dim // 2 + 1
        group = np.minimum(involved, groups)
        tails = []
        for g in range(1, groups + 1):
            members = np.flatnonzero(group == g)
            at = members[int(np.argmax(np.abs(mixed[members])))]
            tails.append((smallest_of(contrast_tail(abs(float(mixed[at]))), len(members)), g, int(at), len(members)))
        p, g, at, size = min(tails)
        return [TestResult(
            name=self.name, statistic=float(abs(mixed[at])), pvalue=smallest_of(p, groups), pvalue_kind="bound",
            details={"words": words, "positions": g if g < groups else f">={groups}", "contrast": self._digits(at),
                     "contrasts_in_group": size, "group_p_value": float(p),
                     "group_p_values": [float(t[0]) for t in sorted(tails, key=lambda t: t[1])]})]

    def _digits(self, index: int) -> str:
        """A contrast's base-3 digits, oldest position first (0 constant, 1 linear, 2 quadratic), as hwd.c prints them."""
        digits = []
        for _ in range(self.dim):
            digits.append(str(index % 3))
            index //= 3
        return "".join(digits)
