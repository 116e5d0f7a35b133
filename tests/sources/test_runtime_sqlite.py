"""sqlite-random pinned to SQLite's own random().

Known answers: the sqlite3 shell 3.40.1, ``.testctrl prng_seed S`` then
``SELECT random()`` on 20 rows of a recursive CTE, and of its output rows
1, 2, 8, 9 (the first of the second ChaCha20 block), 17 and 20; seed -1 is
the int 2**32 - 1.  The shell reaches the library the live driver links, by
another path than randqa's driver.  Where a C compiler and sqlite3.h are
installed, sqlite-random-live must equal sqlite-random byte for byte.
"""

from __future__ import annotations

import pytest

from randqa.errors import UsageError
from randqa.sources.backends import open_backend
from runtime_checks import assert_live_equals_compiled, signed, values_at

ROWS = (1, 2, 8, 9, 17, 20)
SQLITE_3_40 = {
    1: [-3228534820262478579, 2336232825653828751, 384492421164496400, 2894944902922249252, -3504824556407105248,
        -9117938430590925422],
    7: [5363697700374643622, 6220387345866428292, 5052374270809736575, 7186180450575670666, 7421415515760927318,
        -4488174887406059532],
    123456789: [-6712819747531658968, 5268056689742490531, 602099397241913240, -7777570274913418600,
                -648515676239568254, 4304080661856081398],
    2**32 - 1: [3110117772199606649, 7262785843159226040, 5655957848158596500, 6715669319889002451,
                955564979000163649, -4133100417433395082],
}


@pytest.mark.parametrize("seed", sorted(SQLITE_3_40))
def test_sqlite_random_equals_sqlite(seed):
    values = values_at("sqlite-random", seed, tuple(row - 1 for row in ROWS))
    assert [signed(v, 64) for v in values] == SQLITE_3_40[seed]


def test_seed_zero_is_refused_because_sqlite_reads_it_as_unseeded():
    with pytest.raises(UsageError, match=r"must be in \[1, 2\*\*32\)"):
        open_backend("sqlite-random", 0)


def test_sqlite_random_live_equals_the_c_generator():
    assert_live_equals_compiled("sqlite-random", 64 << 10)
