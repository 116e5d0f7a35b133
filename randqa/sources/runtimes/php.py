"""PHP: ``mt_rand()`` after ``mt_srand(seed)``, and ``rand()`` after
``srand(seed)``, as PHP 8.2 runs them (ext/random/engine_mt19937.c and
random.c).

What PHP does.  ``mt_srand(seed)`` casts the int seed to 32 bits and runs
MT19937's ``init_genrand``, then twists at once; ``mt_rand()`` without
arguments returns the next tempered 32-bit output shifted right by one
(``genrand_int31``), so the lowest bit of every MT19937 output is dropped
and values are in [0, 2^31).  ``rand()`` and ``srand()`` are aliases of
``mt_rand()`` and ``mt_srand()`` since PHP 7.1 (before, they were libc's);
without arguments ``rand()`` gives exactly ``mt_rand()``'s stream, which
php-rand-live checks against the real runtime.  They part only with a
range: ``rand(min, max)`` accepts max < min and, in the legacy mode,
scales where ``mt_rand`` rejects.

How it differs from MT19937.  In the default mode (``MT_RAND_MT19937``,
PHP 7.1 and later) the generator is textbook MT19937: the same state,
twist, tempering and ``init_genrand``; only the shift drops a bit.  PHP
5.2.1 to 7.0 had a typo in the twist (the low bit of the wrong word chose
the matrix term), still available as ``mt_srand(seed, MT_RAND_PHP)`` and
not modelled here.  The 624-word state is exposed by 624 outputs whatever
the seed, and there are only 2^32 seeds.

The stream: the 31 bits of each call's value, packed (8 calls = 31 bytes).
``--seed`` is the int given to ``mt_srand``/``srand``, in [0, 2**32).
"""

from __future__ import annotations

from randqa.sources import _runtime_generators
from randqa.sources.runtimes import RuntimeBackend
from randqa.sources.runtimes.driver import DRIVER_SOURCES, RuntimeDriver, program_version

SCRIPT = DRIVER_SOURCES / "php_driver.php"


class PhpDriver(RuntimeDriver):
    name = "php"
    programs = ("php",)

    def version(self) -> str:
        return program_version("php", "-n", "--version")

    def program(self, seed: int) -> list[str]:
        # notices go to stderr, never into the stream
        return ["php", "-n", "-d", "display_errors=stderr", str(SCRIPT)]


DRIVER = PhpDriver()

_SEED_RANGE = (0, 2**32)
_SEED_RULE = "mt_srand keeps the seed's low 32 bits"
_SUMMARY = ("MT19937 (init_genrand) with the low bit of each output dropped; the 31 bits of each value, packed; "
            "pinned to PHP 8.2.36")

BACKENDS = (
    RuntimeBackend(
        name="php-mt-rand", runtime="php", call="mt_rand()", bits_per_call=31,
        seeding="mt_srand(seed): init_genrand((uint32_t) seed)",
        summary=f"PHP mt_rand() after mt_srand(seed): {_SUMMARY}",
        make=_runtime_generators.php_mt_rand, seed_range=_SEED_RANGE, seed_rule=_SEED_RULE),
    RuntimeBackend(
        name="php-rand", runtime="php", call="rand()", bits_per_call=31,
        seeding="srand(seed), mt_srand's alias: init_genrand((uint32_t) seed)",
        summary=f"PHP rand() after srand(seed), mt_rand()'s alias since PHP 7.1, so php-mt-rand's stream: {_SUMMARY}",
        make=_runtime_generators.php_mt_rand, seed_range=_SEED_RANGE, seed_rule=_SEED_RULE),
)
