"""non_overlapping_template (NIST SP 800-22 Rev 1a 2.7) against the worked
example 2.7.4 (B = 001, two blocks of 10 bits) and Appendix B; the 148
aperiodic templates of length 9 (and the counts for m = 2..8) of STS.
"""

from __future__ import annotations

from nist_reference import reference_test
from randqa.battery.non_overlapping_template import NonOverlappingTemplate, aperiodic_templates


REFERENCES = [
    # 2.7.4: B = 001, N = 2 blocks of M = 10
    ("2.7.4", lambda: NonOverlappingTemplate(m=3, templates=["001"], blocks=2), "10100100101110010110",
     "non_overlapping_template[001]", "W", [2, 1], 0),
    ("2.7.4", lambda: NonOverlappingTemplate(m=3, templates=["001"], blocks=2), "10100100101110010110",
     "non_overlapping_template[001]", "stat", 2.133333, 5e-7),
    ("2.7.4", lambda: NonOverlappingTemplate(m=3, templates=["001"], blocks=2), "10100100101110010110",
     "non_overlapping_template[001]", "p", 0.344154, 5e-7),
    ("App. B", NonOverlappingTemplate, "e", "non_overlapping_template[000000001]", "p", 0.078790, 5e-7),
]


test_reference_value = reference_test(REFERENCES)


def test_aperiodic_templates():
    templates = aperiodic_templates(9)
    assert len(templates) == 148
    assert templates[0] == "000000001" and "111111110" in templates and "000000000" not in templates
    assert [len(aperiodic_templates(m)) for m in range(2, 9)] == [2, 4, 6, 12, 20, 40, 74]
