"""C++: libstdc++'s ``<random>`` engines as g++ 12 builds them (bits/random.h,
bits/random.tcc), each constructed with ``--seed`` as ``Engine e(seed)``.

- ``minstd_rand0`` and ``minstd_rand``: Park and Miller's Lehmer generator
  x = 16807 x (resp. 48271 x) mod 2^31 - 1, the textbook one; ``seed(s)``
  sets x = s mod m, and 1 where that is 0.  Values in [1, 2^31 - 2].
- ``mt19937_64``: Nishimura and Matsumoto's 64-bit Mersenne Twister with
  the 2004 reference's seeding (x[i] = 6364136223846793005 (x[i-1] ^
  x[i-1] >> 62) + i); textbook.
- ``ranlux24`` and ``ranlux48``: Luescher's RANLUX as the standard defines
  it: Marsaglia and Zaman's subtract-with-carry x[i] = x[i-s] - x[i-r] -
  carry mod 2^w (w, s, r = 24, 10, 24 and 48, 5, 12) behind a
  discard_block_engine that keeps the first 23 of every 223 values (11 of
  389).  Unlike Luescher's code, which seeds through its own 32-bit
  generator, ``seed(s)`` takes the words from L'Ecuyer's LCG x = 40014 x
  mod 2147483563 started at s (0 meaning 19780503), one LCG output per
  24-bit word and two per 48-bit word, the first in the low bits; the
  carry starts as 1 if the last word is 0.
- ``knuth_b``: ``shuffle_order_engine<minstd_rand0, 256>``, Bays and
  Durham's shuffle (Knuth's Algorithm B): a table of 256 outputs, and each
  call returns the entry the previous value selects, j = 256 (y - 1) /
  2147483646 computed in double and truncated, refilled from the engine.

The C++ standard's check values (the 10000th output of a default-
constructed engine, [rand.predef]) hold for all six
(tests/sources/test_runtime_cxx.py).

The stream: each value's b bits (31 for the minstd engines and knuth_b,
whose values are below 2^31; 64, 24 and 48 for the others), eight values
packed into b bytes.  ``--seed`` is the engine's result_type, 64 bits on
LP64 Linux (uint_fast32_t included), in [0, 2**64).
"""

from __future__ import annotations

from pathlib import Path

from randqa.sources import _runtime_generators_clib
from randqa.sources.runtimes import RuntimeBackend
from randqa.sources.runtimes.driver import CompiledDriver, program_version

PINNED = "pinned to g++ 12.2 (libstdc++ 12)"


class CxxDriver(CompiledDriver):
    name = "cxx"
    programs = ("g++",)
    sources = ("cxx_driver.cpp",)
    compiler_version_command = ["g++", "--version"]

    def build_commands(self, folder: Path) -> list[list[str]]:
        return [["g++", "-O2", "-std=c++17", "-o", "cxx_driver", "cxx_driver.cpp"]]

    def version(self) -> str:
        return program_version("g++", "--version")

    def program(self, seed: int) -> list[str]:
        return [str(self.built() / "cxx_driver")]


DRIVER = CxxDriver()

_SEED = dict(seed_range=(0, 2**64), seed_rule="the engine's seed is its result_type, 64 bits on LP64 Linux")
_LEHMER_SEEDING = "Engine e(seed): x = seed mod (2^31 - 1), 0 -> 1"
_RANLUX_SEEDING = ("Engine e(seed): the words from the LCG x = 40014 x mod 2147483563 started at seed "
                   "(0 -> 19780503), carry = (last word == 0)")

BACKENDS = (
    RuntimeBackend(
        name="cxx-minstd-rand0", runtime="cxx", call="std::minstd_rand0()", bits_per_call=31, seeding=_LEHMER_SEEDING,
        summary="libstdc++ std::minstd_rand0: Park-Miller x = 16807 x mod (2^31 - 1), values in [1, 2^31 - 2]; "
                f"their 31 bits, packed; {PINNED}",
        make=_runtime_generators_clib.minstd_rand0, **_SEED),
    RuntimeBackend(
        name="cxx-minstd-rand", runtime="cxx", call="std::minstd_rand()", bits_per_call=31, seeding=_LEHMER_SEEDING,
        summary="libstdc++ std::minstd_rand: Park-Miller-Stockmeyer x = 48271 x mod (2^31 - 1); the 31 bits of "
                f"each value, packed; {PINNED}",
        make=_runtime_generators_clib.minstd_rand, **_SEED),
    RuntimeBackend(
        name="cxx-mt19937-64", runtime="cxx", call="std::mt19937_64()", bits_per_call=64,
        seeding="Engine e(seed): x[0] = seed, x[i] = 6364136223846793005 (x[i-1] ^ x[i-1] >> 62) + i",
        summary=f"libstdc++ std::mt19937_64: the 64-bit Mersenne Twister; 64-bit values as 8 LE bytes; {PINNED}",
        make=_runtime_generators_clib.mt19937_64, **_SEED),
    RuntimeBackend(
        name="cxx-ranlux24", runtime="cxx", call="std::ranlux24()", bits_per_call=24, seeding=_RANLUX_SEEDING,
        summary="libstdc++ std::ranlux24: subtract-with-carry mod 2^24 (lags 10, 24), 23 of every 223 values kept, "
                f"its words from an LCG (40014 mod 2147483563), not Luescher's seeding; 24-bit values as 3 LE bytes; {PINNED}",
        make=_runtime_generators_clib.ranlux24, **_SEED),
    RuntimeBackend(
        name="cxx-ranlux48", runtime="cxx", call="std::ranlux48()", bits_per_call=48, seeding=_RANLUX_SEEDING,
        summary="libstdc++ std::ranlux48: subtract-with-carry mod 2^48 (lags 5, 12), 11 of every 389 values kept, "
                f"its words from an LCG (40014 mod 2147483563), not Luescher's seeding; 48-bit values as 6 LE bytes; {PINNED}",
        make=_runtime_generators_clib.ranlux48, **_SEED),
    RuntimeBackend(
        name="cxx-knuth-b", runtime="cxx", call="std::knuth_b()", bits_per_call=31, seeding=_LEHMER_SEEDING,
        summary="libstdc++ std::knuth_b: minstd_rand0 through Bays-Durham's 256-entry shuffle, the index taken "
                f"from the previous value in double; the 31 bits of each value, packed; {PINNED}",
        make=_runtime_generators_clib.knuth_b, **_SEED),
)
