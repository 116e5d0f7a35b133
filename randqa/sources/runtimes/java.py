"""Java: ``java.util.Random``, ``SplittableRandom`` and ``L64X128MixRandom``
as OpenJDK 17 implements them (java.base/java/util/Random.java,
SplittableRandom.java, jdk.random's L64X128MixRandom.java and
RandomSupport.java).

- ``java.util.Random(seed)``: Knuth's LCG x = 0x5DEECE66D x + 11 mod 2^48,
  seeded as (seed ^ 0x5DEECE66D) mod 2^48; ``next(b)`` is the state's top b
  bits.  ``nextInt()`` = next(32); ``nextLong()`` = (next(32) << 32) +
  next(32) with the second int sign-extended, so the high half is one less
  than the first output whenever the second is negative, and a long can
  be only 2^48 of the 2^64 values; ``nextDouble()`` = (next(26) << 27) +
  next(27) over 2^53.  Not the textbook LCG output: the low 16 state bits
  are hidden, and the lowest bits shown have short periods (bit 16 of the
  state: 2^17).
- ``SplittableRandom(seed)``: Steele, Lea and Flood's SplitMix: a Weyl
  sequence seed += 0x9e3779b97f4a7c15 through Stafford's mix 13, the same
  stream as Vigna's ``splitmix64`` from state = seed (``nextLong()``).
- ``L64X128MixRandom(seed)`` (JEP 356): an LCG mod 2^64 plus xoroshiro128
  v1.0's first word, mixed by Lea's mixLea64; seeded by XOR with the silver
  ratio 0x6A09E667F3BCC909, a = mixMurmur64(seed) | 1, s = 1, x0 =
  mixStafford13(seed), x1 = mixStafford13(seed + golden ratio).  No attack
  on it is known to randqa.

``--seed`` is the constructor's long, in [0, 2**64) (read as the unsigned
form of the same 64 bits).
"""

from __future__ import annotations

from randqa.sources.runtimes.driver import CompiledDriver


DRIVER = CompiledDriver("java", programs=("java", "javac"), sources=("RandqaDriver.java",),
                        compiler_version_command=("javac", "-version"), build=[["javac", "-d", ".", "RandqaDriver.java"]],
                        command=("java", "-XX:+UseSerialGC", "-cp", "{built}", "RandqaDriver"),
                        version_command=("java", "-version"))
