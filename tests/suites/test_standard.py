"""The standard suite (suites/standard.toml) fails the weak generators no
later than PractRand 0.94 does (its first FAIL, measured with `RNG_test
stdin8` on the same streams), and does not cry wolf on PCG64 (100 streams
of 256 KiB).  Its strong tests, scaled to short streams, give no false
alarms on 50 PCG64 streams of 160 KiB and uniform p-values on 240 of 1 MiB.
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
from randqa.engine import run
from randqa.sources import open_backend
from reference_generators import pcg64_array


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
}


@pytest.mark.parametrize("name, practrand", PRACTRAND_FIRST_FAIL.items())
def test_standard_suite_fails_no_later_than_practrand(cli, name, practrand):
    result = cli("test", name, "--seed", "1", "--progressive", "--min", "1K", "--max", str(practrand), "--json", "-")
    assert result.returncode == 1, result.stderr
    doc = result.json()
    assert doc["suite"] == "standard"
    assert doc["first_failure_bytes"] is not None and doc["first_failure_bytes"] <= practrand


def test_standard_suite_does_not_cry_wolf_on_pcg64():
    """100 short PCG64 streams: the documented rate (at most 50 tail checks at
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
