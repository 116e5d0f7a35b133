"""frequency: with ``pvalues = "sts"`` NIST SP 800-22 Rev 1a 2.1's erfc on
the first 10^6 bits of e against Appendix B's 0.953749 (the worked
examples 2.1.4 and 2.1.8, which go through `randqa test --format bits`, are
in tests/cli/test_test.py); by default the exact two-sided binomial tail,
checked against scipy's binomial law summed term by term, and the half
step by which erfc's tail is off.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from accumulators import results_of
from nist_reference import run
from randqa.battery.frequency import Frequency


def test_e_bits_convention(e):
    # Appendix B: frequency test on the first 10^6 bits of e
    assert run(Frequency(pvalues="sts"), e)["frequency"].pvalue == pytest.approx(0.953749, abs=5e-7)


@pytest.mark.parametrize("ones", [4096, 4095, 4100, 4200, 4300, 3950])
def test_exact_pvalue_is_the_two_sided_binomial_tail(ones):
    # 8192 bits (1 KiB) with `ones` ones: P(|B - n/2| >= |ones - n/2|), B ~ Bin(8192, 1/2)
    bits = np.array([1] * ones + [0] * (8192 - ones), dtype=np.uint8)
    result = results_of(Frequency(), np.packbits(bits))[0]
    k = np.arange(8193)
    extreme = np.abs(k - 4096) >= abs(ones - 4096)
    assert result.pvalue == pytest.approx(float(stats.binom.pmf(k[extreme], 8192, 0.5).sum()), rel=1e-9)
    assert result.pvalue_kind == "discrete"


def test_erfc_is_off_by_the_half_step_the_exact_tail_counts():
    # 1 KiB with 4318 ones: S_n = 444 moves in steps of 2, and erfc's tail
    # leaves out about half of the atom at S_n: 5% low near 1e-6
    bits = np.array([1] * 4318 + [0] * (8192 - 4318), dtype=np.uint8)
    exact = results_of(Frequency(), np.packbits(bits))[0].pvalue
    normal = results_of(Frequency(pvalues="sts"), np.packbits(bits))[0].pvalue
    assert normal == pytest.approx(math.erfc(444 / math.sqrt(2 * 8192)))
    assert exact == pytest.approx(9.798185e-07, rel=1e-6)
    assert 1.04 < exact / normal < 1.06


def test_bad_pvalues_parameter_is_refused():
    with pytest.raises(ValueError, match="pvalues"):
        Frequency(pvalues="normal")
