"""serial (NIST SP 800-22 Rev 1a 2.11) against the worked examples 2.11.4
(10 bits, m = 3) and 2.11.8 (the first 10^6 bits of e, m = 2) and
Appendix B (m = 16).
"""

from __future__ import annotations

from nist_reference import reference_test
from randqa.battery.serial import Serial


REFERENCES = [
    ("2.11.4", lambda: Serial(m=3), "0011011101", "serial[1]", "psi2_m", 2.8, 1e-12),
    ("2.11.4", lambda: Serial(m=3), "0011011101", "serial[1]", "psi2_m-1", 1.2, 1e-12),
    ("2.11.4", lambda: Serial(m=3), "0011011101", "serial[1]", "psi2_m-2", 0.4, 1e-12),
    ("2.11.4", lambda: Serial(m=3), "0011011101", "serial[1]", "stat", 1.6, 1e-12),
    ("2.11.4", lambda: Serial(m=3), "0011011101", "serial[2]", "stat", 0.8, 1e-12),
    ("2.11.4", lambda: Serial(m=3), "0011011101", "serial[1]", "p", 0.808792, 5e-7),
    ("2.11.4", lambda: Serial(m=3), "0011011101", "serial[2]", "p", 0.670320, 5e-7),
    ("2.11.8", lambda: Serial(m=2), "e", "serial[1]", "psi2_m", 0.343128, 5e-7),
    ("2.11.8", lambda: Serial(m=2), "e", "serial[1]", "psi2_m-1", 0.003364, 5e-7),
    ("2.11.8", lambda: Serial(m=2), "e", "serial[1]", "stat", 0.339764, 5e-7),
    ("2.11.8", lambda: Serial(m=2), "e", "serial[2]", "stat", 0.336400, 5e-7),
    ("2.11.8", lambda: Serial(m=2), "e", "serial[1]", "p", 0.843764, 5e-7),
    ("2.11.8", lambda: Serial(m=2), "e", "serial[2]", "p", 0.561915, 5e-7),
    ("App. B", Serial, "e", "serial[1]", "p", 0.766182, 5e-7),
    ("App. B", Serial, "e", "serial[2]", "p", 0.462921, 5e-7),
]


test_reference_value = reference_test(REFERENCES)
