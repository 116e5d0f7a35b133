"""serial (NIST SP 800-22 Rev 1a 2.11) against the worked examples 2.11.4
(10 bits, m = 3) and 2.11.8 (the first 10^6 bits of e, m = 2) and
Appendix B (m = 16).
"""

from __future__ import annotations

from nist_reference import example_references, reference_test
from randqa.battery.serial import Serial


REFERENCES = [
    # 2.11.4's psi^2 values and statistics are exact fractions
    *example_references("2.11.4", lambda: Serial(m=3), "0011011101", 1e-12, {
        "serial[1]": {"psi2_m": 2.8, "psi2_m-1": 1.2, "psi2_m-2": 0.4, "stat": 1.6},
        "serial[2]": {"stat": 0.8},
    }),
    *example_references("2.11.4", lambda: Serial(m=3), "0011011101", 5e-7,
                        {"serial[1]": {"p": 0.808792}, "serial[2]": {"p": 0.670320}}),
    *example_references("2.11.8", lambda: Serial(m=2), "e", 5e-7, {
        "serial[1]": {"psi2_m": 0.343128, "psi2_m-1": 0.003364, "stat": 0.339764, "p": 0.843764},
        "serial[2]": {"stat": 0.336400, "p": 0.561915},
    }),
    *example_references("App. B", Serial, "e", 5e-7,
                        {"serial[1]": {"p": 0.766182}, "serial[2]": {"p": 0.462921}}),
]


test_reference_value = reference_test(REFERENCES)
