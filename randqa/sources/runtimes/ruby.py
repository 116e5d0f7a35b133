"""Ruby: ``Random#rand`` as Ruby 3.1 computes it (random.c, mt19937.c).

What Ruby does.  ``Random`` is MT19937.  ``Random.new(seed)`` (rand_init)
cuts |seed| into 32-bit words, least significant first; a key of more than
one word whose top word is 1 loses that word (a guard for Ruby's own
128-bit seeds, so ``Random.new(2**32 + s)`` is ``Random.new(s)``); a
one-word key seeds by init_genrand, a longer one by init_by_array.  So
seeds below 2^32 give exactly the textbook stream of init_genrand(seed)
(randqa's ``mt19937``), and larger ones CPython's ``random.seed`` stream.
``Random#rand`` is genrand_res53: from two outputs a, b,
((a >> 5) 2^26 + (b >> 6)) / 2^53, dropping 11 of their 64 bits.

The stream: the 53 bits of each ``Random#rand`` float times 2^53, eight
calls packed into 53 bytes.  ``--seed`` is Random.new's integer, in
[0, 2**128) (Random.new_seed draws 128 bits); a drawn seed has 128 bits.
"""

from __future__ import annotations

from typing import Any

from randqa.sources import _runtime_generators_scripting
from randqa.sources.runtimes.driver import DRIVER_SOURCES, RuntimeDriver


def ruby_random(seed: int) -> Any:
    """randqa's Ruby Random for ``seed``, which C takes as its little-endian bytes."""
    return _runtime_generators_scripting.ruby_random(seed.to_bytes((seed.bit_length() + 7) // 8, "little"))


# --disable-gems: a quicker start, and no gem can touch Random
DRIVER = RuntimeDriver("ruby", command=("ruby", "--disable-gems", str(DRIVER_SOURCES / "ruby_driver.rb")),
                       version_command=("ruby", "--version"))
