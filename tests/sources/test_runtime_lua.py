"""lua-math-random pinned to Lua's own math.random().

Known answers: ``lua5.4`` (Lua 5.4.4, Debian 5.4.4-3) ran
``math.randomseed(s)`` and printed math.random()'s values 1, 2, 3 and 1000
with 17 significant digits; each times 2^53 is the backend's 53-bit value.
The seeds include -1 and math.mininteger, given to randqa as their
unsigned forms 2**64 - 1 and 2**63.  Where lua5.4 is installed,
lua-math-random-live must equal randqa's C byte for byte on a drawn seed.
"""

from __future__ import annotations

from runtime_checks import assert_live_equals_compiled, values_at

INDICES = (0, 1, 2, 999)
LUA_MATH_RANDOM = {
    0: [0.2469118419609948, 0.23482927841848023, 0.069275939529084729, 0.11056131856160456],
    42: [0.93081217803956817, 0.45178389935924312, 0.54688311243421495, 0.48083182536298763],
    2**64 - 1: [0.64588803338814316, 0.93513561224856689, 0.85629716275528922, 0.35936726914064465],
    2**63: [0.27300533623138712, 0.26964053845329938, 0.95290431666103059, 0.005983149671787924],
}


def test_lua_math_random_equals_lua():
    for seed, floats in LUA_MATH_RANDOM.items():
        assert values_at("lua-math-random", seed, INDICES) == [int(x * 2**53) for x in floats], seed


def test_lua_math_random_live_equals_the_c_generator():
    assert_live_equals_compiled("lua-math-random", 53 << 10)
