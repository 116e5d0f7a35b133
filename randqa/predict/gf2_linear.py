"""GF(2)-linear prediction, one bit position at a time.

Source: J. L. Massey, "Shift-register synthesis and BCH decoding", IEEE
Trans. Inform. Theory 15 (1969) 122-127 (the Berlekamp-Massey algorithm);
the use against generators follows L'Ecuyer's and Matsumoto's remark that
every output bit of an F2-linear generator (LFSR113, xorshift, MT19937,
WELL, the low bit of xoroshiro128+) satisfies the characteristic
polynomial of its state transition (P. L'Ecuyer and F. Panneton,
"F2-linear random number generators", 2009, section 2).

Formula.  Read the stream as little-endian words of W = 8, 16, 32 and 64
bits; bit b of successive words is a sequence s_0, s_1, ...  Berlekamp-
Massey gives its linear complexity L and connection polynomial C, with
s_N = c_1 s_{N-1} + ... + c_L s_{N-L} (mod 2) for N >= L.  Massey's
theorem: 2L observed bits determine the sequence, so from then on every
bit of that position is predicted; all positions together predict whole
words.  When one position's recurrence also holds for every other position
(as it does for a generator with one linear state transition), whole words
follow x_N = XOR of x_{N-i} over the taps of C, which is how words are
predicted and why one Berlekamp-Massey run suffices for long recurrences.

Minimum data.  2L words of the right width: 904 bytes for LFSR113
(L = 113 at every position of 32-bit words), 256 for xorshift32 (L = 32),
159,496 for MT19937 (L = 19937), 2 * 19937 * 8 bytes for MT19937-64.
Bounds on cost: each position is analysed over at most 8,192 words, and
the shared recurrence is probed on bit 0 over at most 16,384 words of 8 and
16 bits and 65,536 words of 32 and 64 bits, which bounds the recurrences
found at half of those and the observed prefix at 512 KiB.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from randqa.predict import _gf2_recurrence
from randqa.predict.base import Fit, NoFit, Predictor, bytes_of, shorten, words_of

WIDTHS = (1, 2, 4, 8)
#: words per bit position analysed one by one
POSITION_WORDS = 1 << 13
#: words of the shared-recurrence probe on bit 0, by word width in bytes
PROBE_WORDS = {1: 1 << 14, 2: 1 << 14, 4: 1 << 16, 8: 1 << 16}
#: a position counts as linear in a partial result when its observed bits
#: exceed twice its complexity by this much (2^-32 for a random sequence)
MARGIN_BITS = 32
MIN_WORDS = 16


@dataclass
class _WidthModel:
    word_bytes: int
    #: per position: complexity, the words it was measured on, and its polynomial
    lengths: np.ndarray
    observed: np.ndarray
    polys: np.ndarray
    #: per position: were those words all the prefix had (else a capped analysis)
    whole_prefix: np.ndarray
    #: positions following the shared word recurrence (mask), its complexity and taps
    shared_mask: int = 0
    shared_length: int = 0
    shared_taps: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def positions(self) -> int:
        return 8 * self.word_bytes

    @property
    def slack(self) -> np.ndarray:
        return self.observed - 2 * self.lengths

    @property
    def determined(self) -> np.ndarray:
        """Massey: 2L bits determine a sequence of complexity L.  When the
        analysis stopped short of the prefix, L may still grow, so a margin
        is asked for instead."""
        return self.slack >= np.where(self.whole_prefix, 0, MARGIN_BITS)

    @property
    def complete(self) -> bool:
        return bool(np.all(self.determined))

    @property
    def strong_positions(self) -> list[int]:
        return [b for b in range(self.positions) if self.slack[b] >= MARGIN_BITS]

    def needed_bytes(self) -> int:
        return int(2 * self.lengths.max()) * self.word_bytes

    def summary(self) -> str:
        bits = 8 * self.word_bytes
        if self.complete:
            if self.shared_mask == (1 << bits) - 1:
                return (f"{bits}-bit words: one recurrence for all bits, degree {self.shared_length}, "
                        f"{len(self.shared_taps)} taps")
            lengths = sorted(set(int(v) for v in self.lengths))
            return f"{bits}-bit words: all bits linear, complexities {shorten(lengths)}"
        strong = self.strong_positions
        constant = [b for b in strong if self.lengths[b] == 0]
        linear = [b for b in strong if self.lengths[b] > 0]
        parts = []
        if linear:
            parts.append(f"bits {shorten(linear)} linear (complexity {shorten([int(self.lengths[b]) for b in linear])})")
        if constant:
            parts.append(f"bits {shorten(constant)} constant 0")
        if parts:
            return f"{bits}-bit words: " + ", ".join(parts) + ", the others not linear"
        return "no bit of 8- to 64-bit words has complexity below half its length"


class _PolynomialCache:
    """Berlekamp-Massey results by the exact words they were computed on, so
    doubling prefixes do not redo a capped analysis."""

    def __init__(self) -> None:
        self._store: dict[tuple[int, int, int, int, bytes], tuple[np.ndarray, np.ndarray]] = {}

    def get(self, data: np.ndarray, word_bytes: int, first_bit: int, nbits: int) -> tuple[np.ndarray, np.ndarray]:
        digest = hashlib.blake2b(data.tobytes(), digest_size=16).digest()
        key = (word_bytes, first_bit, nbits, len(data), digest)
        if key not in self._store:
            n = len(data) // word_bytes
            lengths = np.zeros(nbits, dtype=np.int64)
            polys = np.zeros((nbits, (n + 63) // 64 + 3), dtype=np.uint64)
            _gf2_recurrence.minimal_polynomials(data, word_bytes, first_bit, nbits, lengths, polys)
            if len(self._store) > 64:
                self._store.clear()
            self._store[key] = (lengths, polys)
        return self._store[key]


def _taps(poly: np.ndarray, length: int) -> np.ndarray:
    """The offsets i >= 1 with c_i = 1."""
    bits = np.unpackbits(poly.astype("<u8").view(np.uint8), bitorder="little")[: length + 1]
    taps = np.flatnonzero(bits).astype(np.int64)
    return taps[taps >= 1]


def _model_for_width(observed: np.ndarray, word_bytes: int, cache: _PolynomialCache) -> _WidthModel | None:
    n = len(observed) // word_bytes
    if n < MIN_WORDS:
        return None
    positions = 8 * word_bytes
    all_bits = (1 << positions) - 1
    words = words_of(observed, word_bytes)
    # the shared recurrence, probed on bit 0
    n_probe = min(n, PROBE_WORDS[word_bytes])
    probe_len, probe_poly = cache.get(observed[: n_probe * word_bytes], word_bytes, 0, 1)
    shared_mask, shared_length, taps = 0, 0, np.zeros(0, dtype=np.int64)
    length0 = int(probe_len[0])
    if 2 * length0 <= n_probe:
        taps = _taps(probe_poly[0], length0)
        # bit 0 follows its own recurrence: stop once every other bit has failed
        failed = _gf2_recurrence.xor_recurrence_failures(words[:n_probe], length0, taps, all_bits & ~1)
        shared_mask = all_bits & ~failed
        shared_length = length0
    # the other positions one by one
    n_pos = min(n, POSITION_WORDS)
    lengths = np.zeros(positions, dtype=np.int64)
    observed_words = np.full(positions, n_pos, dtype=np.int64)
    whole_prefix = np.full(positions, n_pos == n)
    stride = max((n_pos + 63) // 64 + 3, (shared_length + 63) // 64 + 3)
    polys = np.zeros((positions, stride), dtype=np.uint64)
    if shared_mask != all_bits:
        pos_len, pos_poly = cache.get(observed[: n_pos * word_bytes], word_bytes, 0, positions)
        lengths[:] = pos_len
        polys[:, : pos_poly.shape[1]] = pos_poly
    for b in range(positions):
        if shared_mask >> b & 1:
            lengths[b] = shared_length
            observed_words[b] = n_probe
            whole_prefix[b] = n_probe == n
            k = min(stride, probe_poly.shape[1])
            polys[b, :] = 0
            polys[b, :k] = probe_poly[0, :k]
    # bits never set have complexity 0 whichever recurrence they also satisfy
    ever_set = int(np.bitwise_or.reduce(words)) if n else 0
    for b in range(positions):
        if not (ever_set >> b) & 1:
            lengths[b] = 0
    return _WidthModel(word_bytes, lengths, observed_words, polys, whole_prefix, shared_mask, shared_length, taps)


@dataclass
class LinearFit(Fit):
    model: _WidthModel | None = None
    #: the last observed whole words, as bytes
    history: np.ndarray | None = None
    #: observed bytes after the last whole word (the prediction starts there)
    skip: int = 0
    #: positions predicted one by one (the others are left 0)
    predicted_positions: int = 0

    def predict(self, nbytes: int) -> np.ndarray:
        m, w = self.model, self.model.word_bytes
        nwords = -(-(nbytes + self.skip) // w)
        out = np.zeros(nwords * w, dtype=np.uint8)
        all_bits = (1 << m.positions) - 1
        shared_mask = m.shared_mask
        # a dense shared polynomial is cheaper run bit by bit on the few positions it covers
        shared_count = bin(shared_mask).count("1")
        if shared_mask and len(m.shared_taps) > shared_count * (m.shared_length // 64 + 1):
            shared_mask = 0
        if shared_mask != all_bits:
            # positions on the shared recurrence are overwritten below
            skip_bit = [(shared_mask >> b) & 1 or not (self.predicted_positions >> b) & 1 for b in range(m.positions)]
            lengths = np.where(skip_bit, 0, m.lengths).astype(np.int64)
            hist_words = int(lengths.max(initial=0))
            _gf2_recurrence.extend_bit_positions(
                self.history[len(self.history) - hist_words * w:].tobytes(), w, lengths, m.polys, out)
        if shared_mask:
            h = m.shared_length
            words = np.zeros(h + nwords, dtype=np.uint64)
            words[:h] = words_of(self.history[len(self.history) - h * w:], w) if h else 0
            _gf2_recurrence.extend_xor_recurrence(words, h, m.shared_taps)
            shared = bytes_of(words[h:] & np.uint64(shared_mask), w)
            keep = bytes_of(np.full(nwords, all_bits & ~shared_mask, dtype=np.uint64), w)
            out = (out & keep) | shared
        return out[self.skip: self.skip + nbytes]

    def describe_check(self, predicted: np.ndarray, actual: np.ndarray) -> dict[str, Any]:
        w, skip = self.model.word_bytes, (-self.skip) % self.model.word_bytes
        n = (len(actual) - skip) // w
        if n <= 0:
            return {}
        span = slice(skip, skip + n * w)
        wrong = np.bitwise_or.reduce(words_of(predicted[span], w) ^ words_of(actual[span], w))
        exact = [b for b in range(8 * w) if not (int(wrong) >> b) & 1]
        return {"exact_bit_positions": shorten(exact, 12) if len(exact) < 8 * w else "all"}


class GF2LinearPredictor(Predictor):
    """Berlekamp-Massey per bit position of 8/16/32/64-bit words."""

    name = "gf2-linear"
    summary = "Berlekamp-Massey per bit position of 8/16/32/64-bit words (Massey 1969)"
    min_observed_bytes = 64
    max_observed_bytes = 8 * PROBE_WORDS[8]
    granularity = 8
    bisect = False

    def __init__(self) -> None:
        self._cache = _PolynomialCache()

    def fit(self, observed: np.ndarray) -> Fit | NoFit:
        models = [m for w in WIDTHS if (m := _model_for_width(observed, w, self._cache)) is not None]
        if not models:
            return NoFit(f"needs at least {MIN_WORDS} words")
        complete = [m for m in models if m.complete]
        if complete:
            # the most slack per byte observed; ties go to the wider word
            best = max(complete, key=lambda m: (int(m.slack.min()) * m.word_bytes, m.word_bytes))
            hint = best.needed_bytes()
            predicted = (1 << best.positions) - 1
        else:
            # the largest share of linear positions; ties go to the narrower word
            best = max(models, key=lambda m: (len(m.strong_positions) / m.positions, -m.word_bytes))
            if not best.strong_positions:
                return NoFit(best.summary())
            hint = None
            # only the linear positions are worth running forward
            predicted = sum(1 << b for b in best.strong_positions)
        structure = {
            "summary": best.summary(),
            "word_bits": 8 * best.word_bytes,
            "complexities": shorten([int(v) for v in best.lengths], 8),
        }
        if best.shared_mask:
            structure["shared_recurrence_degree"] = best.shared_length
            structure["shared_taps"] = shorten([int(t) for t in best.shared_taps], 8)
        history_bytes = int(max(best.lengths.max(initial=0), best.shared_length)) * best.word_bytes
        usable = len(observed) // best.word_bytes * best.word_bytes
        return LinearFit(structure, needed_bytes=hint, model=best,
                         history=observed[usable - history_bytes: usable].copy(), skip=len(observed) - usable,
                         predicted_positions=predicted)
