"""Knuth's gap test on bytes or words.

Source: D. E. Knuth, TAOCP vol. 2, 3rd ed. (1997), section 3.3.2 B
("Gap test", Algorithm G); P. L'Ecuyer and R. Simard, "TestU01", ACM TOMS
33 (2007), sknuth_Gap.

The stream is read as little-endian words of ``word_bytes`` bytes, each
seen as u = w / 2^(8 word_bytes) in [0, 1).  A word with alpha <= u < beta
is a hit (probability p = beta - alpha, exact after rounding alpha and beta
up to the grid of word values); the gap before a hit is the number of
non-hits since the previous hit (for the first hit, since the start of the
stream, as in Algorithm G).  Gaps are independent with
P(gap = r) = p (1 - p)^r, so the counts of gaps 0, 1, ..., t-1 and >= t
(t = ``max_gap``, the last class having probability (1 - p)^t) follow a
multinomial law, and Pearson's X^2 over the t + 1 classes is judged
(upper tail reported; the lower tail too, since gaps spread too evenly are
as wrong).  The rarest classes expect few gaps, so the chi-square law with
t degrees of freedom is far off in the tail (11 times too many p-values
below 1e-6 with 1,280 byte gaps): up to 16,384 gaps and 12 classes the
tails are the exact multinomial ones (randqa/battery/_multinomial.py; a
larger t has its longest gaps merged into one class down to 12 classes),
beyond them the longest gaps are merged until every class expects 1,000,
where the chi-square law is within 10% at 1e-6.  Those tails are the exact
ones of a fixed number of independent geometric gaps; a stream of fixed
length makes the number random, which leaves the limit law alone (each
gap's class, given everything before it, has the geometric law, so the
centred counts are a martingale with the multinomial covariance) and is not
in the exact sum: benchmarks/calibration.py counts, over many streams, how
often the result is suspicious against what the sum predicts.  The gap that
is still open at the end of the stream is not counted.

Parameters:
  word_bytes  1, 2, 4 or 8 (default 1)
  alpha, beta the hit interval [alpha, beta), 0 <= alpha < beta <= 1
              (default [0, 1/2): "runs below the mean", Knuth)
  max_gap     t, gaps >= t share the last class (default 8)
Needs 5 expected gaps in the rarest class.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from randqa.battery import _counts
from randqa.battery._blocks import WholeBlockTest
from randqa.battery._multinomial import choose_classes, class_result
from randqa.battery.base import OBJECT_BYTES, MemoryNeed, Range
from randqa.results import TestResult, insufficient

MIN_EXPECTED = 5


class Gap(WholeBlockTest):
    name = "gap"
    parameter_ranges: ClassVar[dict[str, Range]] = {
        "word_bytes": Range(1, 8), "alpha": Range(0.0, 1.0), "beta": Range(0.0, 1.0), "max_gap": Range(1, 100_000)}

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        classes = cls.with_defaults(params)["max_gap"] + 1
        # the histogram; at finalize its copy, the class probabilities and
        # expected counts, and the counts as a list in the result
        return MemoryNeed(8 * classes + OBJECT_BYTES, 120 * classes + 64)

    def __init__(self, *, word_bytes: int = 1, alpha: float = 0.0, beta: float = 0.5, max_gap: int = 8) -> None:
        if word_bytes not in (1, 2, 4, 8):
            raise ValueError(f"word_bytes must be 1, 2, 4 or 8, not {word_bytes!r}")
        super().__init__(word_bytes)
        if not (isinstance(alpha, (int, float)) and isinstance(beta, (int, float)) and 0 <= alpha < beta <= 1):
            raise ValueError(f"need 0 <= alpha < beta <= 1, got alpha={alpha!r}, beta={beta!r}")
        if not (isinstance(max_gap, int) and not isinstance(max_gap, bool) and 1 <= max_gap <= 100_000):
            raise ValueError(f"max_gap must be an integer from 1 to 100000, not {max_gap!r}")
        self.word_bytes = word_bytes
        self.alpha = alpha
        self.beta = beta
        self.max_gap = max_gap
        values = 2 ** (8 * word_bytes)
        self.low = math.ceil(alpha * values)
        self.high = math.ceil(beta * values)
        if self.high <= self.low:
            raise ValueError(f"[alpha, beta) = [{alpha}, {beta}) holds no {8 * word_bytes}-bit value")
        self.hit_probability = (self.high - self.low) / values
        if self.hit_probability == 1.0:
            raise ValueError("[alpha, beta) must not hold every value: every gap would be 0")
        self.hist = np.zeros(max_gap + 1, dtype=np.int64)
        self.lead: int | None = None  # the gap before the first hit, once seen
        self.open = 0  # words since the last hit (or since the start)

    def _scan(self, run: np.ndarray) -> None:
        first, self.open = _counts.gap_scan(run, self.word_bytes, self.low, self.high, self.hist, self.open)
        if first >= 0:
            if self.lead is None:
                self.lead = first
            else:
                self._count(first)

    def _count(self, gap: int) -> None:
        self.hist[min(gap, self.max_gap)] += 1

    def _add_counts(self, other: "Gap") -> None:
        self.hist += other.hist
        if other.lead is None:
            self.open += other.open
        else:
            joined = self.open + other.lead  # the gap that spans the join
            if self.lead is None:
                self.lead = joined
            else:
                self._count(joined)
            self.open = other.open

    def class_probabilities(self, t: int | None = None) -> np.ndarray:
        """P(gap = 0), ..., P(gap = t - 1), P(gap >= t) (t: max_gap by default)."""
        p = self.hit_probability
        t = self.max_gap if t is None else t
        probs = p * (1 - p) ** np.arange(t, dtype=np.float64)
        return np.append(probs, (1 - p) ** t)

    def finalize(self) -> list[TestResult]:
        label = f"{self.name}[alpha={self.alpha:g},beta={self.beta:g}" + (f",word_bytes={self.word_bytes}]" if self.word_bytes > 1 else "]")
        counts = self.hist.copy()
        if self.lead is not None:
            counts[min(self.lead, self.max_gap)] += 1
        gaps = int(counts.sum())
        probs = self.class_probabilities()
        needed = math.ceil(MIN_EXPECTED / probs.min())
        if gaps < needed:
            about = math.ceil(needed / self.hit_probability) * self.word_bytes
            return [insufficient(label, f"at least {needed} gaps (5 expected in each class), about {about} bytes", gaps=gaps)]
        # the longest gaps merged into the last class, t' = max_gap (finest) down to 1
        candidates = [(self.class_probabilities(t), np.arange(t + 1)) for t in range(self.max_gap, 0, -1)]
        classes = choose_classes(candidates, gaps, min_expected=MIN_EXPECTED)
        assert classes is not None  # the finest has 5 expected (above)
        observed = np.add.reduceat(counts, classes.starts).astype(np.float64)
        return [class_result(label, observed, classes, details={
            "gaps": gaps, "hit_probability": self.hit_probability, "classes": len(classes.starts),
            "counts": counts.tolist()})]
