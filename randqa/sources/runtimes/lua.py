"""Lua: ``math.random()`` as Lua 5.4 computes it (lmathlib.c, 5.4.4).

What Lua does.  The generator is Blackman and Vigna's xoshiro256**, the
textbook one.  ``math.randomseed(n)`` sets the state to (n, 0xff, 0, 0)
(the 0xff so that no seed gives the all-zero state) and discards 16
outputs; the textbook seeds the four words through splitmix64 instead.
``math.random()`` returns the output's top 53 bits over 2^53 (I2d);
``math.random(0)`` returns all 64 bits, and ``math.random(m, n)`` projects
them by masking and rejection.  Without a call to ``math.randomseed`` Lua
5.4 seeds from the time and the address of its state.

The stream: the 53 bits of each ``math.random()`` float times 2^53, eight
calls packed into 53 bytes.  ``--seed`` is math.randomseed's integer, in
[0, 2**64), the unsigned form of Lua's signed 64-bit integer (the driver
reads the decimal digits with Lua's wrapping integer arithmetic).
"""

from __future__ import annotations

from randqa.sources import _runtime_generators_scripting
from randqa.sources.runtimes import RuntimeBackend
from randqa.sources.runtimes.driver import DRIVER_SOURCES, RuntimeDriver, program_version

SCRIPT = DRIVER_SOURCES / "lua_driver.lua"


class LuaDriver(RuntimeDriver):
    name = "lua"
    programs = ("lua5.4",)

    def version(self) -> str:
        return program_version("lua5.4", "-v")

    def program(self, seed: int) -> list[str]:
        return ["lua5.4", str(SCRIPT)]


DRIVER = LuaDriver()

BACKENDS = (
    RuntimeBackend(
        name="lua-math-random", runtime="lua", call="math.random() * 2**53", bits_per_call=53,
        seed_range=(0, 2**64), seed_rule="math.randomseed takes a 64-bit integer (given as its unsigned form)",
        seeding="math.randomseed(seed): state (seed, 0xff, 0, 0), 16 outputs discarded",
        summary="Lua 5.4 math.random(): xoshiro256**, math.randomseed(n) starting it at (n, 0xff, 0, 0) and "
                "discarding 16 outputs (textbook: splitmix64 seeding); the top 53 bits of each output (the float's), "
                "packed; pinned to Lua 5.4.4",
        make=_runtime_generators_scripting.lua_math_random),
)
