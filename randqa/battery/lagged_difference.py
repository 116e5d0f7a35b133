"""Finite differences of words at power-of-two lags: the lattice of a
truncated LCG modulo 2^K, seen in the low bits of its outputs.

Sources: D. E. Knuth, TAOCP vol. 2, 3rd ed. (1997), sections 3.2.1.1 and
3.2.1.2 (the low-order bits of an LCG modulo 2^K; Lemma P, from which
a^(2^j) = 1 mod 2^(j+2) for odd a, j >= 1) and section 3.3.4 (the lattice of consecutive outputs that the
spectral test measures); P. L'Ecuyer and R. Simard, "TestU01", ACM TOMS 33
(2007), and C. Doty-Humphrey, PractRand 0.94, tests.cpp, TripleMirrorFreqN
("TMFn"): both fail truncated power-of-two LCGs through the relation
between outputs a power of two apart (TMFn counts the joint patterns of a
few bits of three 64-bit words 2^l KiB apart; TestU01's Crush finds the
MMIX LCG with birthday spacings in 7 and 8 dimensions, 20 million points
a block; here an arithmetic difference of five words singles out the
relation, so a few hundred samples suffice); N. Cressie and T. R. C. Read,
"Multinomial goodness-of-fit tests", J. R. Stat. Soc. B 46 (1984) 440-464
(the power-divergence statistic with lambda = 2/3).

The stream is read as little-endian words of ``word_bits`` bits; y(n) is
the low byte of word n.  For the order k and each lag D = 1, 2, 4, ...,
``max_lag`` the test counts the classes of

    z(n) = sum_{i=0..k} (-1)^(k-i) C(k, i) y(n + i D)   mod 2^m

(m = ``bits``; for k = 4, y0 - 4 y1 + 6 y2 - 4 y3 + y4); with ``min_lag``
only the lags from it on.  Why this catches
an LCG x' = a x + c mod 2^K that outputs y = x >> s (its top K - s bits):
for D = 2^j and a = 1 mod 4, x(n + D) = A x(n) + C with A = a^D = 1 +
2^(j+2) u, so the k-th difference of the states is (A - 1)^k x(n) + const,
constant modulo 2^(k(j+2)).  Once k(j+2) >= s + m, the low m bits of z(n)
are that constant minus a carry from the discarded low s bits, a small
integer spread about as sum_i (-1)^(k-i) C(k, i) U_i is (U_i uniform on
[0, 1); standard deviation sqrt(C(2k, k) / 12), 2.4 for k = 4): for the
MMIX LCG at D = 128, 8 of the 16 values hold 89% of the counts.
With k = 4 and m = 4 that happens at D = 2^(s/4 - 1): D = 128 words for
Knuth's MMIX LCG (K = 64, s = 32; PractRand 0.94 needs 32 MiB), D = 8 for
java.util.Random (K = 48, s = 16), D = 2^16 32-bit words (2^15 outputs)
for the top 64 bits of a 128-bit LCG.  Outputs narrower than the words read
(an LCG's top byte per byte, read as 32-bit words) only multiply D by the
words' width in outputs.
A higher order reaches a deeper truncation at a shorter lag, for a wider
carry spread: with k = 8 (standard deviation 33) z(n) mod 2^8 is that
constant plus a spread over about a quarter of its 256 values, once
8(j + 2) >= s + 8: D = 2^11 for the top 32 bits of a 128-bit LCG, where
k = 4 and m = 4 would need D = 2^23, and 2^10 32-bit words for the top 16
bits of a 112-bit one.  It also fails the multi-word "big base" LCGs of
PractRand's zoo (bblcg(32,288,32)) at lag 2.  Such a spread shows as well
in the top t = ``top_bits`` of the m bits, 2^t classes of 2^(m - t)
neighbouring values (t = 4: about 2 classes wide), whose statistic needs
2^(m - t) times fewer samples than all 2^m values and keeps the tail
calibrated for 16 classes (256 classes with 8 expected each are 1.2 times
chi-square's tail at the suspicious threshold).

For independent uniform words z(n) is uniform on the 2^m classes and the
z(n) of distinct starts n are independent (each z(n) is y(n + k D) plus
words of lower index, a bijection given those), so the counts of each lag
are multinomial.  Each lag gives the power-divergence statistic with
lambda = 2/3 against the uniform law, whose tail is far closer to the
chi-square law with 2^m - 1 degrees of freedom than Pearson's X^2 is
(Cressie-Read): with 8 expected in each of 16 classes the exact
multinomial tail (randqa/battery/_multinomial.py) at chi-square's 1e-6
point is about 1.1e-6 where Pearson's is 3e-6; at the depth the
Bonferroni adjustment asks of a lag (1e-6 / 17) it is 1.09 times
chi-square's with 32 expected and 1.045 times with 64.  A lag is judged
once it has at least ``MIN_EXPECTED`` = 8 expected counts per class; below
``CHI_SQUARE_MIN_EXPECTED`` = 64 its tail
is the exact multinomial one when it can change the result (the lags
within twice the smallest p-value, when that times the lags judged is
below 0.1).  The
one result is the smallest p-value of the judged lags, times their number
(Bonferroni: the lags share words, so they are not independent), a
conservative bound.

Only starts n with n mod ``period`` < ``starts`` are counted (by default
256 starts in every 16,384 words, a 1/64 sample that keeps the test fast;
the first ``starts`` starts of the stream are always in it).  The samples
stay independent under the hypothesis, as any set of distinct starts does.
When every lag is a multiple of the period (``min_lag`` a multiple of it),
a window reads only words n + i D with the residue of its start, so only
the words of residue below ``starts`` are kept (``starts / period`` of
them), renumbered without the gaps: lags of ``D starts / period`` in that
sequence count the same windows, and the longest lags (2^24 words) keep
128 KiB of low bytes where the whole stream's would be 32 MiB.

Parameters:
  word_bits  8, 16, 32 or 64 (default 32)
  order      k, 1 to 8 (default 4)
  max_lag    the largest lag D in words, a power of two up to 2^24 (default 65536)
  min_lag    the smallest lag D, a power of two up to max_lag (default 1): a
             generator whose structure shows only at long lags is judged on
             those alone, for less work and a smaller Bonferroni factor
  bits       m, low bits of z, 1 to 8 (default 4)
  top_bits   t, the classes judged: the top t of those m bits, 1 to
             min(m, 4) (the default): more classes would need more samples
             for the same power, and their exact tail, where chi-square's
             is off, takes minutes to sum (256 classes: 90 s at 2048 samples)
  starts, period  count starts n with n mod period < starts
             (defaults 256 and 16384; 1 <= starts <= period)
Minimum data: 8 * 2^t counted starts at the smallest lag: at least
8 * 2^t + k min_lag words (with the defaults 132 words, 528 bytes).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from randqa.battery import _differences
from randqa.battery._blocks import WholeBlockTest
from randqa.battery._multinomial import SCREEN_PVALUE, multinomial_tail
from randqa.battery._stream_ends import StreamEnds
from randqa.battery.base import OBJECT_BYTES, MemoryNeed, Range, is_whole
from randqa.folding import fold_low_bits
from randqa.results import TestResult, chi_square_sf, insufficient

MIN_EXPECTED = 8
#: from this many expected per class on, a lag's tail is chi-square's
CHI_SQUARE_MIN_EXPECTED = 64
MAX_LAG = 1 << 24
#: at most 2^MAX_TOP_BITS classes are judged (see top_bits)
MAX_TOP_BITS = 4


def power_divergence(counts: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """Cressie and Read's statistic with lambda = 2/3 of each row of ``counts``
    against equal cell probabilities: 9/5 sum_i h_i ((h_i / e)^(2/3) - 1), e = total / cells."""
    expected = totals[:, None] / counts.shape[1]
    ratio = counts / expected
    return 1.8 * np.sum(counts * (np.cbrt(ratio * ratio) - 1.0), axis=1)



def kept_low_bytes(run: np.ndarray, word_bytes: int, first: int, period: int, starts: int) -> np.ndarray:
    """The low bytes of the words n of ``run`` (whole little-endian words,
    the first numbered ``first``) with n mod period < starts, in order."""
    low = run.reshape(-1, word_bytes)[:, 0]
    n = len(low)
    phase = first % period
    # the words before the run's first whole period, those periods' first
    # starts words, and the first starts words of the period it ends in
    whole_from = min((-first) % period, n)
    head = low[:min(max(starts - phase, 0), whole_from)]
    periods = (n - whole_from) // period
    body = low[whole_from:whole_from + periods * period].reshape(periods, period)[:, :starts]
    tail = low[whole_from + periods * period:][:starts]
    return np.concatenate([head, body.ravel(), tail])


class LaggedDifference(WholeBlockTest):
    name = "lagged_difference"
    parameter_ranges: ClassVar[dict[str, Range]] = {
        "word_bits": Range(8, 64), "order": Range(1, 8), "max_lag": Range(1, MAX_LAG), "min_lag": Range(1, MAX_LAG), "bits": Range(1, 8),
        "top_bits": Range(1, MAX_TOP_BITS), "starts": Range(1, 1 << 30), "period": Range(1, 1 << 30)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        p = cls.with_defaults(params)
        lags = int(p["max_lag"]).bit_length() - int(p["min_lag"]).bit_length() + 1
        span = p["order"] * p["max_lag"]
        counts = 8 * lags << p["bits"]
        words = chunk_bytes // (p["word_bits"] // 8) + 1
        if p["min_lag"] % p["period"] == 0:  # only the kept words (module doc)
            span = -(-span * p["starts"] // p["period"])
            words = -(-words * p["starts"] // p["period"]) + p["starts"]
        # the counts, the low bytes of the first span words and of the last
        # in a buffer of twice that (StreamEnds); per chunk its low bytes,
        # the history joined to them, and the results
        return MemoryNeed(counts + 3 * span + p["word_bits"] // 8 + OBJECT_BYTES, 2 * (words + span) + 4 * counts + 256)

    def __init__(
        self,
        *,
        word_bits: int = 32,
        order: int = 4,
        max_lag: int = 65536,
        min_lag: int = 1,
        bits: int = 4,
        top_bits: int | None = None,
        starts: int = 256,
        period: int = 16384,
    ) -> None:
        if word_bits not in (8, 16, 32, 64):
            raise ValueError(f"word_bits must be 8, 16, 32 or 64, not {word_bits!r}")
        if not (is_whole(order) and 1 <= order <= 8):
            raise ValueError(f"order must be a whole number from 1 to 8, not {order!r}")
        if not (is_whole(max_lag) and 1 <= max_lag <= MAX_LAG and max_lag & (max_lag - 1) == 0):
            raise ValueError(f"max_lag must be a power of two from 1 to {MAX_LAG}, not {max_lag!r}")
        if not (is_whole(min_lag) and 1 <= min_lag <= max_lag and min_lag & (min_lag - 1) == 0):
            raise ValueError(f"min_lag must be a power of two from 1 to max_lag = {max_lag}, not {min_lag!r}")
        if not (is_whole(bits) and 1 <= bits <= 8):
            raise ValueError(f"bits must be a whole number from 1 to 8, not {bits!r}")
        if top_bits is None:
            top_bits = min(bits, MAX_TOP_BITS)
        if not (is_whole(top_bits) and 1 <= top_bits <= min(bits, MAX_TOP_BITS)):
            raise ValueError(f"top_bits must be a whole number from 1 to min(bits, {MAX_TOP_BITS}) = "
                             f"{min(bits, MAX_TOP_BITS)}, not {top_bits!r}")
        if not (is_whole(period) and is_whole(starts) and 1 <= starts <= period <= 1 << 30):
            raise ValueError(f"need whole numbers 1 <= starts <= period <= 2^30, not starts={starts!r}, period={period!r}")
        super().__init__(word_bits // 8)
        self.word_bits = word_bits
        self.order = order
        self.max_lag = max_lag
        self.min_lag = min_lag
        self.bits = bits
        self.top_bits = top_bits
        self.starts = starts
        self.period = period
        self.word_bytes = word_bits // 8
        self.lags = np.array([1 << j for j in range(min_lag.bit_length() - 1, max_lag.bit_length())], dtype=np.int64)
        self.counts = np.zeros((len(self.lags), 1 << bits), dtype=np.int64)
        #: whether only the words of residue below starts are kept (module doc)
        self.decimated = min_lag % period == 0
        #: the kernel's lags, in kept words
        self.kept_lags = self.lags // period * starts if self.decimated else self.lags
        #: words a window spans beyond its start: the low bytes kept from either end
        self.span = order * int(self.kept_lags[-1])
        self.words = 0
        self.ends = StreamEnds(self.span)  # low bytes of the first and the last <= span kept words

    @property
    def alignment(self) -> int:
        # a merged right part numbers its starts from 0: its sampled starts
        # are the stream's when the left part ends on a whole period
        return self.period * self.word_bytes

    def _count(self, history: np.ndarray, lows: np.ndarray, first: int, start_limit: int) -> None:
        # kept words are all starts: each period of starts words is one of the stream's
        period = self.starts if self.decimated else self.period
        _differences.lagged_difference_scan(
            history, lows, first, self.order, self.bits, period, self.starts, start_limit, self.kept_lags, self.counts
        )

    def _scan(self, run: np.ndarray) -> None:
        if self.decimated:
            lows = kept_low_bytes(run, self.word_bytes, self.words, self.period, self.starts)
        else:
            lows, _ = fold_low_bits(run, self.word_bytes, 8, None)  # whole words: nothing carried
        self._count(self.ends.history, lows, self._kept_words(), 1 << 62)
        self.ends.append(lows)
        self.words += len(run) // self.word_bytes

    def _add_counts(self, other: "LaggedDifference") -> None:
        # windows that start in this part and end in the other's first words
        kept = self._kept_words()
        self._count(self.ends.history, other.ends.head, kept, kept)
        self.counts += other.counts
        self.ends.join(other.ends)
        self.words += other.words

    def _kept_words(self) -> int:
        """How many of the words seen are kept: all, or those of residue below starts."""
        if not self.decimated:
            return self.words
        periods, into = divmod(self.words, self.period)
        return periods * self.starts + min(into, self.starts)

    def _needed_words(self) -> int:
        """Words before the smallest lag has MIN_EXPECTED counts per class."""
        need = MIN_EXPECTED << self.top_bits
        full, rest = divmod(need - 1, self.starts)
        return full * self.period + rest + 1 + self.order * self.min_lag

    def finalize(self) -> list[TestResult]:
        top = "" if self.top_bits == self.bits else f",top{self.top_bits}"
        lags = "" if self.min_lag == 1 else f",lags2^{self.min_lag.bit_length() - 1}-2^{self.max_lag.bit_length() - 1}"
        label = f"{self.name}[order={self.order},low{self.bits}/{self.word_bits}{top}{lags}]"
        classes = 1 << self.top_bits
        # a class is 2^(bits - top_bits) neighbouring values of z
        judged_counts = self.counts.reshape(len(self.lags), classes, -1).sum(axis=2)
        samples = judged_counts.sum(axis=1)
        rows = np.flatnonzero(samples >= MIN_EXPECTED * classes)
        statistics = power_divergence(judged_counts[rows], samples[rows])
        pvalues = [chi_square_sf(x, classes - 1) for x in statistics.tolist()]
        # the exact tail where it can change the result: the lags near the
        # smallest p-value, when that times the lags is below the screen
        # (the chi-square tail is within 15% of it from 8 expected on)
        smallest = min(pvalues, default=1.0)
        if smallest * len(pvalues) < SCREEN_PVALUE:
            for k, (x, n) in enumerate(zip(statistics.tolist(), samples[rows].tolist())):
                if n < CHI_SQUARE_MIN_EXPECTED * classes and pvalues[k] < 2 * smallest:
                    pvalues[k] = multinomial_tail(np.full(classes, 1 / classes), int(n), x, kind="cressie_read").pvalue
        judged = sorted(zip(pvalues, statistics.tolist(), self.lags[rows].tolist(), samples[rows].tolist()))
        if not judged:
            return [insufficient(label, f"at least {self._needed_words() * self.word_bytes} bytes "
                                        f"({MIN_EXPECTED * classes} counted starts at lag {self.min_lag})")]
        pvalue, statistic, lag, count = judged[0]
        return [
            TestResult(
                name=label,
                statistic=statistic,
                pvalue=min(1.0, pvalue * len(judged)),
                details={
                    "worst_lag": lag,
                    "worst_lag_samples": count,
                    "worst_lag_pvalue": pvalue,
                    "lags_judged": len(judged),
                    "dof": classes - 1,
                    "worst_lag_counts": judged_counts[int(lag).bit_length() - self.min_lag.bit_length()].tolist(),
                },
                pvalue_kind="bound",
            )
        ]
