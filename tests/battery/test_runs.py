"""runs (NIST SP 800-22 Rev 1a 2.3) against the worked example 2.3.8
(100 bits) and Appendix B (the first 10^6 bits of e), the frequency
prerequisite of 2.3.4 step 2, and the standard's minimum of 100 bits (the
10-bit example of 2.3.4 is below it).
"""

from __future__ import annotations

from nist_reference import EPSILON_100, reference_test, run
from randqa.battery.runs import Runs


REFERENCES = [
    ("2.3.8", Runs, EPSILON_100, "runs", "p", 0.500798, 5e-7),
    ("App. B", Runs, "e", "runs", "p", 0.561917, 5e-7),
]


test_reference_value = reference_test(REFERENCES)


def test_fewer_than_100_bits_are_insufficient():
    result = run(Runs(), "1001101011")["runs"]  # 2.3.4's example
    assert result.verdict == "insufficient" and result.pvalue is None
    assert "100" in result.needs


def test_a_biased_sequence_fails_the_frequency_prerequisite():
    # 2.3.4 step 2: |pi - 1/2| >= 2/sqrt(n) means the runs test is not run; P = 0
    result = run(Runs(), "1" * 90 + "0" * 10)["runs"]
    assert result.pvalue == 0.0
