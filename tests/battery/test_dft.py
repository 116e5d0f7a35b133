"""dft, the spectral test (NIST SP 800-22 Rev 1a 2.6), against Appendix B and
the worked examples 2.6.4 and 2.6.8, whose printed N1 the described
algorithm does not give (a plain O(n^2) DFT is the referee).  The standard
asks for n >= 1000 bits.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from nist_reference import EPSILON_100, reference_test, run
from randqa.battery.dft import DFT, peak_count_pvalue


REFERENCES = [
    ("App. B", DFT, "e", "dft", "p", 0.847187, 5e-7),
]


test_reference_value = reference_test(REFERENCES)


def test_dft_examples_2_6(e):
    # The printed p-values follow from the printed N1 through the Rev 1a
    # formula (N0 = 0.95 n / 2, variance n (.95)(.05) / 4) ...
    for n, n1, d_printed, p_printed in [(10, 4, -2.176429, 0.029523), (100, 46, -1.376494, 0.168669)]:
        d, p = peak_count_pvalue(n, n1)
        assert d == pytest.approx(d_printed, abs=5e-7) and p == pytest.approx(p_printed, abs=5e-7)
    # ... but the printed N1 (4 and 46) are not what the described algorithm
    # gives: a plain O(n^2) DFT of the same bits counts 5 and 48, as randqa does.
    for bits in ("1001010011", EPSILON_100):
        x = 2.0 * np.array([int(c) for c in bits]) - 1
        n = len(x)
        k = np.arange(n // 2)[:, None]
        moduli = np.abs(np.exp(-2j * np.pi * k * np.arange(n) / n) @ x)
        naive_n1 = int(np.sum(moduli < math.sqrt(math.log(20) * n)))
        assert run(DFT(), bits)["dft"].details["N1"] == naive_n1
    assert run(DFT(), EPSILON_100)["dft"].details["N1"] == 48
