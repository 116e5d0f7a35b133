"""The exact class probabilities of longest_run, matrix_rank and
linear_complexity (NIST SP 800-22 Rev 1a 2.4, 2.5, 2.10) against every
short block counted by the C kernels (all 2^16 16-bit blocks, every 3 x 3
and 2 x 5 matrix, all 2^12 12-bit sequences), and against the standard's
rounded tables.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from randqa.battery import _linear, _nist
from randqa.battery.linear_complexity import LinearComplexity
from randqa.battery.linear_complexity import exact_class_probabilities as lc_probabilities
from randqa.battery.longest_run import STS_PROBABILITIES, exact_class_probabilities, prob_longest_at_most
from randqa.battery.matrix_rank import rank_probability


def test_exact_probabilities_match_enumeration_and_tables():
    # longest run: the recursion against the C kernel over all 2^16 16-bit blocks
    every_block = np.arange(1 << 16, dtype=">u2").view(np.uint8)
    runs = np.zeros(17, dtype=np.int64)
    _nist.longest_run_counts(every_block, 8 * len(every_block), 16, runs)
    for k in range(16):
        assert prob_longest_at_most(16, k) == pytest.approx(runs[: k + 1].sum() / 65536, abs=1e-15)
    assert exact_class_probabilities(8, 1, 4) == STS_PROBABILITIES[8]
    # M = 128: the standard's 4-digit table is the exact values rounded (one
    # entry, 0.2493 for 0.249363, rounded down so that the table sums to 1)
    assert exact_class_probabilities(128, 4, 9) == pytest.approx(STS_PROBABILITIES[128], abs=1e-4)
    # M = 10^4: the standard's table is off in the third digit (0.0882 vs 0.0866)
    assert abs(exact_class_probabilities(10_000, 10, 16)[0] - STS_PROBABILITIES[10_000][0]) > 1e-3
    # matrix rank: the formula against every 3 x 3 and 2 x 5 matrix
    for rows, cols in ((3, 3), (2, 5)):
        size = rows * cols
        every = np.array(list(itertools.product([0, 1], repeat=size)), dtype=np.uint8).ravel()
        ranks = np.zeros(min(rows, cols) + 1, dtype=np.int64)
        _linear.matrix_rank_counts(np.packbits(every), len(every), rows, cols, ranks)
        for r, count in enumerate(ranks):
            assert rank_probability(rows, cols, r) == pytest.approx(count / 2**size, abs=1e-15)
    assert [rank_probability(32, 32, r) for r in (32, 31, 30)] == pytest.approx([0.2888, 0.5776, 0.1284], abs=5e-5)
    # linear complexity: the exact classes against all 2^12 sequences of 12 bits,
    # and the standard's pi (1/96, ...) for M = 500
    every = np.array(list(itertools.product([0, 1], repeat=12)), dtype=np.uint8).ravel()
    acc = LinearComplexity(M=12)
    acc.update(np.packbits(every))
    counts = acc.finalize()[0].details["counts"]
    assert lc_probabilities(12) == pytest.approx(np.array(counts) / 4096, abs=1e-15)
    assert lc_probabilities(500) == pytest.approx([1 / 96, 1 / 32, 1 / 8, 1 / 2, 1 / 4, 1 / 16, 1 / 48], rel=1e-12)
