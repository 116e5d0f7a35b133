"""JavaScript: V8's ``Math.random()`` as Node runs it (Node 20, V8 11.3).

What V8 does (src/numbers/math-random.cc, src/base/utils/random-number-
generator.h).  Each native context keeps two 64-bit state words and a cache
of 64 doubles.  The first ``Math.random()`` seeds the state from the
``--random-seed`` flag (an int; 0, the default, means a seed drawn from the
OS) as MurmurHash3's finaliser: state0 = fmix64(seed), state1 =
fmix64(~seed).  A refill runs the xorshift128 step (shifts 23, 17, 26) 64
times and stores ``(state0 >> 12) | 0x3FF0000000000000`` reinterpreted as a
double, minus 1.0, so each double is a 52-bit value / 2^52; ``Math.random()``
then returns the cache from its last entry to its first.

How it differs from the textbook.  Vigna's xorshift128+ returns state0 +
state1; V8 returns state0 alone, the xorshift128 state word, so every bit
of every double is a linear function over GF(2) of the 128 seed bits, and
the cache's reverse order reverses each block of 64 values.

The stream: the 52 bits of ``Math.random() * 2**52``, packed (13 bytes for
two calls).  ``--seed`` is V8's ``--random-seed``, in [1, 2**31).
"""

from __future__ import annotations

from randqa.sources.runtimes.driver import DRIVER_SOURCES, RuntimeDriver

DRIVER = RuntimeDriver("node", command=("node", "--random-seed={seed}", str(DRIVER_SOURCES / "node_driver.js")),
                       version_command=("node", "--version"), version_prefix="node ")
