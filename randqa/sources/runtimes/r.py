"""R: ``runif()`` under each ``RNGkind`` as R 4.2 computes it (src/main/RNG.c:
RNG_Init, FixupSeeds, unif_rand, fixup), after ``set.seed(seed, kind)``.

What every kind shares.  ``set.seed(s)`` runs s = 69069 s + 1 fifty times,
then draws each state word from the same LCG (R's "initial scrambling"),
not the kind's own seeding routine; ``fixup`` keeps every value strictly
inside (0, 1).  R's generators give at most 32 bits (R's ?RNG): the stream
takes floor(u * 2^32) of each value u, and 30 bits for Knuth-TAOCP-2002.

- Mersenne-Twister (the default): MT19937, but its 624 words are the LCG's
  draws, not init_genrand's; u = y / 2^32.  The scrambling is one LCG, so
  ``set.seed(s)`` and ``set.seed(69069 s + 1)`` (0 and 1, for one) fill the
  state with the same words one place apart, and their streams share their
  first 226 values, one apart.
- Wichmann-Hill (AS 183): x = 171 x mod 30269, y = 172 y mod 30307, z = 170 z
  mod 30323 and u = frac(x/30269 + y/30307 + z/30323): about 2^44.7 states.
- Marsaglia-Multicarry: two multiply-with-carry generators on 16 bits,
  I1 = 36969 (I1 & 0xFFFF) + (I1 >> 16) and I2 = 18000 (I2 & 0xFFFF) +
  (I2 >> 16), u = ((I1 << 16) ^ (I2 & 0xFFFF)) / (2^32 - 1); R warns that it
  is poor.
- Super-Duper: Marsaglia's as Reeds et al. (1984) coded it, with unsigned
  words: a Tausworthe register (I1 ^= I1 >> 15; I1 ^= I1 << 17) xor the
  congruential I2 = 69069 I2, over 2^32 - 1.
- Knuth-TAOCP-2002: Knuth's ran_array (lags 100 and 37 mod 2^30, the 2002
  ran_start seeded with the scrambled seed mod 1073741821); R asks for 1009
  values per 100 it uses, as Knuth recommends, and returns the 100 state
  words each batch leaves, times 2^-30: 30-bit values.
- L'Ecuyer-CMRG: L'Ecuyer's MRG32k3a, u = (p1 - p2 mod m1) / (m1 + 1); the
  six seed words are LCG draws, each redrawn until below m2, so the first
  component never starts from a word in [m2, m1).

``--seed`` is set.seed's integer, in [0, 2**31) (R integers are signed 32
bits; negative seeds are not offered).
"""

from __future__ import annotations

from typing import Any, Callable

from randqa.sources import _runtime_generators_r
from randqa.sources.runtimes import RuntimeBackend
from randqa.sources.runtimes.driver import DRIVER_SOURCES, RuntimeDriver, program_version

SCRIPT = DRIVER_SOURCES / "r_driver.R"
PINNED = "pinned to R 4.2.2"


class RDriver(RuntimeDriver):
    name = "r"
    programs = ("Rscript",)

    def version(self) -> str:
        return program_version("Rscript", "--version")

    def program(self, seed: int) -> list[str]:
        # --vanilla: no site or user profile, which could change the RNG kind;
        # runif is in stats, and the other default packages would double the start-up
        return ["Rscript", "--vanilla", "--default-packages=stats", str(SCRIPT)]


DRIVER = RDriver()

_SEED = dict(seed_range=(0, 2**31), seed_rule="set.seed takes an R integer; negative seeds are not offered")


#: how set.seed(seed, kind) fills each kind's state after its 50 scrambling rounds of s = 69069 s + 1
_WORDS = "state word k = the LCG's (k+1)-th next value"
_SEEDING = {
    "Mersenne-Twister": "MT19937's words = the LCG's 2nd to 625th next values (the 1st is the position)",
    "Wichmann-Hill": _WORDS + ", reduced mod 30269, 30307, 30323 (0 -> 1)",
    "Marsaglia-Multicarry": _WORDS + " (0 -> 1)",
    "Super-Duper": _WORDS + " (I1: 0 -> 1; I2 made odd)",
    "Knuth-TAOCP-2002": "Knuth's ran_start(scrambled seed mod 1073741821)",
    "L'Ecuyer-CMRG": _WORDS + ", redrawn while >= m2 = 4294944443",
}


def _runif(name: str, kind: str, bits: int, summary: str, make: Callable[[int], Any]) -> RuntimeBackend:
    return RuntimeBackend(
        name=name, runtime="r", call=f"floor(runif(n) * 2**{bits})", bits_per_call=bits,
        seeding=f'set.seed(seed, kind = "{kind}"): 50 rounds of s = 69069 s + 1, then {_SEEDING[kind]}',
        summary=f'R runif(), RNGkind "{kind}": {summary}; {PINNED}', make=make, **_SEED)


BACKENDS = (
    _runif("r-mersenne-twister", "Mersenne-Twister", 32,
           "MT19937 (R's default) with its 624 words drawn from set.seed's 69069 LCG, not init_genrand; "
           "the 32 bits of each value (y / 2^32) as 4 LE bytes", _runtime_generators_r.mersenne_twister),
    _runif("r-wichmann-hill", "Wichmann-Hill", 32,
           "AS 183, the fraction of x/30269 + y/30307 + z/30323 of three Lehmer generators (~2^44.7 states); "
           "floor(u * 2^32) as 4 LE bytes", _runtime_generators_r.wichmann_hill),
    _runif("r-marsaglia-multicarry", "Marsaglia-Multicarry", 32,
           "two 16-bit multiply-with-carry generators (36969, 18000), (I1 << 16) ^ (I2 & 0xFFFF) over 2^32 - 1; "
           "floor(u * 2^32) as 4 LE bytes", _runtime_generators_r.marsaglia_multicarry),
    _runif("r-super-duper", "Super-Duper", 32,
           "Reeds et al.'s Super-Duper on unsigned words: Tausworthe (15, 17) xor the 69069 LCG, over 2^32 - 1; "
           "floor(u * 2^32) as 4 LE bytes", _runtime_generators_r.super_duper),
    _runif("r-knuth-taocp-2002", "Knuth-TAOCP-2002", 30,
           "Knuth's ran_array (lags 100, 37 mod 2^30), 100 values used per 1009 made; the 30 bits of each value, "
           "packed", _runtime_generators_r.knuth_taocp_2002),
    _runif("r-lecuyer-cmrg", "L'Ecuyer-CMRG", 32,
           "MRG32k3a, (p1 - p2 mod m1) / (m1 + 1), its seed words redrawn below m2; floor(u * 2^32) as 4 LE bytes",
           _runtime_generators_r.lecuyer_cmrg),
)
