"""The cxx-* backends pinned to libstdc++'s own <random> engines.

Known answers: a program built with g++ 12.2.0 (Debian 12.2.0-14,
libstdc++ 12) constructed each engine as ``Engine e(s)`` and printed the
values of calls 1 to 4 and 10000 (tests/data/known_answers/libstdcxx.json).
Seed 0 shows each engine's replacement of a zero seed (1 for the Lehmer
engines, 19780503 for ranlux), 2**64 - 1 the full 64-bit seed.  The 10000th value of the default seed is also the
C++ standard's own check value ([rand.predef]: minstd_rand0 1043618065,
minstd_rand 399268537, mt19937_64 9981545732273789042, ranlux24 9901578,
ranlux48 249142670248501, knuth_b 1112339016).  Where g++ is installed,
each -live backend must equal randqa's C byte for byte on a drawn seed;
24 KiB is 8,192 ranlux24 values, past several of its 223-value blocks.
"""

from __future__ import annotations

import pytest

from runtime_checks import assert_live_equals_compiled, known_answers, values_at

INDICES = (0, 1, 2, 3, 9999)
LIBSTDCXX = known_answers("libstdcxx")


@pytest.mark.parametrize("name", sorted(LIBSTDCXX))
def test_cxx_engines_equal_libstdcxx(name):
    for seed, expected in LIBSTDCXX[name].items():
        assert values_at(name, seed, INDICES) == expected, seed


@pytest.mark.parametrize("name", sorted(LIBSTDCXX))
def test_cxx_live_equals_the_c_generator(name):
    assert_live_equals_compiled(name, 24 << 10)
