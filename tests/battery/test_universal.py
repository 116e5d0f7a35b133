"""universal, Maurer's test (NIST SP 800-22 Rev 1a 2.9), against the worked
example 2.9.4 (L = 2, Q = 4) and Appendix B; the block length L follows n
(6 from 387,840 bits, 7 from 904,960).
"""

from __future__ import annotations

import math

import pytest

from nist_reference import reference_test, results_for
from randqa.battery.universal import EXPECTED_VALUE, VARIANCE, Universal


REFERENCES = [
    ("2.9.4", lambda: Universal(L=2, Q=4), "01011010011101010111", "universal", "K", 6, 0),
    ("2.9.4", lambda: Universal(L=2, Q=4), "01011010011101010111", "universal", "stat", 1.1949875, 5e-8),
    ("App. B", Universal, "e", "universal", "p", 0.282568, 5e-7),
]


test_reference_value = reference_test(REFERENCES)


def test_universal_example_2_9_4_printed_pvalue(e):
    # 2.9.4 prints p = 0.767189 = erfc(|f_n - 1.5374383| / sqrt(2 * 1.338)):
    # sigma = sqrt(variance(2)), without the c and K of its own step 5.
    result = results_for(lambda: Universal(L=2, Q=4), "01011010011101010111", e)["universal"]
    printed_style = math.erfc(abs(result.statistic - EXPECTED_VALUE[2]) / math.sqrt(2 * VARIANCE[2]))
    assert printed_style == pytest.approx(0.767189, abs=5e-7)
    assert result.details["sigma"] == pytest.approx(result.details["c"] * math.sqrt(VARIANCE[2] / 6))
    assert result.verdict == "insufficient" and result.needs


def test_universal_block_size_follows_n(e):
    for nbits, L in [(387_840, 6), (904_952, 6), (904_960, 7)]:
        acc = Universal()
        acc.update(e[: nbits // 8])
        assert acc.finalize()[0].details["L"] == L
