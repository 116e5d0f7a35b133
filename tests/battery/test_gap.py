"""gap (Knuth, TAOCP vol. 2, 3.3.2 D): the counts of gaps between words in
[alpha, beta) against a plain loop, the chi-square against scipy's over the
geometric probabilities p (1 - p)^k; the top bytes of MINSTD's 31-bit words
fail it within 2 KiB.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from accumulators import failed, results_of
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


@pytest.mark.parametrize("word_bytes,alpha,beta,t", [(1, 0.0, 0.5, 8), (1, 0.3, 0.55, 5), (2, 0.1, 0.2, 12), (4, 0.0, 1 / 16, 30)])
def test_gap_counts_and_pvalue(word_bytes, alpha, beta, t) -> None:
    data = pcg64_array(40_000, seed=21)
    acc = Gap(word_bytes=word_bytes, alpha=alpha, beta=beta, max_gap=t)
    result = results_of(acc, data, [1, 333, 334, 20_001])[0]
    words = np.frombuffer(data.tobytes(), dtype=f"<u{word_bytes}")
    low, high = math.ceil(alpha * 256**word_bytes), math.ceil(beta * 256**word_bytes)
    counts = _gap_counts_reference(words, low, high, t)
    assert result.details["counts"] == counts.tolist()
    p = (high - low) / 256**word_bytes
    probs = np.append(p * (1 - p) ** np.arange(t), (1 - p) ** t)
    chi2, pvalue = stats.chisquare(counts, counts.sum() * probs)
    assert math.isclose(result.statistic, chi2, rel_tol=1e-9)
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
