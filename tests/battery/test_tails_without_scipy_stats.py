"""The tail probabilities computed from scipy.special (randqa.results,
bcfn.binomial_half_pmf, fluhrer_mcgrew.upper_tail) equal scipy.stats's bit
for bit, edge cases included (the binomial tails of lagged_repeats to a
relative 1e-14: scipy.stats goes through Boost), and ``randqa test`` with the standard suite
no longer loads scipy.stats, which was half of its start-up time."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from randqa.battery.bcfn import binomial_half_pmf
from randqa.battery.fluhrer_mcgrew import upper_tail
from randqa.results import binomial_tails, chi_square_cdf, chi_square_sf, normal_sf, poisson_cdf, poisson_sf

rng = np.random.default_rng(11)

CHI_SQUARE_POINTS = [0.0, -0.0, -1.5, 1e-300, 1e-12, 0.5, 1.0, 7.3, 255.0, 300.123, 1e4, 1e6, math.inf, math.nan]


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@pytest.mark.parametrize("dof", [1, 2, 3, 8, 32, 64, 128, 255, 1024, 65025, 4 * 255 * 255])
def test_chi_square_tails_equal_scipy_stats(dof):
    points = CHI_SQUARE_POINTS + list(dof * rng.uniform(0, 3, 300)) + list(rng.exponential(dof, 100))
    for x in points:
        assert same(chi_square_sf(x, dof), float(stats.chi2.sf(x, dof))), (x, dof)
        assert same(chi_square_cdf(x, dof), float(stats.chi2.cdf(x, dof))), (x, dof)


def test_normal_tail_equals_scipy_stats():
    for z in [0.0, -0.0, 1e-9, 0.5, 1.96, 5.0, 8.3, 38.0, 40.0, -3.0, math.inf, -math.inf, math.nan,
              *rng.normal(0, 3, 500)]:
        assert same(normal_sf(z), float(stats.norm.sf(z))), z
        assert same(2 * normal_sf(abs(z)), float(2 * stats.norm.sf(abs(z)))), z


@pytest.mark.parametrize("mean", [0.5, 3.99458, 4096 * 3.99458, 1e7 * 3.99458, 123.25])
def test_poisson_tails_equal_scipy_stats(mean):
    centre = int(mean)
    ks = [-2, -1, 0, 1, 2, centre, centre + 1, *rng.integers(max(centre - 5 * int(mean**0.5) - 3, 0),
                                                             centre + 5 * int(mean**0.5) + 3, 200)]
    for k in ks:
        k = int(k)
        assert same(poisson_sf(k, mean), float(stats.poisson.sf(k, mean))), (k, mean)
        assert same(poisson_cdf(k, mean), float(stats.poisson.cdf(k, mean))), (k, mean)


@pytest.mark.parametrize("n", [8, 16, 32, 64, 256, 1000, 2048, 16384, 2**20])
def test_binomial_pmf_equals_scipy_stats(n):
    assert np.array_equal(binomial_half_pmf(n), stats.binom.pmf(np.arange(n + 1), n, 0.5))


def test_fluhrer_mcgrew_tail_equals_scipy_stats():
    z = np.concatenate([rng.normal(0, 2, 1000), [0.0, 40.0, -40.0]])
    skew = rng.normal(0, 0.01, len(z))
    expected = np.clip(stats.norm.sf(z) + skew / 6 * (z**2 - 1) * stats.norm.pdf(z), 0.0, 1.0)
    assert np.array_equal(upper_tail(z, skew), expected)


@pytest.mark.parametrize("suite", ["quick", "standard"])
def test_a_run_does_not_load_scipy_stats(suite, tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(np.random.default_rng(1).bytes(1 << 20))
    code = ("import sys\nfrom randqa.cli import main\n"
            "try:\n    main(['test', sys.argv[1], '--suite', sys.argv[2], '--no-progress'])\n"
            "finally:\n    print('scipy.stats' in sys.modules, file=sys.stderr)\n")
    proc = subprocess.run([sys.executable, "-c", code, str(path), suite], capture_output=True, text=True, timeout=120)
    assert proc.stderr.strip().splitlines()[-1] == "False", proc.stderr


@pytest.mark.parametrize("seed", range(20))
def test_binomial_tails_equal_scipy_stats(seed):
    # The incomplete beta and scipy.stats' binomial (Boost's) differ in the
    # last digits of deep tails: 7e-13 relative at 2.6e-231 (194 of 2^20 at
    # p = 1e-3; mpmath puts this 7.5e-13 and scipy.stats 6.5e-14 from the
    # exact sum), at most 9.1e-13 over 300 seeds of these draws.  The draws
    # are the test's own, so that which tests ran before it in the same
    # process (pytest-xdist workers) does not change them.
    draws = np.random.default_rng(seed)
    trials = np.array([1, 10, 1000, 1 << 20, 1 << 26, 1 << 26])
    for p in (2.0 ** -16, 0.5, 1e-3):
        for counts in (np.zeros(6, dtype=np.int64), np.minimum(trials, draws.integers(0, 200, 6)), trials):
            upper, lower = binomial_tails(counts, trials, p)
            assert np.allclose(upper, stats.binom.sf(counts - 1, trials, p), rtol=2e-12, atol=0)
            assert np.allclose(lower, stats.binom.cdf(counts, trials, p), rtol=2e-12, atol=0)
