"""The standard suite (suites/standard.toml) fails the weak generators no
later than PractRand 0.94 does (its first FAIL, measured with `RNG_test
stdin8` on the same streams), and does not cry wolf on PCG64 (100 streams
of 256 KiB).  Every F2-linear generator of up to about 20,000 bits of
state fails it within 1 MiB, whatever the width of the words it writes
(suites/standard.toml explains which entry guarantees what), the lagged
Fibonacci (19937, 9842) mod 2^64 among them, and so do LCGs that output
the top 32 or 16 bits of 128 or 112.  Its strong
tests, scaled to short streams, give no false alarms on 50 PCG64 streams of
160 KiB and uniform p-values on 240 of 1 MiB.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from accumulators import results_of
from randqa.battery._folding import FoldedTest
from randqa.battery.bcfn import BCFN
from randqa.battery.bit_linear_complexity import BitLinearComplexity
from randqa.battery.digraph import Digraph
from randqa.battery.gap import Gap
from randqa.battery.overlapping_serial import OverlappingSerial
from randqa.battery.suites import load_suite
from randqa.engine import run, run_progressive
from randqa.sources import open_backend
from randqa.sources.base import Source
from reference_generators import (LCG128_INCREMENT, LCG128_MULTIPLIER, gfsr_blocks, lfsr_bit_blocks, mt19937_64_values,
                                  mt19937_blocks, pcg64_array, well512a_blocks, wide_lcg_blocks, xorshift128_blocks,
                                  xorshift1024_blocks, xoshiro256plus_blocks)


# First FAIL of PractRand 0.94 (`RNG_test stdin8`) on these streams, measured on this machine
PRACTRAND_FIRST_FAIL = {
    "randu": 1 << 10,
    "msvc-rand-short": 2 << 10,
    "minstd": 8 << 10,
    "lfsr113": 64 << 10,
    "xorshift32": 64 << 10,
    "glibc-rand-byte": 256 << 10,
    "msvc-rand-byte": 256 << 10,
    "glibc-rand-short": 16 << 20,
    # `RNG_test stdin32` (their 32-bit words; stdin8 needs 32 MiB for both), seeds 1-3 alike
    "java-random": 1 << 20,
    "mmix-lcg": 32 << 20,
    # stdin8 and stdin32 alike (Gap-16), by benchmarks/bench_runtimes_vs_practrand.py
    "r-marsaglia-multicarry": 32 << 20,
}


@pytest.mark.parametrize("name, practrand", PRACTRAND_FIRST_FAIL.items())
def test_standard_suite_fails_no_later_than_practrand(cli, name, practrand):
    result = cli("test", name, "--seed", "1", "--progressive", "--min", "1K", "--max", str(practrand), "--json", "-")
    assert result.returncode == 1, result.stderr
    doc = result.json()
    assert doc["suite"] == "standard"
    assert doc["first_failure_bytes"] is not None and doc["first_failure_bytes"] <= practrand


def test_standard_suite_does_not_cry_wolf_on_pcg64():
    """100 short PCG64 streams: the documented rate (at most 54 tail checks at
    1e-6) predicts 0.005 failing runs, so even one failure is a red flag."""
    suite = load_suite("standard")
    failures, suspicious = 0, 0
    for seed in range(100):
        with open_backend("pcg64", seed) as source:
            result = run(source, suite, limit=256 << 10)
        verdicts = [r.verdict for r in result.results]
        failures += result.verdict == "fail"
        suspicious += verdicts.count("suspicious")
        assert verdicts.count("insufficient") < len(verdicts) / 2  # the streams are long enough to judge
    assert failures == 0
    # about 40 judged tail checks per run at 1e-3 (two-tailed ones count twice): expect ~4-8 in 100 runs
    assert suspicious <= 25


class BlockSource(Source):
    """Bytes pulled from an endless iterator of blocks, as far as the run reads."""

    endless = True

    def __init__(self, name: str, blocks) -> None:
        self.name = name
        self._blocks = iter(blocks)
        self._pending = b""

    def readinto(self, buffer: memoryview) -> int:
        filled = 0
        while filled < len(buffer):
            if not self._pending:
                self._pending = next(self._blocks)
            take = min(len(buffer) - filled, len(self._pending))
            buffer[filled:filled + take] = self._pending[:take]
            self._pending = self._pending[take:]
            filled += take
        return filled


def mt19937_64_as(word_bits: int):
    for values in mt19937_64_values(2024):
        yield (values & np.uint64((1 << word_bits) - 1 if word_bits < 64 else 2**64 - 1)).astype(
            f"<u{word_bits // 8}").tobytes()


# name -> (state bits, how its bytes are made)
LINEAR = {
    "MT19937, 32-bit words": (19937, lambda: mt19937_blocks(7, 32)),
    "MT19937, 64-bit words (two outputs, first one high)": (19937, lambda: mt19937_blocks(7, 64)),
    "MT19937, low 16 bits as 16-bit words": (19937, lambda: mt19937_blocks(7, 16)),
    "MT19937, low byte of each output": (19937, lambda: mt19937_blocks(7, 8)),
    "MT19937-64, 64-bit words": (19937, lambda: mt19937_64_as(64)),
    "MT19937-64, low 32 bits as 32-bit words": (19937, lambda: mt19937_64_as(32)),
    "WELL512a, 32-bit words": (512, well512a_blocks),
    "xorshift1024 (linear engine), 64-bit words": (1024, xorshift1024_blocks),
    "xorshift128, 32-bit words": (128, xorshift128_blocks),
    "xoshiro256+ (lowest bit), 64-bit words": (256, xoshiro256plus_blocks),
    "LFSR x^19937 + x^9842 + 1, bit-serial": (19937, lambda: lfsr_bit_blocks(19937, 9842)),
    "LFSR x^4423 + x^2098 + 1, bit-serial": (4423, lambda: lfsr_bit_blocks(4423, 2098)),
    "GFSR (521, 32) on 32-bit words": (521 * 32, lambda: gfsr_blocks(521, 32)),
}


# randqa's own backends: SFMT's 128-bit blocks read as 64-bit words, MT19937-64,
# and the lowest bits of xorshift1024*phi, xoroshiro128+ and the additive lagged
# Fibonacci (19937, 9842) mod 2^64 (an LFSR of x^19937 + x^9842 + 1)
BACKENDS = {"sfmt": 19968, "mt64": 19968, "xorshift1024": 1024, "xoroshiro128": 128, "lfib19937": 19937}


def first_failure(source: Source) -> tuple[int | None, list[str]]:
    result = run_progressive(source, load_suite("standard"), 1 << 10, 1 << 20)
    failed = [r.name for r in result.results if r.verdict == "fail"]
    return result.first_failure_bytes, failed


@pytest.mark.parametrize("name", LINEAR)
def test_f2_linear_generators_fail_within_1_mib(name):
    state_bits, make = LINEAR[name]
    assert state_bits <= 20000
    fails_at, failed = first_failure(BlockSource(name, make()))
    assert fails_at is not None and fails_at <= 1 << 20
    assert any(n.startswith("bit_linear_complexity") for n in failed), failed


@pytest.mark.parametrize("name", BACKENDS)
def test_linear_backends_fail_within_1_mib(name):
    with open_backend(name, 3) as source:
        fails_at, failed = first_failure(source)
    assert fails_at is not None and fails_at <= 1 << 20
    assert any(n.startswith("bit_linear_complexity") for n in failed), failed



#: LCGs that hide 96 bits of state: the lagged differences' 8th-order entry
WIDE_LCGS = {
    "top 32 bits of a 128-bit LCG": (128, 32, LCG128_MULTIPLIER, LCG128_INCREMENT),
    "top 16 bits of a 112-bit LCG": (112, 16, 0xB0F2C6D5E4A3918273645546372819AB, 0x9E3779B97F4A7C15F39CC0605CEDC835),
}


@pytest.mark.parametrize("name", WIDE_LCGS)
def test_lcgs_that_hide_96_bits_fail_within_1_mib(name):
    fails_at, failed = first_failure(BlockSource(name, wide_lcg_blocks(*WIDE_LCGS[name])))
    assert fails_at is not None and fails_at <= 1 << 20
    assert "lagged_difference[order=8,low8/32,top4]" in failed, failed


#: the strong tests as proposed for the standard suite (scaled to short streams)
SUITE_LIKE = [
    (BitLinearComplexity, dict(word_bits=32, bits=[0, 31], length=256, every=16)),
    (BitLinearComplexity, dict(word_bits=16, bits=[0, 15], length=1536, every=64)),
    (BitLinearComplexity, dict(word_bits=8, bits=[0, 7], length=1536, every=64)),
    (Gap, dict(word_bytes=1, alpha=0.0, beta=0.5, max_gap=8)),
    (Gap, dict(word_bytes=4, alpha=0.0, beta=0.0625, max_gap=32)),
    (Digraph, dict()),
    (OverlappingSerial, dict(m=8)),
    (BCFN, dict(block_bits=[8, 32, 256], letters=5, tuple_length=4)),
]


def _suite_results(data: np.ndarray) -> list:
    results = []
    for cls, params in SUITE_LIKE:
        results += results_of(cls(**params), data)
    results += results_of(FoldedTest(OverlappingSerial(m=8), word_bits=32, low_bits=4), data)
    return results


def test_no_false_alarms_on_50_pcg64_streams() -> None:
    """50 streams of 160 KiB, 20 tail checks each: at 1e-6 per tail a failure
    is expected about once in 1,000 such runs, p < 1e-3 about once in all."""
    fails = suspicious = checks = 0
    for seed in range(50):
        for r in _suite_results(pcg64_array(160 << 10, seed=1000 + seed)):
            if r.pvalue is None or r.verdict == "insufficient":
                continue
            tails = [p for p in (r.pvalue, r.pvalue_low) if p is not None]
            checks += len(tails)
            fails += sum(p < 1e-6 for p in tails)
            suspicious += sum(p < 1e-3 for p in tails)
    assert checks >= 1000
    assert fails == 0
    # Poisson(checks * 1e-3 = 1): more than 8 has probability below 1e-6
    assert suspicious <= 8


@pytest.mark.slow
def test_pvalues_are_uniform_on_pcg64() -> None:
    """KS test of the p-values of each continuous result over 240 PCG64 streams;
    the discrete 'lowest' results are checked for P(p <= a) <= a instead."""
    pvalues: dict[str, list[float]] = {}
    for seed in range(240):
        data = pcg64_array(1 << 20, seed=5000 + seed)
        for r in _suite_results(data) + results_of(OverlappingSerial(m=14), data):
            if r.pvalue is not None and r.verdict != "insufficient":
                pvalues.setdefault(r.name, []).append(r.pvalue)
    assert len(pvalues) >= 20
    for name, values in pvalues.items():
        values = np.array(values)
        assert len(values) == 240, name
        if name.endswith(",lowest]"):
            for a in (0.05, 0.2, 0.5):
                assert np.mean(values <= a) <= a + 3 * math.sqrt(a * (1 - a) / 240), name
        else:
            assert stats.kstest(values, "uniform").pvalue > 1e-4, name
