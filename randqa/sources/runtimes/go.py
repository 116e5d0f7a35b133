"""Go: ``math/rand`` with ``rand.New(rand.NewSource(seed))`` (Go 1.19,
src/math/rand/rng.go).

What Go does.  An additive lagged Fibonacci generator on 607 int64 words,
x[n] = x[n-607] + x[n-273] mod 2^64 (Mitchell and Reeds' algorithm, from
Plan 9), returned whole by ``Uint64()`` (``Int63()`` clears its top bit).
``Seed(seed)`` reduces the seed mod 2^31 - 1 (0 becomes 89482311), runs the
LCG x = 48271 x mod (2^31 - 1) 20 times, then makes each of the 607 words
from three further LCG values (shifted by 40, 20 and 0 and XORed) XOR a
fixed table, ``rngCooked``.  randqa's copy of that table
(``_go_rng_cooked.h``) is read from Go itself: ``go_driver cooked`` takes
the state of ``rand.NewSource(1)`` by reflection and removes the LCG's part.

How it differs from the textbook.  Knuth's additive generator uses lags
(55, 24) and a proper initialisation; Go's lags are (607, 273) and its
seeding passes only 31 bits of state through: seeds equal mod 2^31 - 1
give the same stream, and every stream is the fixed table XOR one of
2^31 - 1 LCG sequences.  The lowest bit of every word is a linear
recurrence over GF(2) (the sum's carry never reaches it).

The stream: each ``Uint64()`` as 8 little-endian bytes.  ``--seed`` is the
``int64`` given to ``NewSource``, in [0, 2**63).
"""

from __future__ import annotations

import os

from randqa.files import cache_root
from randqa.sources.runtimes.driver import CompiledDriver


class GoDriver(CompiledDriver):
    def build_environment(self) -> dict[str, str]:
        # go's build cache needs a writable folder even where HOME is not
        return {**os.environ, "GOCACHE": str(cache_root() / "go-build"), "GO111MODULE": "off"}

    def cooked_command(self) -> list[str]:
        """The command printing math/rand's rngCooked as the C header randqa compiles."""
        return [*self.program(0), "cooked"]


DRIVER = GoDriver("go", programs=("go",), sources=("go_driver.go",), compiler_version_command=("go", "version"),
                  build=[["go", "build", "-o", "go_driver", "go_driver.go"]], command=("{built}/go_driver",),
                  version_command=("go", "version"))
