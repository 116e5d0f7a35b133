"""Power-of-two LCGs of known constants that output only some state bits:
java.util.Random, the drand48 family, and the C library rand()s (MSVC,
the C standard's example, glibc TYPE_0, Borland, RANDU), to Knuth's MMIX.

Sources: J. Boyar, "Inferring sequences produced by a linear congruential
generator missing low-order bits", J. Cryptology 1 (1989) 177-184 (hidden
low bits); A. M. Frieze, J. Hastad, R. Kannan, J. C. Lagarias, A. Shamir,
"Reconstructing truncated integer variables satisfying linear
congruences", SIAM J. Comput. 17 (1988) 262-280 (the lattice method);
the constants from the JDK's java.util.Random (0x5DEECE66D, 0xB, 2^48,
nextInt() = bits 16..47), POSIX drand48 (the same LCG; mrand48 = bits
16..47, lrand48 = bits 17..47), Microsoft's CRT rand() (214013, 2531011,
bits 16..30), ISO C's example rand() (1103515245, 12345, bits 16..30),
glibc's TYPE_0 (1103515245, 12345 mod 2^31, all 31 bits), Borland C
(22695477, 1, bits 16..30) and Knuth's MMIX (6364136223846793005,
1442695040888963407 mod 2^64, here its high 32 bits).  java.util.Random's
nextInt() is tried as 4 little-endian bytes (as Random.nextBytes writes it)
and big-endian (as DataOutputStream.writeInt does).

Formula.  State x_{i+1} = a x_i + c mod 2^k; the output is t bits from bit
h up (y = (x >> h) mod 2^t), written as 1-, 2- or 4-byte words (rand()'s
15 bits as shorts, or its low byte).  Bits above h + t never reach the
output or the bits below them, so only x mod 2^(h+t) matters.

- h <= 20 hidden bits: all 2^h completions of the first output are
  stepped forward together; each further output keeps 2^-t of them.
- wider (MMIX's 32): with v_i = (y_i << h) - c_i, the vector
  (a^i x_0 mod 2^(h+t))_i is a point of the lattice spanned by
  (1, a, ..., a^(n-1)) and 2^(h+t) e_i lying within 2^h of (v_i);
  LLL and Babai's nearest plane find it (Frieze et al.).

Every candidate state must reproduce every observed word.

Minimum data: java.util.Random and MSVC/ANSI rand() shorts: 8 bytes
(2 and 4 outputs); rand() & 0xff: 8 bytes; MMIX high words: 16-32 bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from randqa.predict._lattice import lll_reduce, nearest_plane
from randqa.predict.base import Fit, NoFit, Predictor, bytes_of, words_of

#: completions enumerated directly up to this many hidden bits
MAX_ENUMERATED_BITS = 20
#: outputs used in the lattice (its dimension)
LATTICE_OUTPUTS = 6


@dataclass(frozen=True)
class TruncatedLCG:
    """One LCG and one way of writing its outputs."""

    name: str
    a: int
    c: int
    #: the output is bits [shift, shift + out_bits) of the state
    shift: int
    out_bits: int
    word_bytes: int
    #: words written most significant byte first (Java's DataOutputStream.writeInt)
    big_endian: bool = False

    def words(self, data: np.ndarray) -> np.ndarray:
        if not self.big_endian:
            return words_of(data, self.word_bytes)
        n = len(data) // self.word_bytes
        return data[: n * self.word_bytes].view(f">u{self.word_bytes}").astype(np.uint64)

    def write(self, values: np.ndarray) -> np.ndarray:
        if not self.big_endian:
            return bytes_of(values, self.word_bytes)
        return values.astype(f">u{self.word_bytes}").view(np.uint8)

    @property
    def state_bits(self) -> int:
        return self.shift + self.out_bits

    @property
    def modulus(self) -> int:
        return 1 << self.state_bits


def _family(name: str, a: int, c: int, shift: int, out_bits: int, packings: tuple[int, ...]) -> list[TruncatedLCG]:
    out = []
    for w in packings:
        bits = min(out_bits, 8 * w)
        label = name if bits == out_bits else f"{name} & {(1 << bits) - 1:#x}"
        out.append(TruncatedLCG(label, a, c, shift, bits, w))
    return out


FAMILIES: list[TruncatedLCG] = [
    *_family("java.util.Random nextInt / mrand48", 0x5DEECE66D, 0xB, 16, 32, (4,)),
    TruncatedLCG("java.util.Random nextInt, big-endian", 0x5DEECE66D, 0xB, 16, 32, 4, big_endian=True),
    *_family("lrand48", 0x5DEECE66D, 0xB, 17, 31, (4,)),
    *_family("MSVC rand()", 214013, 2531011, 16, 15, (2, 1, 4)),
    *_family("ISO C example rand()", 1103515245, 12345, 16, 15, (2, 1, 4)),
    *_family("Borland C rand()", 22695477, 1, 16, 15, (2, 1, 4)),
    *_family("glibc TYPE_0 rand()", 1103515245, 12345, 0, 31, (4, 2, 1)),
    *_family("RANDU", 65539, 0, 0, 31, (4,)),
    *_family("MMIX (Knuth) high 32 bits", 6364136223846793005, 1442695040888963407, 32, 32, (4,)),
]


def lcg_states(x0: int, a: int, c: int, modulus: int, count: int) -> np.ndarray:
    """x_1 .. x_count after x_0, as uint64 (modulus a power of two <= 2^64),
    computed 256 at a time with the 256-step jump (A, C)."""
    mask = np.uint64(modulus - 1)
    lanes = min(256, count)
    first = np.empty(lanes, dtype=np.uint64)
    x = x0
    for i in range(lanes):
        x = (a * x + c) % modulus
        first[i] = x
    jump_a, jump_c = 1, 0
    for _ in range(lanes):
        jump_a, jump_c = (a * jump_a) % modulus, (a * jump_c + c) % modulus
    blocks = -(-count // lanes)
    out = np.empty(blocks * lanes, dtype=np.uint64)
    out[:lanes] = first
    ja, jc = np.uint64(jump_a % (1 << 64)), np.uint64(jump_c % (1 << 64))
    with np.errstate(over="ignore"):
        for k in range(1, blocks):
            out[k * lanes:(k + 1) * lanes] = (out[(k - 1) * lanes:k * lanes] * ja + jc) & mask
    return out[:count]


def _outputs_match(states: np.ndarray, f: TruncatedLCG, y: np.ndarray) -> bool:
    return bool(np.array_equal((states >> np.uint64(f.shift)) & np.uint64((1 << f.out_bits) - 1), y))


def _enumerate(f: TruncatedLCG, y: np.ndarray) -> list[int]:
    """States x_0 (mod 2^(h+t)) consistent with the first outputs, by stepping every completion."""
    mask = np.uint64(f.modulus - 1)
    a, c = np.uint64(f.a % (1 << 64)), np.uint64(f.c % (1 << 64))
    start = (np.uint64(int(y[0]) << f.shift) | np.arange(1 << f.shift, dtype=np.uint64))
    candidates, x = start, start
    out_mask, shift = np.uint64((1 << f.out_bits) - 1), np.uint64(f.shift)
    with np.errstate(over="ignore"):
        for j in range(1, len(y)):
            x = (x * a + c) & mask
            keep = ((x >> shift) & out_mask) == y[j]
            candidates, x = candidates[keep], x[keep]
            if len(candidates) <= 1:
                break
    return [int(v) for v in candidates[:16]]


def _lattice(f: TruncatedLCG, y: np.ndarray) -> list[int]:
    """x_0 from the first outputs by LLL and the nearest plane (Frieze et al.)."""
    k = min(LATTICE_OUTPUTS, len(y))
    if k < 2:
        return []
    m = f.modulus
    powers, offsets = [1], [0]
    for _ in range(k - 1):
        powers.append(powers[-1] * f.a % m)
        offsets.append((offsets[-1] * f.a + f.c) % m)
    basis = [powers] + [[m if j == i else 0 for j in range(k)] for i in range(1, k)]
    half = 1 << (f.shift - 1) if f.shift else 0
    target = [((int(y[i]) << f.shift) - offsets[i]) % m + half for i in range(k)]
    point = nearest_plane(lll_reduce(basis), target)
    return [point[0] % m]


@dataclass
class TruncatedFit(Fit):
    family: TruncatedLCG | None = None
    #: the state that produced the last observed word
    state: int = 0
    skip: int = 0

    def predict(self, nbytes: int) -> np.ndarray:
        f = self.family
        count = -(-(nbytes + self.skip) // f.word_bytes)
        states = lcg_states(self.state, f.a, f.c, f.modulus, count)
        y = (states >> np.uint64(f.shift)) & np.uint64((1 << f.out_bits) - 1)
        return f.write(y)[self.skip:self.skip + nbytes]


class TruncatedLCGPredictor(Predictor):
    """Known-constant power-of-two LCGs with hidden low bits (java.util.Random, drand48, C rand())."""

    name = "lcg-truncated"
    summary = "power-of-two LCGs of known constants with hidden low bits: enumeration, or LLL (Frieze et al. 1988)"
    # a family that is there shows in the first outputs; more only confirms it
    max_observed_bytes = 256

    def fit(self, observed: np.ndarray) -> Fit | NoFit:
        for f in FAMILIES:
            y = f.words(observed)
            if len(y) < 2 or int(y.max()) >> f.out_bits:
                continue
            solve = _enumerate if f.shift <= MAX_ENUMERATED_BITS else _lattice
            for x0 in solve(f, y):
                states = np.concatenate([[np.uint64(x0)], lcg_states(x0, f.a, f.c, f.modulus, len(y) - 1)])
                if not _outputs_match(states, f, y):
                    continue
                last = int(states[-1])
                structure = {
                    "summary": f"{f.name}: state {last:#x} (mod 2^{f.state_bits}), "
                               f"{f.shift} hidden bits {'enumerated' if f.shift <= MAX_ENUMERATED_BITS else 'by LLL'}",
                    "family": f.name, "a": f.a, "c": f.c, "output_bits": [f.shift, f.shift + f.out_bits],
                    "word_bits": 8 * f.word_bytes, "state": last,
                }
                return TruncatedFit(structure, family=f, state=last, skip=len(observed) - len(y) * f.word_bytes)
        return NoFit("no known truncated LCG reproduces the words",
                     {"families": sorted({f.name for f in FAMILIES})})
