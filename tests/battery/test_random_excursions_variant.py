"""random_excursions_variant (NIST SP 800-22 Rev 1a 2.15) against the worked
examples 2.15.4 (10 bits) and 2.15.8 (every state x = -9..+9 on the first
10^6 bits of e, J = 1490) and Appendix B.
"""

from __future__ import annotations

from nist_reference import reference_test
from randqa.battery.random_excursions_variant import RandomExcursionsVariant


REFERENCES = [
    ("2.15.4", RandomExcursionsVariant, "0110110101", "random_excursions_variant[x=+1]", "visits", 4, 0),
    ("2.15.4", RandomExcursionsVariant, "0110110101", "random_excursions_variant[x=+1]", "p", 0.683091, 5e-7),
    ("App. B", RandomExcursionsVariant, "e", "random_excursions_variant[x=-1]", "p", 0.826009, 5e-7),
]
VARIANT_2_15_8 = {  # state: (xi, p-value) printed in 2.15.8, J = 1490
    -9: (1450, 0.858946), -8: (1435, 0.794755), -7: (1380, 0.576249), -6: (1366, 0.493417),
    -5: (1412, 0.633873), -4: (1475, 0.917283), -3: (1480, 0.934708), -2: (1468, 0.816012),
    -1: (1502, 0.826009), 1: (1409, 0.137861), 2: (1369, 0.200642), 3: (1396, 0.441254),
    4: (1479, 0.939291), 5: (1599, 0.505683), 6: (1628, 0.445935), 7: (1619, 0.512207),
    8: (1620, 0.538635), 9: (1610, 0.593930),
}  # fmt: skip
for _x, (_xi, _p) in VARIANT_2_15_8.items():
    REFERENCES.append(("2.15.8", RandomExcursionsVariant, "e", f"random_excursions_variant[x={_x:+d}]", "visits", _xi, 0))
    REFERENCES.append(("2.15.8", RandomExcursionsVariant, "e", f"random_excursions_variant[x={_x:+d}]", "p", _p, 5e-7))


test_reference_value = reference_test(REFERENCES)
