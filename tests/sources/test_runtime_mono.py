"""dotnet-random pinned to Mono's own System.Random.

Known answers: Mono 6.8.0.105, ``new Random(seed).Next()`` called 300 times
and the values at indices 0, 1, 2, 54, 55 and 299 printed (55 is the first
value made from values the generator made itself).  Seed 161803399 is just
past MSEED, where the seeding's int arithmetic first goes negative;
2**31 - 1 wraps it further (and nearly repeats seed 0's stream, as Mono
does).  Where mono and mcs are installed, dotnet-random-live must equal
dotnet-random byte for byte.
"""

from __future__ import annotations

from runtime_checks import assert_live_equals_compiled, known_answers_test

INDICES = (0, 1, 2, 54, 55, 299)
MONO_6_8 = {
    0: [1559595546, 1755192844, 1649316166, 418573418, 1885901857, 440860007],
    1: [534011718, 237820880, 1002897798, 848563345, 333461483, 2024776132],
    42: [1434747710, 302596119, 269548474, 1298281176, 1107915559, 393344200],
    161803399: [613510103, 1016357251, 1046844936, 544812811, 1877826424, 1923901063],
    2**31 - 1: [1559595546, 1755192844, 1649316172, 418573420, 1885901857, 440860847],
}


test_dotnet_random_equals_mono = known_answers_test("dotnet-random", INDICES, MONO_6_8)


def test_dotnet_random_live_equals_the_c_generator():
    assert_live_equals_compiled("dotnet-random", 62 << 10)
