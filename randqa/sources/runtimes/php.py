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

from randqa.sources.runtimes.driver import DRIVER_SOURCES, RuntimeDriver

# notices go to stderr, never into the stream
DRIVER = RuntimeDriver("php", command=("php", "-n", "-d", "display_errors=stderr", str(DRIVER_SOURCES / "php_driver.php")),
                       version_command=("php", "-n", "--version"))
