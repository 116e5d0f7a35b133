"""approximate_entropy (NIST SP 800-22 Rev 1a 2.12) against the worked
examples 2.12.4 (10 bits, m = 3) and 2.12.8 (100 bits, m = 2) and
Appendix B.
"""

from __future__ import annotations

from nist_reference import EPSILON_100, reference_test
from randqa.battery.approximate_entropy import ApproximateEntropy


REFERENCES = [
    # 2.12.4 prints chi^2 = 0.502193, which its own formula does not give
    # (2n(ln 2 - ApEn) = 10.043859); its p-value is right.
    ("2.12.4", lambda: ApproximateEntropy(m=3), "0100110101", "approximate_entropy", "p", 0.261961, 5e-7),
    ("2.12.8", lambda: ApproximateEntropy(m=2), EPSILON_100, "approximate_entropy", "ApEn", 0.665393, 5e-7),
    ("2.12.8", lambda: ApproximateEntropy(m=2), EPSILON_100, "approximate_entropy", "stat", 5.550792, 5e-7),
    ("2.12.8", lambda: ApproximateEntropy(m=2), EPSILON_100, "approximate_entropy", "p", 0.235301, 5e-7),
    ("App. B", ApproximateEntropy, "e", "approximate_entropy", "p", 0.700073, 5e-7),
]


test_reference_value = reference_test(REFERENCES)
