"""longest_run (NIST SP 800-22 Rev 1a 2.4) against the worked example 2.4.8
(128 bits, M = 8) and Appendix B (the first 10^6 bits of e, M = 10^4); the
block size M follows n (8 from 128 bits, 128 from 6,272, 10^4 from 750,000).
"""

from __future__ import annotations

from nist_reference import EPSILON_128, reference_test, run
from randqa.battery.longest_run import LongestRun


REFERENCES = [
    # 2.4.8 uses the exact M = 8 probabilities (55/256, ...): chi^2 = 4.882457;
    # the 4-digit table of 2.4.4 would give 4.882605 and 0.180598.
    ("2.4.8", LongestRun, EPSILON_128, "longest_run", "counts", [4, 9, 3, 0], 0),
    ("2.4.8", LongestRun, EPSILON_128, "longest_run", "stat", 4.882457, 5e-7),
    ("2.4.8", LongestRun, EPSILON_128, "longest_run", "p", 0.180609, 5e-7),
    # Appendix B (M = 10^4) comes from the standard's approximate table ("sts")
    ("App. B", lambda: LongestRun(probabilities="sts"), "e", "longest_run", "p", 0.718945, 5e-7),
]


test_reference_value = reference_test(REFERENCES)


def test_longest_run_block_size_follows_n(e):
    for nbytes, M in [(16, 8), (783, 8), (784, 128), (93_749, 128), (93_750, 10_000)]:
        assert run(LongestRun(), e[:nbytes])["longest_run"].details["M"] == M
