"""musl-rand and musl-random pinned to musl's own rand() and random().

Known answers: a C program built with ``musl-gcc -static`` (musl 1.2.3,
Debian's musl 1.2.3-1) called ``srand(s)`` / ``srandom(s)`` and printed the
values of calls 1 to 4 and 1000.  The seeds cover srand(0)'s wrap to
2^32 - 1 in unsigned arithmetic, the default srand(1) and the largest
seed.  Where musl-gcc is installed, each -live backend (the same calls from
a musl program) must equal randqa's C byte for byte; 31 KiB crosses the
driver's write buffer.
"""

from __future__ import annotations

import pytest

from runtime_checks import assert_live_equals_compiled, values_at

INDICES = (0, 1, 2, 3, 999)
MUSL_RAND = {
    0: [2049033599, 2025915578, 1407788582, 829275321, 883923982],
    1: [0, 740882966, 1616430695, 1708849955, 577001958],
    42: [311430560, 131117839, 1110653038, 92942940, 1108592227],
    2**32 - 1: [1308150633, 1150367849, 1315369323, 868687688, 1080468965],
}
MUSL_RANDOM = {
    0: [1708849955, 262836907, 2022765545, 1985587709, 966942472],
    1: [262836907, 2022765545, 1985587709, 1559253607, 776953319],
    42: [1105844101, 1165395678, 461296413, 1259424640, 437959510],
    2**32 - 1: [730825273, 1387885664, 2089455501, 1329784659, 2029441033],
}


@pytest.mark.parametrize("name, answers", [("musl-rand", MUSL_RAND), ("musl-random", MUSL_RANDOM)])
def test_musl_generators_equal_musl(name, answers):
    for seed, expected in answers.items():
        assert values_at(name, seed, INDICES) == expected, seed


@pytest.mark.parametrize("name", ["musl-rand", "musl-random"])
def test_musl_live_equals_the_c_generator(name):
    assert_live_equals_compiled(name, 31 << 10)
