"""frequency (NIST SP 800-22 Rev 1a 2.1) on the first 10^6 bits of e against
Appendix B's 0.953749.  The worked examples 2.1.4 and 2.1.8, which go
through `randqa test --format bits`, are in tests/cli/test_test.py.
"""

from __future__ import annotations

import pytest

from nist_reference import run
from randqa.battery.frequency import Frequency


def test_e_bits_convention(e):
    # Appendix B: frequency test on the first 10^6 bits of e
    assert run(Frequency(), e)["frequency"].pvalue == pytest.approx(0.953749, abs=5e-7)
