"""The frontier suite (suites/frontier.toml) catches what PractRand 0.94
misses: the multiplicative LCG modulo the prime 2^64 - 59 by its full-width
birthday spacings (too few repeats: within 4 GiB, here 1.9e-8 at 1 GiB,
repeated on the next 1 GiB; 7.7e-7 at 512 MiB did not repeat, 5.8e-3 on the
next 512 MiB; PCG64 passes), the top 64 bits of a 128-bit LCG by its decimated birthday
spacings at 1 GiB (PCG64 passes), the additive lagged Fibonacci (19937,
9842) mod 2^64 by the linear complexity of its lowest bit within 1 MiB.
(tests/battery/test_gap16.py runs gap16 on the same generator's top 32 bits.)
"""

from __future__ import annotations

import pytest

from randqa.battery.suites import load_suite
from randqa.engine import run, run_progressive
from randqa.sources import open_backend


@pytest.mark.slow
def test_full_width_birthday_spacings_fail_the_prime_modulus_lcg_within_4_gib():
    suite = load_suite("frontier", tests="birthday_spacings")
    with open_backend("lcg64-prime", 1) as source:
        result = run_progressive(source, suite, 1 << 30, 4 << 30)
    assert result.first_failure_bytes == 2 << 30
    (spacings,) = result.results
    assert spacings.statistic < spacings.details["expected"] / 2 and spacings.pvalue_low < 1e-6
    with open_backend("pcg64", 1) as source:
        assert run(source, suite, limit=256 << 20).verdict == "pass"


def test_decimated_spacings_fail_the_top_64_bits_of_a_128_bit_lcg_at_1_gib():
    """One block of the 64-bit entry, 1 GiB, fails it (PractRand 0.94: none to
    4 GiB); PCG64 passes the same block."""
    suite = load_suite("frontier", tests="decimated_spacings")
    with open_backend("lcg128-top64", 1) as source:
        lcg = run(source, suite, limit=1 << 30)
    with open_backend("pcg64", 1) as source:
        pcg = run(source, suite, limit=1 << 30)
    assert lcg.verdict == "fail" and pcg.verdict == "pass"
    assert min(r.pvalue for r in lcg.results if r.pvalue is not None) < 1e-12


def test_lagged_fibonacci_fails_the_frontier_suite_within_1_mib():
    suite = load_suite("frontier", tests="bit_linear_complexity")
    with open_backend("lfib19937", 1) as source:
        result = run_progressive(source, suite, 1 << 10, 1 << 20)
    assert result.first_failure_bytes == 512 << 10

