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

from pathlib import Path

from randqa.sources import _generators, _runtime_generators
from randqa.sources.runtimes import RuntimeBackend
from randqa.sources.runtimes.driver import CompiledDriver, program_version

PINNED = "pinned to OpenJDK 17.0.15"


class JavaDriver(CompiledDriver):
    name = "java"
    programs = ("java", "javac")
    sources = ("RandqaDriver.java",)
    compiler_version_command = ["javac", "-version"]

    def build_commands(self, folder: Path) -> list[list[str]]:
        return [["javac", "-d", ".", "RandqaDriver.java"]]

    def version(self) -> str:
        return program_version("java", "-version")

    def program(self, seed: int) -> list[str]:
        return ["java", "-XX:+UseSerialGC", "-cp", str(self.built()), "RandqaDriver"]


DRIVER = JavaDriver()

_SEED_RANGE = (0, 2**64)
_SEED_RULE = "the constructor takes a 64-bit long"
_RANDOM_SEEDING = "new java.util.Random(seed): x = (seed ^ 0x5DEECE66D) mod 2^48"

BACKENDS = (
    RuntimeBackend(
        name="java-random", runtime="java", call="nextInt()", bits_per_call=32, seeding=_RANDOM_SEEDING,
        summary=f"java.util.Random nextInt(): LCG mod 2^48 (0x5DEECE66D, 11), bits 47..16 as 4 LE bytes; {PINNED}",
        make=_generators.java_random, seed_range=_SEED_RANGE, seed_rule=_SEED_RULE),
    RuntimeBackend(
        name="java-random-long", runtime="java", call="nextLong()", bits_per_call=64, seeding=_RANDOM_SEEDING,
        summary="java.util.Random nextLong(): (next(32) << 32) + next(32), the low int sign-extended, "
                f"as 8 LE bytes; {PINNED}",
        make=_runtime_generators.java_random_long, seed_range=_SEED_RANGE, seed_rule=_SEED_RULE),
    RuntimeBackend(
        name="java-random-double", runtime="java", call="nextDouble() * 2**53", bits_per_call=53,
        seeding=_RANDOM_SEEDING,
        summary="java.util.Random nextDouble(): (next(26) << 27) + next(27) over 2^53; its 53 bits, packed; "
                f"{PINNED}",
        make=_runtime_generators.java_random_double, seed_range=_SEED_RANGE, seed_rule=_SEED_RULE),
    RuntimeBackend(
        name="java-splittable-random", runtime="java", call="nextLong()", bits_per_call=64,
        seeding="new SplittableRandom(seed): seed += 0x9e3779b97f4a7c15 per call (= splitmix64 from state seed)",
        summary=f"java.util.SplittableRandom nextLong(): SplitMix64 (Weyl sequence + Stafford mix 13), 8 LE bytes; "
                f"{PINNED}",
        make=_generators.splitmix64, seed_range=_SEED_RANGE, seed_rule=_SEED_RULE),
    RuntimeBackend(
        name="java-l64x128mixrandom", runtime="java", call="nextLong()", bits_per_call=64,
        seeding="RandomGeneratorFactory.of(\"L64X128MixRandom\").create(seed): seed ^= 0x6A09E667F3BCC909, "
                "a = mixMurmur64(seed) | 1, s = 1, x0/x1 = mixStafford13(seed, seed + golden ratio)",
        summary="Java 17 L64X128MixRandom nextLong(): LCG mod 2^64 + xoroshiro128, mixLea64 (JEP 356), "
                f"8 LE bytes; {PINNED}",
        make=_runtime_generators.java_l64x128mixrandom, seed_range=_SEED_RANGE, seed_rule=_SEED_RULE),
)
