"""matrix_rank (NIST SP 800-22 Rev 1a 2.5) against the worked examples 2.5.4
(3 x 3 matrices) and 2.5.8 (the first 100,000 bits of e) and Appendix B;
the standard needs 38 matrices.  Large matrices (1024 x 1024) catch
xorshift128, whose rows are linear in its 128-bit state, and rank classes
expecting fewer than 5 matrices are pooled.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

from nist_reference import reference_test, results_for, run
from randqa.battery.matrix_rank import MatrixRank, rank_probability
from reference_generators import xorshift128_words


REFERENCES = [
    # 2.5.4: F_M = 1, F_M-1 = 1, 0 lower; its p-value uses 32 x 32 probabilities (see below)
    ("2.5.4", lambda: MatrixRank(rows=3, cols=3), "01011001001010101101", "matrix_rank[3x3]", "counts", [1, 1, 0], 0),
    ("2.5.8", MatrixRank, "e100k", "matrix_rank", "counts", [23, 60, 14], 0),
    ("2.5.8", MatrixRank, "e100k", "matrix_rank", "stat", 1.2619656, 5e-8),
    ("2.5.8", MatrixRank, "e100k", "matrix_rank", "p", 0.532069, 5e-7),
    ("App. B", MatrixRank, "e", "matrix_rank", "p", 0.306156, 5e-7),
]


test_reference_value = reference_test(REFERENCES)


def test_matrix_rank_example_2_5_4_with_printed_probabilities(e):
    # The document computes the 3 x 3 example with the 32 x 32 probabilities
    # 0.2888, 0.5776, 0.1336: chi^2 = 0.596953, p = 0.741948.  randqa uses the
    # 3 x 3 ones (rank 3, 2, <=1: 21/64, 147/256, 25/256), a different p.
    result = results_for(lambda: MatrixRank(rows=3, cols=3), "01011001001010101101", e)["matrix_rank[3x3]"]
    counts, N = np.array(result.details["counts"]), result.details["matrices"]
    printed = np.array([0.2888, 0.5776, 0.1336])
    chi2 = float(((counts - N * printed) ** 2 / (N * printed)).sum())
    assert chi2 == pytest.approx(0.596953, abs=5e-7)
    assert math.exp(-chi2 / 2) == pytest.approx(0.741948, abs=5e-7)
    assert result.details["probabilities"] == pytest.approx([21 / 64, 147 / 256, 25 / 256], abs=1e-15)
    assert result.verdict == "insufficient" and result.needs


def test_large_matrix_rank_catches_xorshift128():
    # A 1024 x 1024 matrix is 32,768 outputs; its rows are linear functions
    # of the 128-bit state, so the rank is at most 128.
    matrices = 40
    stream = xorshift128_words(matrices, 1024 * 1024 // 32).astype(">u4").tobytes()
    data = np.frombuffer(stream, dtype=np.uint8)
    result = run(MatrixRank(size=1024), data)["matrix_rank[1024x1024]"]
    assert result.pvalue < 1e-6 and result.details["min_rank"] <= 128
    # the standard's 32 x 32 matrices see nothing wrong in the same bytes
    assert run(MatrixRank(), data)["matrix_rank"].pvalue > 1e-6
    # ... and good bytes pass the large test
    good = run(MatrixRank(size=1024), np.frombuffer(os.urandom(len(stream)), dtype=np.uint8))["matrix_rank[1024x1024]"]
    assert good.pvalue > 1e-6 and good.verdict != "insufficient"
    assert good.details["matrices"] == matrices and sum(good.details["counts"]) == matrices


def test_large_matrix_rank_pools_rare_classes():
    # 40 matrices expect 0.2 of rank <= size - 3 and 5.1 of size - 2: the last
    # class is pooled into its neighbour (every expected count >= 5)
    data = np.frombuffer(np.random.default_rng(5).bytes(40 * 64 * 64 // 8), dtype=np.uint8)
    result = run(MatrixRank(size=64), data)["matrix_rank[64x64]"]
    assert result.details["rank_classes"] == ["64", "63", "<=62"] and result.details["dof"] == 2
    assert min(np.array(result.details["probabilities"]) * 40) >= 5
    assert sum(result.details["counts"]) == 40 and sum(result.details["probabilities"]) == pytest.approx(1)
    assert result.details["probabilities"][2] == pytest.approx(1 - rank_probability(64, 64, 64) - rank_probability(64, 64, 63))
