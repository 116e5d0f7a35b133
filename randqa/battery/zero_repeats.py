"""Equal bytes about a table's length apart around each zero byte: the
state of an RC4-like generator, which a zero output can leave in place.

Sources: I. Mantin and A. Shamir, "A practical attack on broadcast RC4",
FSE 2001 (RC4's step i = i + 1, j = j + S[i], swap S[i] and S[j], output
S[S[i] + S[j]]: a zero in the table keeps j, so the generator's state
around that step repeats its shape); S. R. Fluhrer and D. A. McGrew,
"Statistical analysis of the alleged RC4 keystream generator", FSE 2000
(its biases come back with the counter i, every 256 outputs);
C. Doty-Humphrey, PractRand 0.94, the weakened RC4 variants of its zoo
(rc4_weakenedA and rc4_weakenedB, which its standard battery fails at 8 GB
and 256 GB; its run on rc4_weakenedA to 8 GB shows the leak only in FPF
and Gap-16, both about zero bytes).  The test is written here from the
step: after a zero output the byte one position before it comes back about
one turn of the counter later (for rc4_weakenedA, z(t + 256) = z(t - 1) in
about 13% of the zeros where random bytes give 1/256), so it fails
rc4_weakenedA at 32 KiB and rc4_weakenedB at 256 MiB.

Formula.  z_0, z_1, ... are the stream's bytes and T the table size
(``table``).  For every position t with z_t = 0, every offset a in {-1,
+1} and every lag L = k T + d (k = 1 .. ``multiples``, |d| <= ``spread``)
the pair (u, v) = (t + a, t + a + L) is counted in M(a, L) when neither
z_u nor z_v is zero, and in E(a, L) when moreover z_u = z_v.

Law: given which bytes of the stream are zero, the others are independent
and uniform on 1 .. 255.  The pairs (u, u + L) of one cell form paths
along steps of L (two pairs share a byte only when one starts where the
other ends), and along a path of independent uniform bytes the equalities
of consecutive ones are independent, each of probability 1/255.  So
E(a, L) given the zeros is Binomial(M(a, L), 1/255) exactly, and each cell
gives both exact binomial tails.  ``pvalue`` is the smallest upper tail
(too many repeats) times the number of cells, ``pvalue_low`` the smallest
lower tail times the same (Bonferroni: cells share bytes), both bounds.

Parameters:
  table      T, the lags' period in bytes (default 256, a byte table's
             size; 2 to 65536)
  multiples  lags near k T for k = 1 .. multiples (default 4; 1 to 16)
  spread     lags k T - spread .. k T + spread (default 2; 0 to T/2 - 1)
Minimum data: ``MIN_ZEROS`` = 256 zeros counted (about 1 expected repeat
per cell), each with its window of multiples T + spread + 3 bytes: with
the defaults about 66,600 bytes of random data.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from randqa.battery import _counts
from randqa.battery._blocks import WholeBlockTest
from randqa.battery._stream_ends import StreamEnds
from randqa.battery.base import OBJECT_BYTES, MemoryNeed, Range, is_whole
from randqa.results import TestResult, binomial_tails, insufficient

#: offsets a of the compared pair from the zero byte
OFFSETS = (-1, 1)
#: the chance that two independent bytes in 1 .. 255 are equal
REPEAT_PROBABILITY = 1 / 255
MIN_ZEROS = 256


class ZeroRepeats(WholeBlockTest):
    name = "zero_repeats"
    parameter_ranges: ClassVar[dict[str, Range]] = {
        "table": Range(2, 65536), "multiples": Range(1, 16), "spread": Range(0, 32767)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        p = cls.with_defaults(params)
        cells = len(OFFSETS) * p["multiples"] * (2 * p["spread"] + 1)
        span = window_span(p["table"], p["multiples"], p["spread"])
        # the counts, the offsets and lags, the first span bytes and the
        # last in a buffer of twice that (StreamEnds); at finalize the tails
        return MemoryNeed(8 * (2 * cells + 1) + 8 * cells + 3 * span + OBJECT_BYTES, 64 * cells + 4096)

    def __init__(self, *, table: int = 256, multiples: int = 4, spread: int = 2) -> None:
        if not (is_whole(table) and 2 <= table <= 65536):
            raise ValueError(f"table must be a whole number from 2 to 65536, not {table!r}")
        if not (is_whole(multiples) and 1 <= multiples <= 16):
            raise ValueError(f"multiples must be a whole number from 1 to 16, not {multiples!r}")
        if not (is_whole(spread) and 0 <= spread < table // 2):
            raise ValueError(f"spread must be a whole number from 0 to table / 2 - 1 = {table // 2 - 1}, not {spread!r}")
        super().__init__(1)
        self.table = table
        self.multiples = multiples
        self.spread = spread
        self.offsets = np.array(OFFSETS, dtype=np.int64)
        self.lags = np.array([k * table + d for k in range(1, multiples + 1) for d in range(-spread, spread + 1)],
                             dtype=np.int64)
        #: [0] the zeros counted; then per cell (offset, lag) the pairs without a zero and the equal ones
        self.counts = np.zeros(1 + 2 * len(self.offsets) * len(self.lags), dtype=np.int64)
        self.span = window_span(table, multiples, spread)
        self.ends = StreamEnds(self.span)  # a window's bytes before and after a join

    def _state_saved_elsewhere(self) -> tuple[str, ...]:
        # they follow from the parameters: the suite rebuilds them
        return ("offsets", "lags")

    def _scan(self, run: np.ndarray) -> None:
        _counts.zero_repeat_scan(self.ends.history, run, 1 << 62, self.offsets, self.lags, self.counts)
        self.ends.append(run)

    def _add_counts(self, other: "ZeroRepeats") -> None:
        # the windows that start in this part and end in the other's first bytes
        history = self.ends.history
        _counts.zero_repeat_scan(history, other.ends.head, len(history), self.offsets, self.lags, self.counts)
        self.counts += other.counts
        self.ends.join(other.ends)

    def finalize(self) -> list[TestResult]:
        label = f"{self.name}[table={self.table},lags{self.lags[0]}-{self.lags[-1]}]"
        zeros = int(self.counts[0])
        if zeros < MIN_ZEROS:
            needed = MIN_ZEROS * 256 + self.span + 1
            return [insufficient(label, f"about {needed} bytes of random data ({MIN_ZEROS} zero bytes, "
                                        f"each with {self.span + 1} bytes around it; {zeros} so far)")]
        cells = self.counts[1:].reshape(len(self.offsets), len(self.lags), 2)
        pairs, equal = cells[..., 0].ravel(), cells[..., 1].ravel()
        upper, lower = binomial_tails(equal, pairs, REPEAT_PROBABILITY)
        most, fewest = int(np.argmin(upper)), int(np.argmin(lower))
        expected = pairs * REPEAT_PROBABILITY
        worst = most if upper[most] <= lower[fewest] else fewest
        n = len(pairs)

        def cell(k: int) -> dict[str, Any]:
            return {"offset": int(self.offsets[k // len(self.lags)]), "lag": int(self.lags[k % len(self.lags)]),
                    "pairs": int(pairs[k]), "equal": int(equal[k]), "expected": round(float(expected[k]), 3)}

        return [
            TestResult(
                name=label,
                statistic=float((equal[worst] - expected[worst]) / np.sqrt(max(expected[worst], 1e-300))),
                pvalue=min(1.0, float(upper[most]) * n),
                pvalue_low=min(1.0, float(lower[fewest]) * n),
                details={"zeros": zeros, "cells": n, "most_repeats": cell(most), "fewest_repeats": cell(fewest)},
                pvalue_kind="bound",
            )
        ]


def window_span(table: int, multiples: int, spread: int) -> int:
    """Bytes a window reaches beyond its first: from t - 1 to t + 1 + the largest lag."""
    return 2 + multiples * table + spread
