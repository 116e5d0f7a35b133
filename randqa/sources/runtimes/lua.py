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

from randqa.sources.runtimes.driver import DRIVER_SOURCES, RuntimeDriver

DRIVER = RuntimeDriver("lua", command=("lua5.4", str(DRIVER_SOURCES / "lua_driver.lua")), version_command=("lua5.4", "-v"))
