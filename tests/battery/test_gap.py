"""gap (Knuth, TAOCP vol. 2, 3.3.2 D): the counts of gaps between words in
[alpha, beta) against a plain loop, the chi-square against scipy's over the
geometric probabilities p (1 - p)^k, on the classes the rule picks (all of
them while the exact tail is used, the longest gaps merged beyond), and the
p-value either chi-square's or the exact multinomial tail; the top bytes of
MINSTD's 31-bit words fail it within 2 KiB.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from accumulators import failed, results_of
from randqa.battery._multinomial import ASYMPTOTIC_MIN_EXPECTED, EXACT_MAX_CLASSES, EXACT_MAX_SAMPLES, multinomial_tail
from randqa.battery.gap import Gap
from reference_generators import pcg64_array, reference_stream


def _gap_counts_reference(words: np.ndarray, low: int, high: int, t: int) -> np.ndarray:
    counts = np.zeros(t + 1, dtype=np.int64)
    run_length = 0
    for w in words:
        if low <= w < high:
            counts[min(run_length, t)] += 1
            run_length = 0
        else:
            run_length += 1
    return counts


@pytest.mark.parametrize("word_bytes,alpha,beta,t,size", [
    (1, 0.0, 0.5, 8, 40_000), (1, 0.3, 0.55, 5, 40_000), (2, 0.1, 0.2, 12, 40_000), (4, 0.0, 1 / 16, 30, 40_000),
    (1, 0.0, 0.5, 8, 6_000), (4, 0.0, 1 / 16, 8, 40_000)])
def test_gap_counts_and_pvalue(word_bytes, alpha, beta, t, size) -> None:
    data = pcg64_array(size, seed=21)
    acc = Gap(word_bytes=word_bytes, alpha=alpha, beta=beta, max_gap=t)
    result = results_of(acc, data, [1, 333, 334, size // 2 + 1])[0]
    words = np.frombuffer(data.tobytes(), dtype=f"<u{word_bytes}")
    low, high = math.ceil(alpha * 256**word_bytes), math.ceil(beta * 256**word_bytes)
    counts = _gap_counts_reference(words, low, high, t)
    assert result.details["counts"] == counts.tolist()
    # the classes the rule of randqa/battery/_multinomial.py picks: all t + 1 while exact
    # (few gaps, few classes), else the longest gaps merged until each expects 1,000
    p = (high - low) / 256**word_bytes
    gaps = int(counts.sum())
    def probs(k):
        return np.append(p * (1 - p) ** np.arange(k), (1 - p) ** k)
    asymptotic = [k for k in range(t, 0, -1) if gaps * probs(k).min() >= ASYMPTOTIC_MIN_EXPECTED]
    small = [k for k in range(t, 0, -1) if k + 1 <= EXACT_MAX_CLASSES and gaps * probs(k).min() >= 5]
    if asymptotic and asymptotic[0] == t:
        kept, exact = t, False
    elif gaps <= EXACT_MAX_SAMPLES and t + 1 <= EXACT_MAX_CLASSES:
        kept, exact = t, True
    else:
        kept, exact = (asymptotic[0], False) if asymptotic else (small[0], True)
    assert result.details["classes"] == kept + 1
    merged = np.append(counts[:kept], counts[kept:].sum())
    chi2, pvalue = stats.chisquare(merged, gaps * probs(kept))
    assert math.isclose(result.statistic, chi2, rel_tol=1e-9)
    assert exact == (result.details["p_value_from"] != "chi-square")
    if exact and pvalue < 0.01:
        assert result.pvalue == multinomial_tail(probs(kept), gaps, chi2).pvalue
    else:
        assert math.isclose(result.pvalue, pvalue, rel_tol=1e-9)


def test_gap_fails_minstd_bytes_quickly() -> None:
    # the top byte of each word of a 31-bit generator is below 128: never a gap of 3 or more
    assert failed(results_of(Gap(), reference_stream("minstd", 2048))) == ["gap[alpha=0,beta=0.5]"]


@pytest.mark.parametrize(
    "params", [dict(word_bytes=3), dict(alpha=0.5, beta=0.5), dict(beta=1.5), dict(alpha=-0.1), dict(max_gap=0), dict(alpha=0.0, beta=1.0)]
)
def test_gap_refuses_bad_parameters(params) -> None:
    with pytest.raises(ValueError):
        Gap(**params)
