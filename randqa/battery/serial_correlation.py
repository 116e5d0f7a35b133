"""Serial correlation coefficient of successive bytes, as ENT computes it.

Source: J. Walker, ENT, "Serial Correlation Coefficient"; the null
distribution from A. Wald and J. Wolfowitz, "An exact test for randomness in
the non-parametric case based on serial correlation", Ann. Math. Statist.
14 (1943) 378-388.

ENT's coefficient is circular (the last byte is paired with the first):
r = (n T1 - T2^2) / (n T3 - T2^2), T1 = sum x_i x_{i+lag}, T2 = sum x_i,
T3 = sum x_i^2.  For lag 1 randqa's r equals ENT's printed value.

p-value: Wald and Wolfowitz give the exact mean and variance of the
circular R = T1 over all orderings of the observed bytes; given the bytes,
r is linear in R, so z = (R - E R) / sqrt(Var R) and p = 2 (1 - Phi(|z|)).
This is exact in its first two moments for every n, with no assumption on
the byte distribution; the same moments hold for any lag with n > 2 lag
(every value still has exactly two neighbours).

How far the normal tail is off: for independent bytes the centred sum
T = sum u_i u_{i+1} (u_i = x_i - mean, circular, n >= 5) has excess
kurtosis (k^2 + 6k - 9) / n, k = E u^4 / (E u^2)^2 = 1.8 for uniform bytes
(expand E T^4: each u must appear at least twice, so only the terms u_i^4
u_{i+1}^4 and the pairs Y_i^2 Y_j^2 remain), 5.04 / n; T is symmetric, so
Edgeworth's first correction to the two-sided tail at z is the relative
(phi(z) / Phi(-z)) (z^3 - 3z) kurtosis / 24: 110 / n at z = 4.9 (p =
1e-6), 11% at 1 KiB.  A verdict therefore needs 4 KiB (under 3%;
benchmarks/calibration.py); below that only a tail under fail_at_once
(1e-20) gives one.

Parameters:
  lags   list of lags (default [1]); lag 1 is ENT's coefficient.
Needs at least 4096 bytes for a verdict (100 for a p-value) and n > 2 * lag.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from randqa.battery import _counts
from randqa.battery._shared import ByteCounts
from randqa.battery._sharing import Reads, SharesStatistic
from randqa.battery.base import OBJECT_BYTES, MemoryNeed, Range
from randqa.results import TestResult, Verdict, insufficient, normal_sf

MIN_BYTES = 100
#: bytes for a verdict: where the normal tail is within 3% at 1e-6 (module doc)
VERDICT_BYTES = 4096
_VALUES = np.arange(256, dtype=object)


class SerialCorrelation(SharesStatistic):
    name = "serial_correlation"
    parameter_ranges: ClassVar[dict[str, Range]] = {"lags": Range(1, 1 << 20, items=64)}
    reads = Reads(ByteCounts, lags=[1])

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        lags = list(cls.with_defaults(params)["lags"])
        span = max(lags)
        # the stream's first and last `span` bytes; while a chunk is added,
        # the pairs across its start (up to 4 copies of a lag's bytes) or
        # the grown head and tail with the chunk's piece
        return MemoryNeed(2 * span + 128 * len(lags) + OBJECT_BYTES, 5 * span + 2 * min(span, chunk_bytes) + 4096,
                          len(lags))

    def __init__(self, *, lags: list[int] | tuple[int, ...] = (1,)) -> None:
        super().__init__()
        lags = list(lags)
        if not lags or any(not isinstance(k, int) or isinstance(k, bool) or k < 1 for k in lags) or len(set(lags)) < len(lags):
            raise ValueError(f"lags must be a non-empty list of distinct positive integers, not {lags!r}")
        self.lags = lags
        self.span = max(lags)
        self.counts = np.zeros(256, dtype=np.int64)
        self.products = {k: 0 for k in lags}  # sum x_i x_{i+k}, non-circular
        self.head = b""  # the first `span` bytes of the stream
        self.tail = b""  # the last `span` bytes of the stream

    def _update(self, chunk: np.ndarray) -> None:
        _counts.byte_histogram(chunk, self.counts)
        for k in self.lags:
            # pairs that straddle the previous chunk and this one, then pairs inside it
            self.products[k] += _straddling_products(self.tail, chunk[:k].tobytes(), k)
            self.products[k] += _counts.lag_product_sum(chunk, k)
        if len(self.head) < self.span:
            self.head = (self.head + chunk[: self.span].tobytes())[: self.span]
        self.tail = (self.tail + chunk[-self.span :].tobytes())[-self.span :]

    def _merge(self, other: "SerialCorrelation") -> None:
        if other.bytes_seen == 0:
            return
        for k in self.lags:
            self.products[k] += _straddling_products(self.tail, other.head, k) + other.products[k]
        self.counts += other.counts
        self.head = (self.head + other.head)[: self.span]
        self.tail = (self.tail + other.tail)[-self.span :]

    def _sums(self) -> tuple[int, np.ndarray, dict[int, int], bytes, bytes]:
        """The bytes seen, their histogram, the non-circular lag products, the first and the last bytes."""
        if self.shared is None:
            return self.bytes_seen, self.counts, self.products, self.head, self.tail
        pairs = self._statistic()
        ends = (bytes([pairs.first_byte]), bytes([pairs.last_byte])) if pairs.bytes_seen else (b"", b"")
        return pairs.bytes_seen, pairs.histogram(), {1: pairs.lag1_products()}, *ends

    def finalize(self) -> list[TestResult]:
        n, histogram, products, head, tail = self._sums()
        counts = histogram.astype(object)  # exact integer moments
        s1, s2, s3, s4 = (int(np.sum(counts * _VALUES**r)) for r in (1, 2, 3, 4))
        results = []
        for k in self.lags:
            label = self.name if self.lags == [1] else f"{self.name}[lag={k}]"
            if n < max(MIN_BYTES, 2 * k + 1):
                results.append(insufficient(label, f"at least {max(MIN_BYTES, 2 * k + 1)} bytes", bytes=n))
                continue
            # circular wrap: the last k bytes pair with the first k
            t1 = products[k] + _straddling_products(tail, head, k)
            denominator = n * s2 - s1 * s1
            if denominator == 0:
                results.append(TestResult(label, None, 0.0, verdict=Verdict.FAIL, details={"note": "every byte has the same value"}))
                continue
            r = Fraction(n * t1 - s1 * s1, denominator)
            # exact rationals: the terms are ~n^2 larger than their difference
            mean = Fraction(s1 * s1 - s2, n - 1)
            var = (
                Fraction(s2 * s2 - s4, n - 1)
                + Fraction(s1**4 - 4 * s1 * s1 * s2 + 4 * s1 * s3 + s2 * s2 - 2 * s4, (n - 1) * (n - 2))
                - mean**2
            )
            # var = 0: every ordering of these bytes gives the same R, so R is not unusual
            z = float(t1 - mean) / math.sqrt(var) if var > 0 else 0.0
            result = TestResult(label, float(r), 2 * normal_sf(abs(z)), details={"lag": k, "z": z, "bytes": n})
            if n < VERDICT_BYTES:
                result.withhold_verdict_unless_decisive(f"at least {VERDICT_BYTES} bytes (the normal tail is off below)")
            results.append(result)
        return results


def _straddling_products(before: bytes, after: bytes, k: int) -> int:
    """Sum of x_i x_{i+k} over pairs with x_i in ``before`` (the stream's last
    bytes so far) and x_{i+k} in ``after`` (at most the next k bytes)."""
    if not before or not after:
        return 0
    return _counts.lag_product_sum(before[-k:] + after[:k], k)
