"""birthday_spacings (Marsaglia's test as TestU01 defines it): the expected
number of collisions is the exact mean, not the many-cells limit lambda
(checked against enumeration for 64 and 128 points, and on 600,000 blocks of
PCG64); at most 2^-14 points per cell; a merge needs whole blocks.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from randqa.battery import accumulator_class


def test_birthday_spacings_compares_with_the_mean_not_lambda() -> None:
    # 256 points in 2^22 cells: lambda = 1 but E[Y] = 0.98882; 600,000 blocks
    # of a good generator tell the two apart by ~8.7 standard errors, so a
    # test summed against N lambda would fail here and the mean used must not
    from randqa.battery.birthday_spacings import BirthdaySpacings

    acc = BirthdaySpacings(points=256, word_bytes=4, bits_per_word=22)
    blocks, per_chunk = 600_000, 60_000
    rng = np.random.Generator(np.random.PCG64(12))
    for _ in range(blocks // per_chunk):
        acc.update(rng.integers(0, 256, size=per_chunk * acc.block_bytes, dtype=np.uint8))
    (result,) = acc.finalize()
    assert result.details["blocks"] == blocks
    sd = math.sqrt(result.details["expected"])
    assert abs(result.statistic - result.details["expected"]) < 4 * sd
    assert result.details["lambda_per_block"] * blocks - result.statistic > 4.5 * sd
    assert min(result.pvalue, result.pvalue_low) > 1e-4


def test_birthday_spacings_refuses_too_few_cells_per_point() -> None:
    from randqa.battery.birthday_spacings import BirthdaySpacings

    BirthdaySpacings(points=512, word_bytes=4, bits_per_word=23)  # n/k = 2^-14 exactly
    with pytest.raises(ValueError, match="over 2\\^-14 points per cell"):
        BirthdaySpacings(points=128, word_bytes=4, bits_per_word=17)


def _exact_birthday_mean(n: int, k: int, distinct_short: int = 6, max_j: int = 8) -> float:
    """E[Y] for n uniform points in k whole cells, by enumeration: given d
    distinct points (probability falling(k, d) S(n, d) / k^n), the spacings
    are n - d zeros and the d gaps of a uniform composition of k into d
    parts, where P(the first j gaps all equal s) = C(k-js-1, d-j-1) / C(k-1, d-1)."""
    from scipy.special import gammaln

    def log_comb(a, b):
        return gammaln(a + 1) - gammaln(b + 1) - gammaln(a - b + 1)

    stirling = [[0] * (n + 1) for _ in range(n + 1)]  # S(m, i), only i >= m - distinct_short needed
    stirling[0][0] = 1
    for m in range(1, n + 1):
        for i in range(max(1, m - distinct_short), m + 1):
            stirling[m][i] = stirling[m - 1][i - 1] + i * stirling[m - 1][i]
    total = 0.0
    for d in range(n - distinct_short + 1, n + 1):
        p = math.exp(gammaln(k + 1) - gammaln(k - d + 1) + math.log(stirling[n][d]) - n * math.log(k))
        repeated_zeros = max(n - d - 1, 0)
        gaps = 0.0
        for j in range(2, min(d, max_j) + 1):
            s = np.arange(1, (k - d + j) // j + 1, dtype=np.float64)
            equal = np.exp(log_comb(k - j * s - 1, d - j - 1) - log_comb(k - 1, d - 1)).sum()
            gaps += (-1) ** j * math.comb(d, j) * equal
        total += p * (repeated_zeros + gaps)
    return total


@pytest.mark.parametrize("points, cell_bits", [(64, 16), (128, 18)])
def test_birthday_spacings_mean_matches_exact_enumeration(points, cell_bits):
    from randqa.battery.birthday_spacings import expected_collisions, mean_collisions

    exact = _exact_birthday_mean(points, 2**cell_bits)
    limit = mean_collisions(points, cell_bits)
    assert (limit - exact) / exact > 0.4 * points / 2**cell_bits  # the many-cells limit alone is too high
    assert abs(expected_collisions(points, cell_bits) - exact) / exact < 0.05 * points / 2**cell_bits


def test_merge_refuses_a_misaligned_left_part():
    cls = accumulator_class("birthday_spacings")
    left, right = cls(), cls()
    left.update(np.zeros(100, dtype=np.uint8))
    with pytest.raises(ValueError, match="boundary"):
        left.merge(right)
