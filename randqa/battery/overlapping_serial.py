"""Overlapping m-bit serial test (Good's ∇ψ² statistics), NIST SP 800-22 section 2.11.

Sources: NIST SP 800-22 Rev 1a (2010), section 2.11 "Serial Test";
I. J. Good, "The serial test for sampling numbers and other tests for
randomness", Proc. Cambridge Philos. Soc. 49 (1953) 276-284.

With n bits ε_0..ε_{n-1} read circularly (the first m-1 bits appended at the
end), ν_v counts the n overlapping occurrences of each m-bit pattern v, and
ψ²_m = (2^m / n) Σ ν_v² - n; the counts of (m-1)- and (m-2)-bit patterns are
sums of the m-bit ones.  ∇ψ²_m = ψ²_m - ψ²_{m-1} is chi-square with 2^(m-1)
degrees of freedom and ∇²ψ²_m = ψ²_m - 2ψ²_{m-1} + ψ²_{m-2} with 2^(m-2)
(Good), which gives NIST's P-value1 = igamc(2^(m-2), ∇ψ²_m / 2) and
P-value2 = igamc(2^(m-3), ∇²ψ²_m / 2).  NIST's example (ε = 0011011101,
m = 3) gives 0.808792 and 0.670320; randqa's equals them.

Streaming: the counts of patterns that lie wholly inside the stream are
kept across chunks (for m <= 9 from a table of overlapping byte pairs, one
increment per byte; for larger m pattern by pattern, carrying the last m-1
bits), and the m-1 patterns that wrap around are added at the end from the
stream's first and last m-1 bits, so the result is NIST's exactly however
the stream is cut.  Bits are read most significant first in each byte; a
bit stream's final 1-7 bits take part.

Parameters:
  m   pattern length, 2 to 20 (default 16)
A verdict needs n >= 100 * 2^m bits (100 expected occurrences of each
pattern: 2.5 KiB for m = 8); from 5 expected on only a tail below
fail_at_once (1e-20) gives one, shorter input is computed but
``insufficient``.  NIST
asks for m < log2(n) - 2, five expected, which leaves the chi-square law
off in the tail: a multinomial sum of squares over 2^(m-1) = 128 cells
with 5 expected each is 1.7 times as often above the chi-square's 1e-6
point (exact sums, randqa/battery/_multinomial.py), and the excess falls
as about 3.5/e for 128 cells, 6.5/e for 64 (the ∇² statistic's degrees
of freedom): 100 expected keeps both within 7% (benchmarks/calibration.py).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from randqa.battery import _counts, _pair_table
from randqa.battery._shared import BytePairs
from randqa.battery._sharing import Reads, SharesStatistic
from randqa.battery.base import OBJECT_BYTES, MemoryNeed, Range
from randqa.battery.serial import fold
from randqa.results import TestResult, chi_square_result, insufficient

MIN_EXPECTED = 100
#: from this many per pattern on, a tail below fail_at_once fails
DECISIVE_MIN_EXPECTED = 5
#: up to this m every pattern that starts in a byte ends in the next one,
#: so the pattern counts follow from the counts of overlapping byte pairs
MAX_PAIR_M = 9
HEAD_BYTES = 3  # the first bytes of the stream: at least m - 1 bits for m <= 20


def psi_squared(counts: np.ndarray, n: int) -> float:
    """ψ²_m = (2^m / n) Σ ν² - n, computed as a sum of squared deviations."""
    expected = n / len(counts)
    return float(np.sum((counts.astype(np.float64) - expected) ** 2)) / expected


def serial_statistics(counts_m: np.ndarray, n: int) -> tuple[float, float]:
    """(∇ψ²_m, ∇²ψ²_m) from the circular counts of the m-bit patterns (m >= 2)."""
    counts_m1 = fold(counts_m)  # drop the last bit of each pattern
    counts_m2 = fold(counts_m1)
    psi_m, psi_m1 = psi_squared(counts_m, n), psi_squared(counts_m1, n)
    psi_m2 = psi_squared(counts_m2, n) if len(counts_m2) > 1 else 0.0
    return psi_m - psi_m1, psi_m - 2 * psi_m1 + psi_m2


def _bits_of(data: bytes) -> list[int]:
    return [(byte >> (7 - k)) & 1 for byte in data for k in range(8)]


def _latest_bits(recent: int, bytes_seen: int, k: int) -> list[int]:
    """The last min(k, 8 * bytes_seen) bits of a byte stream whose latest bits are ``recent``, oldest first."""
    k = min(k, 8 * bytes_seen)
    return [(recent >> (k - 1 - j)) & 1 for j in range(k)]


class OverlappingSerial(SharesStatistic):
    name = "overlapping_serial"
    parameter_ranges: ClassVar[dict[str, Range]] = {"m": Range(2, 20)}
    reads = Reads(BytePairs, by_pairs=True)

    @classmethod
    def memory_need(cls, chunk_bytes: int, stream_bits: int | None = None, **params: Any) -> MemoryNeed:
        m = cls.with_defaults(params)["m"]
        patterns = 1 << m
        held = 8 * (65536 if m <= MAX_PAIR_M else patterns) + OBJECT_BYTES
        # at finalize the circular pattern counts (from the pair counts: the
        # pair values and their patterns) and the folded counts
        return MemoryNeed(held, 8 * 8 * patterns + 4 * 8 * 65536, 2)

    def __init__(self, *, m: int = 16) -> None:
        super().__init__()
        if not (isinstance(m, int) and not isinstance(m, bool) and 2 <= m <= 20):
            raise ValueError(f"m must be an integer from 2 to 20, not {m!r}")
        self.m = m
        self.by_pairs = m <= MAX_PAIR_M
        # by_pairs: counts of overlapping byte pairs; otherwise: counts of the
        # m-bit patterns that end inside the byte part of the stream
        self.counts = np.zeros(65536 if self.by_pairs else 2**m, dtype=np.int64)
        self.head = b""
        self.recent = 0  # the latest bits of the byte part, newest in bit 0
        self.tail_bits: list[int] = []

    _own_counts = ("counts",)

    def _update(self, chunk: np.ndarray) -> None:
        if self.by_pairs:
            _pair_table.add_pair_counts(chunk, self.recent & 0xFF if self.bytes_seen else -1, self.counts)
            self.recent = ((self.recent << 8) | int(chunk[-1])) & 0xFFFF
        else:
            self.recent = _counts.bit_pattern_scan(chunk, self.m, self.counts, self.recent, min(8 * self.bytes_seen, 63))
        if len(self.head) < HEAD_BYTES:
            self.head = (self.head + chunk[:HEAD_BYTES].tobytes())[:HEAD_BYTES]

    def update_tail_bits(self, bits: np.ndarray) -> None:
        self.tail_bits.extend(int(b) for b in bits)

    def _merge(self, other: "OverlappingSerial") -> None:
        if other.bytes_seen == 0:
            self.tail_bits.extend(other.tail_bits)
            return
        self.counts += other.counts
        if self.bytes_seen:
            if self.by_pairs:
                self.counts[(self.recent & 0xFF) * 256 + other.head[0]] += 1
            else:
                # patterns that start in our bytes and end in the other's first m-1 bits
                before = _latest_bits(self.recent, self.bytes_seen, self.m - 1)
                after = _bits_of(other.head)[: min(self.m - 1, 8 * other.bytes_seen)]
                joined = before + after
                for end in range(len(before), len(joined)):
                    start = end - self.m + 1
                    if start >= 0:
                        self.counts[int("".join(map(str, joined[start : end + 1])), 2)] += 1
        self.head = (self.head + other.head)[:HEAD_BYTES]
        width = 16 if self.by_pairs else 64
        shift = min(8 * other.bytes_seen, width)
        self.recent = ((self.recent << shift) | other.recent) & ((1 << width) - 1)
        self.tail_bits = list(other.tail_bits)

    def _merge_kept(self, other: "OverlappingSerial") -> None:
        # the final bits are this test's own
        self.tail_bits = self.tail_bits + other.tail_bits if other.shared.bytes_seen == 0 else list(other.tail_bits)

    def _byte_part(self) -> tuple[np.ndarray, int, bytes, int]:
        """The counts, the number of bytes, the first bytes and the latest bits of the byte part of the stream."""
        if self.shared is None:
            return self.counts, self.bytes_seen, self.head, self.recent
        pairs = self._statistic()
        return pairs.counts, pairs.bytes_seen, pairs.head, pairs.recent

    def pattern_counts(self) -> tuple[np.ndarray, int]:
        """The circular counts of the m-bit patterns, and the number of bits n."""
        m = self.m
        byte_counts, bytes_seen, head, recent = self._byte_part()
        n = 8 * bytes_seen + len(self.tail_bits)
        if self.by_pairs:
            counts = np.zeros(2**m, dtype=np.int64)
            for offset in range(8):  # patterns starting at bit `offset` of the first byte of a pair
                # the pattern is bits [16 - m - offset, 16 - offset) of the pair's 16 bits: sum
                # over the bits above and below it (in integers: float sums round past 2^53)
                counts += byte_counts.reshape(1 << offset, 2**m, 1 << (16 - m - offset)).sum(axis=(0, 2))
            inside = 8 * max(bytes_seen - 1, 0)  # bits whose patterns the pairs counted
        else:
            counts = byte_counts.copy()
            inside = max(8 * bytes_seen - m + 1, 0)
        # every pattern that starts at or after bit `inside`: wholly inside the
        # byte part, through the final bits, or wrapping around to the start
        # the stream's first m-1 bits (the head bytes hold at least 19 bits, or all of them)
        head_bits = _bits_of(head) + (self.tail_bits if bytes_seen <= HEAD_BYTES else [])
        stream_head = head_bits[: m - 1]
        rest = _latest_bits(recent, bytes_seen, 8 * bytes_seen - inside) + self.tail_bits
        extended = rest + stream_head
        for start in range(len(rest)):
            window = extended[start : start + m]
            counts[int("".join(map(str, window)), 2)] += 1
        return counts, n

    def finalize(self) -> list[TestResult]:
        m = self.m
        n = 8 * self._byte_part()[1] + len(self.tail_bits)
        labels = (f"{self.name}[m={m},nabla]", f"{self.name}[m={m},nabla2]")
        if n < m:
            return [insufficient(label, f"at least {MIN_EXPECTED * 2**m} bits", bits=n) for label in labels]
        counts, n = self.pattern_counts()
        nabla, nabla2 = serial_statistics(counts, n)
        results = []
        for label, statistic, dof in ((labels[0], nabla, 2 ** (m - 1)), (labels[1], nabla2, 2 ** (m - 2))):
            result = chi_square_result(label, statistic, dof, {"bits": n, "m": m, "dof": dof}, lower_tail=False)
            if label == labels[1]:
                result.pvalue_kind = "dependent"  # from the same counts as ∇ψ²
            needs = f"at least {MIN_EXPECTED * 2**m} bits ({MIN_EXPECTED} expected per pattern)"
            if n < DECISIVE_MIN_EXPECTED * 2**m:
                result.withhold_verdict(needs)
            elif n < MIN_EXPECTED * 2**m:
                result.withhold_verdict_unless_decisive(needs)
            results.append(result)
        return results
