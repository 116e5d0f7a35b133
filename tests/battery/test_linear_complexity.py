"""linear_complexity (NIST SP 800-22 Rev 1a 2.10) against the worked examples
2.10.4 and 2.10.8 and Appendix B (the printed values use sts-2.1.2's
rounded pi, probabilities="sts"), and an LFSR of the trinomial
x^31 + x^28 + 1 caught on 10^6 bits (the standard's minimum).
"""

from __future__ import annotations

import numpy as np

from nist_reference import E_BITS, reference_test, run
from randqa.battery.linear_complexity import LinearComplexity
from reference_generators import lfsr_bits


REFERENCES = [
    ("2.10.4", lambda: LinearComplexity(M=13), "1101011110001", "linear_complexity", "complexities", {"4": 1}, 0),
    # 2.10.8 and Appendix B come from sts-2.1.2's pi_0 = 0.01047 ("sts")
    ("2.10.8", lambda: LinearComplexity(M=1000, probabilities="sts"), "e", "linear_complexity", "counts",
     [11, 31, 116, 501, 258, 57, 26], 0),
    ("2.10.8", lambda: LinearComplexity(M=1000, probabilities="sts"), "e", "linear_complexity", "stat", 2.700348, 5e-7),
    ("2.10.8", lambda: LinearComplexity(M=1000, probabilities="sts"), "e", "linear_complexity", "p", 0.845406, 5e-7),
    ("App. B", lambda: LinearComplexity(probabilities="sts"), "e", "linear_complexity", "p", 0.826335, 5e-7),
]


test_reference_value = reference_test(REFERENCES)


def test_linear_complexity_catches_an_lfsr():
    data = np.packbits(lfsr_bits(E_BITS))
    result = run(LinearComplexity(), data)["linear_complexity"]
    assert result.pvalue < 1e-6 and set(result.details["complexities"]) == {"31"}
