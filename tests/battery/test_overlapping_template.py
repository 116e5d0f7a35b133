"""overlapping_template (NIST SP 800-22 Rev 1a 2.8) against the worked
examples 2.8.4 and 2.8.8 and Appendix B, which use section 3.8's
approximate pi (probabilities="sts"); the exact pi reproduce Rev 1a's
corrected values for m = 9, M = 1032.
"""

from __future__ import annotations

import numpy as np
import pytest

from nist_reference import reference_test, run
from randqa.battery.overlapping_template import OverlappingTemplate


REFERENCES = [
    # 2.8.8 and Appendix B use the section 3.8 approximation of pi (probabilities="sts")
    ("2.8.8", lambda: OverlappingTemplate(probabilities="sts"), "e", "overlapping_template", "nu",
     [329, 164, 150, 111, 78, 136], 0),
    ("2.8.8", lambda: OverlappingTemplate(probabilities="sts"), "e", "overlapping_template", "stat", 8.965859, 5e-7),
    ("App. B", lambda: OverlappingTemplate(probabilities="sts"), "e", "overlapping_template", "p", 0.110434, 5e-7),
]


test_reference_value = reference_test(REFERENCES)


def test_overlapping_template_probabilities():
    # Rev 1a 3.8 corrected pi for m = 9, M = 1032, K = 5, reproduced by the exact computation
    rev1a = [0.364091, 0.185659, 0.139381, 0.100571, 0.070432, 0.139865]
    assert OverlappingTemplate().class_probabilities() == pytest.approx(rev1a, abs=5e-7)
    # 2.8.4: eta = 1.125 for m = 2, M = 10; pi_5 printed as 1 minus the rounded others
    printed = [0.324652, 0.182617, 0.142670, 0.106645, 0.077147, 0.166269]
    pi = OverlappingTemplate(m=2, block_bits=10, probabilities="sts").class_probabilities()
    assert pi[:5] == pytest.approx(printed[:5], abs=5e-7)
    assert pi[5] == pytest.approx(printed[5], abs=1.5e-6)


def test_overlapping_template_example_2_8_4():
    # Blocks 1011101111 0010110100 0111001011 1011111000 0101101001 hold 5, 1,
    # 3, 4 and 1 overlapping "11": nu = [0, 2, 0, 1, 1, 1].  The document prints
    # nu = [0, 1, 1, 1, 1, 1]; its chi^2 = 3.167729 follows from those counts.
    bits = "10111011110010110100011100101110111110000101101001"
    acc = OverlappingTemplate(m=2, block_bits=10, probabilities="sts")
    result = run(acc, bits)["overlapping_template"]
    assert result.details["nu"] == [0, 2, 0, 1, 1, 1]
    assert result.verdict == "insufficient"
    expected = 5 * np.array(acc.class_probabilities())
    printed_nu = np.array([0, 1, 1, 1, 1, 1])
    assert float(((printed_nu - expected) ** 2 / expected).sum()) == pytest.approx(3.167729, abs=2e-5)
