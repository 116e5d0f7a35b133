"""The Java backends pinned to OpenJDK 17's own generators.

Known answers: OpenJDK 17.0.15 (``java KA.java``), for each seed (as a
long; 2**64 - 1 is -1L) the first three values of ``new Random(seed)``'s
nextInt(), nextLong() and nextDouble() (each from a fresh Random), of
``new SplittableRandom(seed).nextLong()`` and of
``RandomGeneratorFactory.of("L64X128MixRandom").create(seed).nextLong()``.
A double times 2^53 is java-random-double's 53-bit value.  Where java and
javac are installed, each -live backend must equal its C twin byte for byte
(the driver is built once into randqa's cache; 64 KiB per backend).
"""

from __future__ import annotations

import pytest

from runtime_checks import assert_live_equals_compiled, backend_values, signed

OPENJDK_17 = {
    0: {"int": [-1155484576, -723955400, 1033096058],
        "long": [-4962768465676381896, 4437113781045784766, -6688467811848818630],
        "double": [0.730967787376657, 0.24053641567148587, 0.6374174253501083],
        "split": [-2152535657050944081, 7960286522194355700, 487617019471545679],
        "lxm": [5462611082047578805, 6542559582828032015, 3684453750024441887]},
    42: {"int": [-1170105035, 234785527, -1360544799],
         "long": [-5025562857975149833, -5843495416241995736, 5694868678511409995],
         "double": [0.7275636800328681, 0.6832234717598454, 0.30871945533265976],
         "split": [-4767286540954276203, 2949826092126892291, 5139283748462763858],
         "lxm": [-5600175640509174766, -6068984182338578160, -5395223390448918216]},
    123456789: {"int": [-1442945365, -1016548095, 1962592967],
                "long": [-6197403153606331135, 8429272609719263920, 7203573180470058788],
                "double": [0.664038103272266, 0.45695178590520646, 0.39050647939140426],
                "split": [2466975172287755897, 8832083440362974766, 3534771765162737125],
                "lxm": [-4717095853682240714, 4151057641755942080, 1066315900311765578]},
    2**64 - 1: {"int": [1155099827, 1887904451, 52699159],
                "long": [4961115982468162243, 226341162490527646, -6233441030884181172],
                "double": [0.26894263088050496, 0.012269981921235296, 0.6620844841121951],
                "split": [-1956407806741107680, -1612297016619662647, 4048727598324417001],
                "lxm": [7067917314541547227, -2702819092078257576, 3339772474599897108]},
}

BACKENDS = {"int": ("java-random", 32), "long": ("java-random-long", 64), "split": ("java-splittable-random", 64),
            "lxm": ("java-l64x128mixrandom", 64)}


@pytest.mark.parametrize("seed", sorted(OPENJDK_17))
def test_java_backends_equal_openjdk(seed):
    expected = OPENJDK_17[seed]
    for key, (name, bits) in BACKENDS.items():
        assert [signed(v, bits) for v in backend_values(name, seed, 3)] == expected[key], name
    assert [v / 2**53 for v in backend_values("java-random-double", seed, 3)] == expected["double"]


@pytest.mark.parametrize("name", ["java-random", "java-random-long", "java-random-double", "java-splittable-random",
                                  "java-l64x128mixrandom"])
def test_java_live_equals_the_c_generator(name):
    assert_live_equals_compiled(name, 64 << 10)
