"""The r-* backends pinned to R's own runif().

Known answers: ``Rscript --vanilla`` (R 4.2.2 Patched, 2022-11-10 r83330)
ran ``set.seed(s, kind = K); u <- runif(1000)`` and printed u[1], u[2],
u[3], u[100], u[101] and u[1000] with 17 significant digits, which read
back as the same doubles (tests/data/known_answers/r_runif.json).  Index
100 ends Knuth-TAOCP-2002's first batch of 100 values.  Each backend's
value is floor(u * 2^b), b = 32 (30 for
Knuth-TAOCP-2002), which the product of a double by a power of two gives
exactly.  Where R is installed, each -live backend must equal randqa's C
byte for byte on a drawn seed; 8 KiB keeps the six R start-ups under a
second each.
"""

from __future__ import annotations

import pytest

from runtime_checks import assert_live_equals_compiled, backend_values, known_answers, values_at

INDICES = (0, 1, 2, 99, 100, 999)
R_RUNIF = known_answers("r_runif")


@pytest.mark.parametrize("name", sorted(R_RUNIF))
def test_r_runif_equals_r(name):
    bits = 30 if name == "r-knuth-taocp-2002" else 32
    for seed, runif in R_RUNIF[name].items():
        assert values_at(name, seed, INDICES) == [int(u * 2**bits) for u in runif], seed


def test_set_seed_0_and_1_share_the_mersenne_twisters_first_226_values():
    zero, one = backend_values("r-mersenne-twister", 0, 228), backend_values("r-mersenne-twister", 1, 228)
    assert zero[1:227] == one[:226]
    assert zero[227] != one[226]


@pytest.mark.parametrize("name", sorted(R_RUNIF))
def test_r_live_equals_the_c_generator(name):
    assert_live_equals_compiled(name, 8 << 10)
