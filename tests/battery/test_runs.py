"""runs: with ``pvalues = "sts"`` NIST SP 800-22 Rev 1a 2.3 against the
worked example 2.3.8 (100 bits) and Appendix B (the first 10^6 bits of e),
and the frequency prerequisite of 2.3.4 step 2; by default the exact tail
of the number of bit changes, Bin(n - 1, 1/2) for independent fair bits,
checked against scipy's binomial law summed term by term, with no
prerequisite.  The standard's minimum of 100 bits holds for both (the
10-bit example of 2.3.4 is below it).
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from scipy import stats

from nist_reference import EPSILON_100, reference_test, run
from randqa.battery.runs import Runs

SP800_22 = partial(Runs, pvalues="sts")

REFERENCES = [
    ("2.3.8", SP800_22, EPSILON_100, "runs", "p", 0.500798, 5e-7),
    ("App. B", SP800_22, "e", "runs", "p", 0.561917, 5e-7),
]


test_reference_value = reference_test(REFERENCES)


@pytest.mark.parametrize("factory", [Runs, SP800_22])
def test_fewer_than_100_bits_are_insufficient(factory):
    result = run(factory(), "1001101011")["runs"]  # 2.3.4's example
    assert result.verdict == "insufficient" and result.pvalue is None
    assert "100" in result.needs


def test_a_biased_sequence_fails_the_frequency_prerequisite():
    # 2.3.4 step 2: |pi - 1/2| >= 2/sqrt(n) means the runs test is not run; P = 0
    result = run(SP800_22(), "1" * 90 + "0" * 10)["runs"]
    assert result.pvalue == 0.0
    # no tail probability: the report's uniformity check leaves it out (before: taken as a real 0)
    assert result.pvalue_kind == "not_applicable" and result.verdict == "suspicious"
    from randqa._report.charts import uniformity_pvalues

    continuous, apart = uniformity_pvalues({"tests": [result.to_json()]})
    assert continuous == [] and apart == [0.0]


def test_exact_pvalue_is_the_two_sided_tail_of_the_bit_changes():
    # EPSILON_100 has V_n = 52 runs: 51 changes among 99 adjacent pairs
    result = run(Runs(), EPSILON_100)["runs"]
    changes = int(result.statistic) - 1
    k = np.arange(100)
    extreme = np.abs(k - 49.5) >= abs(changes - 49.5)
    assert result.pvalue == pytest.approx(float(stats.binom.pmf(k[extreme], 99, 0.5).sum()), rel=1e-12)
    assert result.pvalue_kind == "discrete"


def test_exact_pvalue_needs_no_frequency_prerequisite():
    # 90 ones then 10 zeros: one change in 99 pairs is far too few, whatever the bias
    result = run(Runs(), "1" * 90 + "0" * 10)["runs"]
    assert result.pvalue == pytest.approx(2 * stats.binom.cdf(1, 99, 0.5), rel=1e-12)
