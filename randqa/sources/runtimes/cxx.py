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

from randqa.sources.runtimes.driver import CompiledDriver


DRIVER = CompiledDriver("cxx", programs=("g++",), sources=("cxx_driver.cpp",), compiler_version_command=("g++", "--version"),
                        build=[["g++", "-O2", "-std=c++17", "-o", "cxx_driver", "cxx_driver.cpp"]],
                        command=("{built}/cxx_driver",), version_command=("g++", "--version"))
