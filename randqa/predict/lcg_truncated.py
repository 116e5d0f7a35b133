"""Power-of-two LCGs of known constants that output only some state bits:
java.util.Random (nextInt, nextLong, nextDouble), the drand48 family, the C
library rand()s (MSVC, the C standard's example, glibc TYPE_0, Borland,
musl, RANDU), to Knuth's MMIX.

Sources: J. Boyar, "Inferring sequences produced by a linear congruential
generator missing low-order bits", J. Cryptology 1 (1989) 177-184 (hidden
low bits); A. M. Frieze, J. Hastad, R. Kannan, J. C. Lagarias, A. Shamir,
"Reconstructing truncated integer variables satisfying linear
congruences", SIAM J. Comput. 17 (1988) 262-280 (the lattice method);
the constants from the JDK's java.util.Random (0x5DEECE66D, 0xB, 2^48,
next(b) = bits 48-b..47; nextInt() = next(32); nextLong() = (next(32) << 32)
+ next(32), the second added as a signed int; nextDouble() = ((next(26) << 27)
+ next(27)) / 2^53), POSIX drand48 (the same LCG; mrand48 = bits
16..47, lrand48 = bits 17..47), Microsoft's CRT rand() (214013, 2531011,
bits 16..30), ISO C's example rand() (1103515245, 12345, bits 16..30),
glibc's TYPE_0 (1103515245, 12345 mod 2^31, all 31 bits), Borland C
(22695477, 1, bits 16..30), musl's rand() (6364136223846793005, 1 mod 2^64,
bits 33..63) and Knuth's MMIX (6364136223846793005, 1442695040888963407 mod
2^64, here its high 32 bits).  java.util.Random's nextInt() is tried as 4
little-endian bytes (as Random.nextBytes writes it) and big-endian (as
DataOutputStream.writeInt does); nextLong() as 8 little-endian bytes;
nextDouble() and musl's rand() as the runtime backends write them, the 53
bits of the double times 2^53 and the 31 bits of rand(), packed least
significant bit first (randqa/sources/runtimes/).

Formula.  State x_{i+1} = a x_i + c mod 2^k; each state step outputs t bits
from bit h up (y = (x >> h) mod 2^t), and a word is made of the outputs of
one or more consecutive steps (rand()'s 15 bits as shorts, or its low byte;
two steps of 32 bits for nextLong, of 26 and 27 bits for nextDouble).  Bits
above the highest output bit never reach the output or the bits below them,
so only x mod 2^(h+t) matters.

- up to 22 hidden bits in one step (bits of the state it does not show):
  every completion of that step's output is stepped forward together; each
  further output of t bits keeps 2^-t of them.
- wider (MMIX's and musl's 32 and 33): with v_i = (y_i << h) - c_i, the
  vector (a^i x_0 mod 2^(h+t))_i is a point of the lattice spanned by
  (1, a, ..., a^(n-1)) and 2^(h+t) e_i lying within 2^h of (v_i);
  LLL and Babai's nearest plane find it (Frieze et al.).

Every candidate state must reproduce every observed word.

Minimum data: java.util.Random nextInt() and MSVC/ANSI rand() shorts: 8
bytes (2 and 4 outputs); nextLong(): 8 bytes (one word, two
steps; nextDouble(): 7 bytes); rand() & 0xff: 8 bytes; MMIX and musl
rand() words: 12-32 bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from randqa.predict._lattice import lll_reduce, nearest_plane
from randqa.predict.base import Fit, NoFit, Predictor, continuation, packed_bytes, values_of

#: hidden bits of one step enumerated directly up to this many
MAX_ENUMERATED_BITS = 22
#: outputs used in the lattice (its dimension)
LATTICE_OUTPUTS = 6


@dataclass(frozen=True)
class TruncatedLCG:
    """One LCG and one way of writing its outputs."""

    name: str
    a: int
    c: int
    #: the state steps each word is made of, most significant first: step j
    #: outputs bits [shift, shift + bits) of its state
    parts: tuple[tuple[int, int], ...]
    #: stream bits per word: 8, 16, 32, 64 (little-endian words), or the bits
    #: of a runtime's call packed least significant bit first (31, 53)
    word_bits: int
    #: words written most significant byte first (Java's DataOutputStream.writeInt)
    big_endian: bool = False
    #: a word is (first << 32) + the second as a signed 32-bit int (Java's
    #: nextLong()), not the two concatenated
    signed_sum: bool = False

    @property
    def value_bits(self) -> int:
        """The bits a word's parts fill (a word never has a bit above them)."""
        return sum(bits for _shift, bits in self.parts)

    def words(self, data: np.ndarray) -> np.ndarray:
        """The whole words of ``data``, as uint64."""
        if self.big_endian:
            n = len(data) // (self.word_bits // 8)
            return data[: n * self.word_bits // 8].view(f">u{self.word_bits // 8}").astype(np.uint64)
        return values_of(data, self.word_bits)

    def steps(self, words: np.ndarray) -> np.ndarray:
        """The output of every state step the words hold, in order."""
        if self.signed_sum:
            low = words & np.uint64(0xFFFFFFFF)
            high = ((words >> np.uint64(32)) + (low >> np.uint64(31))) & np.uint64(0xFFFFFFFF)
            return np.stack([high, low], axis=1).ravel()
        columns, below = [], self.value_bits
        for _shift, bits in self.parts:
            below -= bits
            columns.append((words >> np.uint64(below)) & np.uint64((1 << bits) - 1))
        return np.stack(columns, axis=1).ravel()

    def fits(self, words: np.ndarray) -> bool:
        """Whether the words can be this family's at all (no bit above its parts)."""
        if self.signed_sum or self.value_bits >= self.word_bits:
            return True
        return int(words.max(initial=0)) >> self.value_bits == 0

    def write(self, steps: np.ndarray, skip_bits: int) -> np.ndarray:
        """Words made of consecutive step outputs (a whole number of words), as
        the stream's bytes without its first ``skip_bits`` bits."""
        per_word = steps.reshape(-1, len(self.parts))
        if self.signed_sum:
            high, low = per_word[:, 0], per_word[:, 1]
            words = (high << np.uint64(32)) + (low | np.where(low >> np.uint64(31), np.uint64(0xFFFFFFFF00000000),
                                                              np.uint64(0)))
        else:
            words, below = np.zeros(len(per_word), dtype=np.uint64), self.value_bits
            for j, (_shift, bits) in enumerate(self.parts):
                below -= bits
                words |= per_word[:, j] << np.uint64(below)
        if self.big_endian:
            return words.astype(f">u{self.word_bits // 8}").view(np.uint8)[skip_bits // 8:]
        return packed_bytes(words, self.word_bits, skip_bits)

    def step_shifts(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """Shift and output mask of steps 0 .. count-1."""
        reps = -(-count // len(self.parts))
        shifts = np.tile(np.array([s for s, _ in self.parts], dtype=np.uint64), reps)[:count]
        masks = np.tile(np.array([(1 << b) - 1 for _, b in self.parts], dtype=np.uint64), reps)[:count]
        return shifts, masks

    @property
    def state_bits(self) -> int:
        return max(shift + bits for shift, bits in self.parts)

    @property
    def modulus(self) -> int:
        return 1 << self.state_bits

    @property
    def hidden_bits(self) -> int:
        """State bits the most telling step does not show."""
        return self.state_bits - max(bits for _shift, bits in self.parts)


def _family(name: str, a: int, c: int, shift: int, out_bits: int, packings: tuple[int, ...]) -> list[TruncatedLCG]:
    out = []
    for w in packings:
        bits = min(out_bits, 8 * w)
        label = name if bits == out_bits else f"{name} & {(1 << bits) - 1:#x}"
        out.append(TruncatedLCG(label, a, c, ((shift, bits),), 8 * w))
    return out


JAVA_A, JAVA_C = 0x5DEECE66D, 0xB
FAMILIES: list[TruncatedLCG] = [
    *_family("java.util.Random nextInt / mrand48", JAVA_A, JAVA_C, 16, 32, (4,)),
    TruncatedLCG("java.util.Random nextInt, big-endian", JAVA_A, JAVA_C, ((16, 32),), 32, big_endian=True),
    TruncatedLCG("java.util.Random nextLong", JAVA_A, JAVA_C, ((16, 32), (16, 32)), 64, signed_sum=True),
    TruncatedLCG("java.util.Random nextDouble (53 bits)", JAVA_A, JAVA_C, ((22, 26), (21, 27)), 53),
    *_family("lrand48", JAVA_A, JAVA_C, 17, 31, (4,)),
    *_family("MSVC rand()", 214013, 2531011, 16, 15, (2, 1, 4)),
    *_family("ISO C example rand()", 1103515245, 12345, 16, 15, (2, 1, 4)),
    *_family("Borland C rand()", 22695477, 1, 16, 15, (2, 1, 4)),
    *_family("glibc TYPE_0 rand()", 1103515245, 12345, 0, 31, (4, 2, 1)),
    *_family("RANDU", 65539, 0, 0, 31, (4,)),
    *_family("MMIX (Knuth) high 32 bits", 6364136223846793005, 1442695040888963407, 32, 32, (4,)),
    TruncatedLCG("musl rand()", 6364136223846793005, 1, ((33, 31),), 31),
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
    shifts, masks = f.step_shifts(len(y))
    return bool(np.array_equal((states >> shifts) & masks, y))


def _first_word_states(f: TruncatedLCG, y: np.ndarray) -> np.ndarray:
    """Every state x_0 (mod 2^(h+t)) consistent with the first word's steps
    ``y``: the completions of its most telling step, stepped back and forth
    through the others."""
    mask = np.uint64(f.modulus - 1)
    a, c = np.uint64(f.a % f.modulus), np.uint64(f.c % f.modulus)
    a_inverse = np.uint64(pow(f.a, -1, f.modulus))
    shifts, masks = f.step_shifts(len(y))
    k = max(range(len(y)), key=lambda j: int(masks[j]))
    shift, bits = f.parts[k]
    hidden = np.arange(1 << f.hidden_bits, dtype=np.uint64)
    low = hidden & np.uint64((1 << shift) - 1)
    high = (hidden >> np.uint64(shift)) << np.uint64(shift + bits)
    at_k = low | (np.uint64(int(y[k])) << np.uint64(shift)) | high
    x = at_k
    with np.errstate(over="ignore"):
        for j in range(k - 1, -1, -1):
            x = ((x - c) * a_inverse) & mask
            keep = ((x >> shifts[j]) & masks[j]) == y[j]
            x, at_k = x[keep], at_k[keep]
        states = x
        for j in range(k + 1, len(y)):
            at_k = (at_k * a + c) & mask
            keep = ((at_k >> shifts[j]) & masks[j]) == y[j]
            at_k, states = at_k[keep], states[keep]
    return states


def _enumerate(f: TruncatedLCG, y: np.ndarray, first: np.ndarray) -> list[int]:
    """The states x_0 among ``first`` (those of the first word) that give the later steps too."""
    mask = np.uint64(f.modulus - 1)
    a, c = np.uint64(f.a % f.modulus), np.uint64(f.c % f.modulus)
    shifts, masks = f.step_shifts(len(y))
    candidates, x = first, first
    with np.errstate(over="ignore"):
        for j in range(1, len(y)):
            if len(candidates) <= 1:
                break
            x = (x * a + c) & mask
            if j >= len(f.parts):
                keep = ((x >> shifts[j]) & masks[j]) == y[j]
                x, candidates = x[keep], candidates[keep]
    return [int(v) for v in candidates[:16]]


def _lattice(f: TruncatedLCG, y: np.ndarray) -> list[int]:
    """x_0 from the first outputs by LLL and the nearest plane (Frieze et al.);
    families whose words are one step each."""
    k = min(LATTICE_OUTPUTS, len(y))
    if k < 2 or len(f.parts) != 1:
        return []
    (shift, _bits), = f.parts
    m = f.modulus
    powers, offsets = [1], [0]
    for _ in range(k - 1):
        powers.append(powers[-1] * f.a % m)
        offsets.append((offsets[-1] * f.a + f.c) % m)
    basis = [powers] + [[m if j == i else 0 for j in range(k)] for i in range(1, k)]
    half = 1 << (shift - 1) if shift else 0
    target = [((int(y[i]) << shift) - offsets[i]) % m + half for i in range(k)]
    point = nearest_plane(lll_reduce(basis), target)
    return [point[0] % m]


@dataclass
class TruncatedFit(Fit):
    family: TruncatedLCG | None = None
    #: the state that produced the last observed step's output
    state: int = 0
    observed_bytes: int = 0

    def predict(self, nbytes: int) -> np.ndarray:
        f = self.family
        words, skip_bits = continuation(self.observed_bytes, f.word_bits, nbytes)
        count = words * len(f.parts)
        states = lcg_states(self.state, f.a, f.c, f.modulus, count)
        shifts, masks = f.step_shifts(count)
        return f.write((states >> shifts) & masks, skip_bits)[:nbytes]


class TruncatedLCGPredictor(Predictor):
    """Known-constant power-of-two LCGs with hidden low bits (java.util.Random, drand48, C rand())."""

    name = "lcg-truncated"
    summary = "power-of-two LCGs of known constants with hidden low bits: enumeration, or LLL (Frieze et al. 1988)"
    # a family that is there shows in the first outputs; more only confirms it
    max_observed_bytes = 256

    def __init__(self) -> None:
        # what the first outputs allow, by family and outputs: the doubling
        # prefixes of one stream share them, and enumerating is the cost
        self._solved: dict[tuple[str, bytes], Any] = {}

    def _solutions(self, f: TruncatedLCG, y: np.ndarray) -> list[int]:
        enumerated = f.hidden_bits <= MAX_ENUMERATED_BITS
        head = y[:len(f.parts)] if enumerated else y[:LATTICE_OUTPUTS]
        key = (f.name, head.tobytes())
        if key not in self._solved:
            if len(self._solved) > 256:
                self._solved.clear()
            self._solved[key] = _first_word_states(f, head) if enumerated else _lattice(f, head)
        return _enumerate(f, y, self._solved[key]) if enumerated else self._solved[key]

    def fit(self, observed: np.ndarray) -> Fit | NoFit:
        for f in FAMILIES:
            words = f.words(observed)
            if len(words) == 0 or not f.fits(words):
                continue
            y = f.steps(words)
            if len(y) < 2:
                continue
            enumerated = f.hidden_bits <= MAX_ENUMERATED_BITS
            for x0 in self._solutions(f, y):
                states = np.concatenate([[np.uint64(x0)], lcg_states(x0, f.a, f.c, f.modulus, len(y) - 1)])
                if not _outputs_match(states, f, y):
                    continue
                last = int(states[-1])
                structure = {
                    "summary": f"{f.name}: state {last:#x} (mod 2^{f.state_bits}), "
                               f"{f.hidden_bits} hidden bits {'enumerated' if enumerated else 'by LLL'}",
                    "family": f.name, "a": f.a, "c": f.c,
                    "output_bits": [[shift, shift + bits] for shift, bits in f.parts],
                    "word_bits": f.word_bits, "state": last,
                }
                return TruncatedFit(structure, family=f, state=last, observed_bytes=len(observed))
        return NoFit("no known truncated LCG reproduces the words",
                     {"families": sorted({f.name for f in FAMILIES})})
