"""php-mt-rand and php-rand pinned to PHP's own mt_rand() and rand().

Known answers: PHP 8.2.36, ``mt_srand(S)`` then ``mt_rand()`` 1001 times,
the values at indices 0, 1, 2, 623, 624 (the first after the second twist)
and 1000 printed; ``srand(S)`` then ``rand()`` gave the first three of the
same list for every seed, as PHP's aliases should.  ``mt_srand(-1)`` and
``mt_srand(4294967295)`` print the same first value (the seed's low 32 bits
are all it keeps).  Where php is installed, each -live backend must equal
its C twin byte for byte.
"""

from __future__ import annotations

import pytest

from runtime_checks import assert_live_equals_compiled, backend_values, known_answers_test

INDICES = (0, 1, 2, 623, 624, 1000)
PHP_8_2 = {
    0: [1178568022, 1273124119, 1535857466, 1895927410, 170772381, 666537747],
    1: [895547922, 2141438069, 1546885062, 1003058076, 552157340, 187866620],
    12345678: [527860569, 1711027313, 1280820687, 266269072, 827087157, 2123386589],
    2**32 - 1: [209663185, 239673489, 1959327238, 513542040, 1930326134, 830604184],
}


test_php_mt_rand_equals_php = known_answers_test("php-mt-rand", INDICES, PHP_8_2)


@pytest.mark.parametrize("seed", sorted(PHP_8_2))
def test_php_rand_is_php_mt_rand(seed):
    assert backend_values("php-rand", seed, 3) == PHP_8_2[seed][:3]


@pytest.mark.parametrize("name", ["php-mt-rand", "php-rand"])
def test_php_live_equals_the_c_generator(name):
    assert_live_equals_compiled(name, 31 << 10)
