"""block_frequency (NIST SP 800-22 Rev 1a 2.2) against the worked examples
2.2.4 (10 bits, M = 3) and 2.2.8 (100 bits, M = 10) and Appendix B (the
first 10^6 bits of e).  The standard asks for n >= 100 bits.
"""

from __future__ import annotations

from nist_reference import EPSILON_100, reference_test
from randqa.battery.block_frequency import BlockFrequency


REFERENCES = [
    ("2.2.4", lambda: BlockFrequency(M=3), "0110011010", "block_frequency", "stat", 1.0, 5e-7),
    ("2.2.4", lambda: BlockFrequency(M=3), "0110011010", "block_frequency", "p", 0.801252, 5e-7),
    ("2.2.8", lambda: BlockFrequency(M=10), EPSILON_100, "block_frequency", "stat", 7.2, 5e-7),
    ("2.2.8", lambda: BlockFrequency(M=10), EPSILON_100, "block_frequency", "p", 0.706438, 5e-7),
    ("App. B", BlockFrequency, "e", "block_frequency", "p", 0.211072, 5e-7),
]


test_reference_value = reference_test(REFERENCES)
