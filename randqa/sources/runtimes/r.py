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

from randqa.sources.runtimes.driver import DRIVER_SOURCES, RuntimeDriver

# --vanilla: no site or user profile, which could change the RNG kind;
# runif is in stats, and the other default packages would double the start-up
DRIVER = RuntimeDriver("r", command=("Rscript", "--vanilla", "--default-packages=stats", str(DRIVER_SOURCES / "r_driver.R")),
                       version_command=("Rscript", "--version"))
