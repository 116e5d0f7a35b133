"""bcfn, Marsaglia's and PractRand's Hamming-weight letters of blocks: the
letters of bytes (Marsaglia's 37, 56, 70, 56, 37 of 256), the counts and
statistic (Q_t - Q_(t-1) over circular tuples of letters) against a direct
computation; MINSTD fails it within 64 KiB, PCG64 passes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from accumulators import failed, results_of
from randqa.battery.bcfn import BCFN, weight_letters
from reference_generators import pcg64_array, reference_stream


def test_bcfn_letters_for_bytes_are_marsaglias() -> None:
    letters, probs = weight_letters(8, 5)
    assert letters.tolist() == [0, 0, 0, 1, 2, 3, 4, 4, 4]
    assert np.allclose(probs * 256, [37, 56, 70, 56, 37])


def test_bcfn_counts_and_statistic_match_direct_computation() -> None:
    data = pcg64_array(60_000, seed=50)
    acc = BCFN(block_bits=[16], letters=4, tuple_length=3)
    result = results_of(acc, data, [3, 999])[0]
    table, probs = weight_letters(16, 4)
    weights = np.unpackbits(data).reshape(-1, 16).sum(axis=1)
    letters = table[weights].astype(np.int64)
    circular = np.concatenate([letters, letters[:2]])
    words = circular[:-2] * 16 + circular[1:-1] * 4 + circular[2:]
    counts = np.bincount(words, minlength=64)
    pairs = counts.reshape(16, 4).sum(axis=1)
    p3 = np.einsum("i,j,k->ijk", probs, probs, probs).ravel()
    p2 = np.outer(probs, probs).ravel()
    n = len(letters)
    q3 = np.sum((counts - n * p3) ** 2 / (n * p3))
    q2 = np.sum((pairs - n * p2) ** 2 / (n * p2))
    assert math.isclose(result.statistic, q3 - q2, rel_tol=1e-9)
    assert result.details["dof"] == 64 - 16
    assert math.isclose(result.pvalue, stats.chi2.sf(q3 - q2, 48), rel_tol=1e-9)


def test_bcfn_fails_minstd_and_passes_pcg64() -> None:
    assert "bcfn[block_bits=32]" in failed(results_of(BCFN(block_bits=[32]), reference_stream("minstd", 131072)))
    assert not failed(results_of(BCFN(block_bits=[8, 32]), pcg64_array(131072, seed=51)))


@pytest.mark.parametrize(
    "params", [dict(block_bits=[12]), dict(block_bits=[]), dict(block_bits=[8, 8]), dict(letters=1), dict(tuple_length=1), dict(letters=16, tuple_length=6)]
)
def test_bcfn_refuses_bad_parameters(params) -> None:
    with pytest.raises(ValueError):
        BCFN(**params)
