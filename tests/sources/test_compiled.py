"""The compiled generators (sources/_generators.c) pinned to their references
by known answers: glibc's own rand(), MSVC and ANSI C rand(), RC4 against
RFC 6229, libdnet's RC4 keying, LFSR113 against Linux's self-test vectors
and prandom seeding, MT19937 against mt19937ar.c and CPython's random, the
small classics (RANDU, MINSTD, xorshift32, SplitMix64), the truncated
power-of-two LCGs java.util.Random (the JDK's first outputs) and MMIX,
SipHash-2-4 and Linux's siprand, L'Ecuyer's prime-modulus LCG (SmokeRand's
self-test value), PCG's 128-bit LCG (numpy's PCG64 steps the same state)
and the lagged Fibonacci (19937, 9842).  No seed, zero or degenerate, locks a
generator.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import platform
import random

import numpy as np
import pytest

from randqa.sources import _generators
from randqa.sources.backends import compiled_backend_names, open_backend
from reference_generators import (K0, M64, PCG128_INCREMENT, backend_stream, dnet_reference, java_random_next_ints,
                                  lagged_fibonacci_19937, lcg64_prime, lfsr113_reference, mmix_lcg_top32, pcg128_lcg_states,
                                  siphash24, siprand_reference, splitmix64_values)


def words(name: str, seed: int | None, count: int, dtype: str) -> list[int]:
    size = np.dtype(dtype).itemsize
    return np.frombuffer(backend_stream(name, seed, count * size), dtype=dtype).tolist()


def gen_words(generator, count: int, dtype: str) -> list[int]:
    buffer = bytearray(count * np.dtype(dtype).itemsize)
    generator.fill(buffer)
    return np.frombuffer(buffer, dtype=dtype).tolist()


def test_compiled_backends_are_the_c_generators():
    assert set(compiled_backend_names()) == {
        "glibc-rand", "glibc-rand-byte", "glibc-rand-short", "msvc-rand-byte", "msvc-rand-short", "dnet-arc4",
        "arc4", "arc4-drop", "lfsr113", "siprand", "ansi-c-rand", "randu", "minstd", "mt19937", "xorshift32",
        "mmix-lcg", "splitmix64", "lcg64-prime", "lcg128-top64", "lcg128-top32", "lfib19937", "lfib19937-top32", "splitmix"}


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="needs glibc's own rand()")
@pytest.mark.parametrize("seed", [0, 1, 42, 2**31 - 1, 2**31, 2**32 - 1])
def test_glibc_rand_equals_libc_rand(seed):
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.srand(ctypes.c_uint(seed))
    expected = [libc.rand() for _ in range(2000)]
    assert words("glibc-rand", seed, 2000, "<u4") == expected
    assert list(backend_stream("glibc-rand-byte", seed, 2000)) == [r & 0xFF for r in expected]
    assert words("glibc-rand-short", seed, 2000, "<u2") == [r & 0xFFFF for r in expected]


def test_msvc_rand_known_answers():
    assert words("msvc-rand-short", 1, 4, "<u2") == [41, 18467, 6334, 26500]
    assert list(backend_stream("msvc-rand-byte", 1, 4)) == [41 & 0xFF, 18467 & 0xFF, 6334 & 0xFF, 26500 & 0xFF]


def test_msvc_rand_short_keeps_bit_15_zero():
    shorts = np.frombuffer(backend_stream("msvc-rand-short", 7, 1 << 16), dtype="<u2")
    assert shorts.max() < 0x8000
    assert shorts.max() > 0x7F00  # and uses all 15 bits


def test_ansi_c_rand_known_answers():
    assert words("ansi-c-rand", 1, 5, "<u2") == [16838, 5758, 10113, 17515, 31051]


# RFC 6229 section 2: (key, {offset: 16 keystream bytes})
RFC6229 = [
    ("0102030405", {
        0: "b2396305f03dc027ccc3524a0a1118a8",
        16: "6982944f18fc82d589c403a47a0d0919",
        240: "28cb1132c96ce286421dcaadb8b69eae",
        1008: "45129048e6a0ed0b56b490338f078da5",
        3072: "ec0e11c479dc329dc8da7968fe965681",
        4096: "ff25b58995996707e51fbdf08b34d875",
    }),
    ("0102030405060708090a0b0c0d0e0f10", {
        0: "9ac7cc9a609d1ef7b2932899cde41b97",
        16: "5248c4959014126a6e8a84f11d1a9e1c",
        1536: "ffa0b514647ec04f6306b892ae661181",
        3072: "c05d88abd50357f935a63c59ee537623",
        4096: "a36a4c301ae8ac13610ccbc12256cacc",
    }),
]


@pytest.mark.parametrize("key, vectors", RFC6229)
def test_rc4_against_rfc6229(key, vectors):
    keystream = bytearray(4112)
    _generators.rc4(bytes.fromhex(key), 0).fill(keystream)
    for offset, expected in vectors.items():
        assert keystream[offset:offset + 16].hex() == expected
        dropped = bytearray(16)
        _generators.rc4(bytes.fromhex(key), offset).fill(dropped)
        assert dropped.hex() == expected


def test_arc4_backends_key_from_seed_and_drop():
    key = (123456789).to_bytes(8, "little")
    plain = bytearray(4096 + 64)
    _generators.rc4(key, 0).fill(plain)
    assert backend_stream("arc4", 123456789, 64) == plain[:64]
    assert backend_stream("arc4-drop", 123456789, 64) == plain[3072:3072 + 64]
    assert backend_stream("arc4-drop:768", 123456789, 64) == plain[768:768 + 64]
    assert open_backend("arc4-drop:768", 5).describe()["drop"] == 768


@pytest.mark.parametrize("seed", [0, 1, 2**64 - 1])
def test_dnet_arc4_is_libdnets_keying_not_plain_rc4(seed):
    key = seed.to_bytes(8, "little")
    got = backend_stream("dnet-arc4", seed, 600)
    assert got == dnet_reference(key, 600)
    assert got != backend_stream("arc4", seed, 600)
    # rand_uint32 composes 4 keystream bytes most significant first: the stream is its words big-endian
    first_uint32 = (got[0] << 24) | (got[1] << 16) | (got[2] << 8) | got[3]
    assert got[:4] == first_uint32.to_bytes(4, "big")


# lib/random32.c (Linux 5.10) CONFIG_RANDOM32_SELFTEST vectors
KERNEL_TEST1 = [(1, 3484351685), (2, 2623130059), (3, 3125133893), (4, 984847254)]
KERNEL_TEST2 = [  # (seed, iteration, result), a spread of the kernel's 100
    (931557656, 959, 2975593782), (1339693295, 876, 3887776532), (1967883163, 508, 10734624),
    (1516232129, 557, 3173877), (70616361, 829, 22483098), (1535432887, 998, 42610943),
    (407983964, 921, 728767059), (2121230701, 931, 2115467001),
]


def test_lfsr113_kernel_selftest_vectors():
    for seed, result in KERNEL_TEST1:
        assert gen_words(_generators.lfsr113_selftest(seed), 1, "<u4") == [result]
    for seed, iteration, result in KERNEL_TEST2:
        assert gen_words(_generators.lfsr113_selftest(seed), iteration, "<u4")[-1] == result


@pytest.mark.parametrize("seed", [0, 1, 0xDEADBEEF, (1025 << 32) | 1, M64])
def test_lfsr113_backend_is_prandom_seed_state_with_warmup(seed):
    assert words("lfsr113", seed, 200, "<u4") == lfsr113_reference(seed, 200)


def test_mt19937_known_answers():
    assert words("mt19937", 5489, 1, "<u4") == [3499211612]
    # mt19937ar.c's test: init_by_array({0x123, 0x234, 0x345, 0x456})
    by_array = _generators.mt19937_by_array([0x123, 0x234, 0x345, 0x456])
    assert gen_words(by_array, 5, "<u4") == [1067595299, 955945823, 477289528, 4107218783, 4228976476]


@pytest.mark.parametrize("seed", [0, 1, 2**32, 2**100 + 12345])
def test_python_random_is_cpythons_stream_and_mt_init_by_array(seed):
    rng = random.Random(seed)
    expected = [rng.getrandbits(32) for _ in range(1000)]
    assert words("python-random", seed, 1000, "<u4") == expected
    limbs = [(seed >> (32 * k)) & 0xFFFFFFFF for k in range(max(1, -(-seed.bit_length() // 32)))]
    assert gen_words(_generators.mt19937_by_array(limbs), 1000, "<u4") == expected


def test_minstd_10000th_output():
    assert words("minstd", 1, 10000, "<u4")[-1] == 1043618065


def test_small_classics_known_answers():
    assert words("randu", 1, 4, "<u4") == [65539, 393225, 1769499, 7077969]
    assert words("xorshift32", 2463534242, 3, "<u4") == [723471715, 2497366906, 2064144800]
    assert words("splitmix64", 1234567, 3, "<u8") == [6457827717110365317, 3203168211198807973, 9817491932198370423]


def test_java_random_matches_the_jdk_first_outputs():
    # `new java.util.Random(42).nextInt()` four times, as the JDK prints them
    jdk = [-1170105035, 234785527, -1360544799, 205897768]
    assert java_random_next_ints(42, 4) == jdk
    assert words("java-random", 42, 4, "<i4") == jdk


@pytest.mark.parametrize("seed", [0, 1, 42, 2**47 + 5, 2**63 + 12345, 2**64 - 1])
def test_java_random_equals_its_definition(seed):
    assert words("java-random", seed, 3000, "<i4") == java_random_next_ints(seed, 3000)


@pytest.mark.parametrize("seed", [0, 1, 2**32 + 7, 2**64 - 1])
def test_mmix_lcg_equals_its_definition(seed):
    expected = mmix_lcg_top32(seed, 3000)
    assert words("mmix-lcg", seed, 3000, "<u4") == expected
    if seed == 0:  # the first state is the increment itself
        assert expected[0] == 1442695040888963407 >> 32 == 335903614


def test_lcg64_prime_known_answer_and_definition():
    # SmokeRand's lcg64prime self-test: from x = 1, the 100,000th output
    assert words("lcg64-prime", 1, 100_000, "<u8")[-1] == 3072923337735042611
    for seed in (0, 2, 2**64 - 59, 2**64 - 60, 2**64 - 1):  # 0 and m are the fixed point 0: they start at 1
        x0 = seed % (2**64 - 59) or 1
        assert words("lcg64-prime", seed, 500, "<u8") == lcg64_prime(x0, 500)


@pytest.mark.parametrize("seed", [0, 1, 2**64 + 5, 2**128 - 1])
def test_lcg128_is_pcgs_lcg_and_seeding(seed):
    states = pcg128_lcg_states(seed, 2000)
    assert words("lcg128-top64", seed, 2000, "<u8") == [x >> 64 for x in states]
    assert words("lcg128-top32", seed, 2000, "<u4") == [x >> 96 for x in states]


def test_lcg128_steps_as_numpys_pcg64_state():
    # numpy's PCG64 advances the same 128-bit LCG (PCG's default multiplier)
    # under its output permutation: given our state and the default
    # increment, its state after 1000 outputs is our 1000th
    states = pcg128_lcg_states(7, 1001)
    bitgen = np.random.PCG64(0)
    bitgen.state = {"bit_generator": "PCG64", "state": {"state": states[0], "inc": PCG128_INCREMENT},
                    "has_uint32": 0, "uinteger": 0}
    bitgen.random_raw(1000)
    assert bitgen.state["state"]["state"] == states[1000]


@pytest.mark.parametrize("seed", [0, 1, 2**64 - 1])
def test_lfib19937_equals_its_recurrence(seed):
    values = lagged_fibonacci_19937(seed, 45_000)
    assert words("lfib19937", seed, 45_000, "<u8") == values
    assert words("lfib19937-top32", seed, 45_000, "<u4") == [v >> 32 for v in values]


def test_splitmix64_reference_is_the_backend():
    assert words("splitmix64", 99, 100, "<u8") == splitmix64_values(99, 100)


def test_narrow_splitmix_is_splitmix64_at_64_bits_and_a_permutation_below():
    assert words("splitmix:64", 99, 100, "<u8") == splitmix64_values(99, 100)
    values = np.array(words("splitmix:20", 5, 1 << 20, "<u8"))
    assert values.max() < 1 << 20 and len(np.unique(values)) == 1 << 20  # every 20-bit value once
    assert open_backend("splitmix", 1).describe()["bits"] == 48


def test_truncated_lcg_seeds_outside_64_bits_are_refused():
    from randqa.errors import UsageError

    for name in ("java-random", "mmix-lcg"):
        with pytest.raises(UsageError, match="2\\*\\*64"):
            open_backend(name, 2**64)


def test_sipround_is_siphashs_round():
    # SipHash-2-4 paper, appendix A: key 00..0f, message 00..0e
    assert siphash24(bytes(range(16)), bytes(range(15))) == 0xA129CA6149BE45E5


@pytest.mark.parametrize("seed", [0, 1, 2**64 + 5, 2**128 - 1])
def test_siprand_against_the_kernel_transcription(seed):
    assert words("siprand", seed, 500, "<u4") == siprand_reference(seed, 500)


def test_siprand_documented_reference_values():
    # the values quoted in randqa/sources/backends.py's docstring
    assert siprand_reference(0, 4) == [3507486556, 1139426507, 345495905, 3542557534]


def assert_not_stuck(data: bytes, word: str = "<u4") -> None:
    values = np.frombuffer(data, dtype=word)
    tail = values[len(values) // 2:]
    assert len(np.unique(tail)) > len(tail) // 2, "stream is (nearly) constant"


@pytest.mark.parametrize("name, seed", [
    ("lfsr113", 0), ("lfsr113", (1025 << 32) | 1), ("siprand", 0), ("siprand", K0), ("minstd", 0),
    ("minstd", 2**31 - 1), ("randu", 0), ("xorshift32", 0), ("glibc-rand", 0), ("mt19937", 0), ("splitmix64", 0),
    ("arc4", 0), ("dnet-arc4", 0), ("lcg64-prime", 0), ("lcg128-top64", 0), ("lfib19937", 0),
])
def test_zero_and_degenerate_seeds_do_not_lock(name, seed):
    assert_not_stuck(backend_stream(name, seed, 1 << 14))


def test_without_fixups_the_same_states_would_lock():
    # what the minimum-seed and zero-word fix-ups prevent: a Tausworthe state
    # below the minimums decays to zero, and the all-zero SipHash state is fixed
    locked = gen_words(_generators.lfsr113_raw(1, 7, 15, 127), 100, "<u4")
    assert set(locked[10:]) == {0}
    assert set(gen_words(_generators.siprand_raw(0, 0, 0, 0), 100, "<u4")) == {0}


def test_the_lcg_constants_python_jumps_with_are_the_c_generators():
    """The jumps read each LCG's constants from _generators.c, where the
    generators step with them: they match the published values."""
    from randqa.sources.compiled import PCG128_INCREMENT as OURS_INCREMENT, PCG128_MULTIPLIER
    from reference_generators import PCG128_MULTIPLIER as PUBLISHED_MULTIPLIER, PRIME64_MODULUS, PRIME64_MULTIPLIER

    assert _generators.LCG_MSVC == (214013, 2531011, 1 << 32)
    assert _generators.LCG_ANSI_C == (1103515245, 12345, 1 << 32)
    assert _generators.LCG_RANDU == (65539, 0, 1 << 31)
    assert _generators.LCG_MINSTD == (16807, 0, (1 << 31) - 1)
    assert _generators.LCG_PRIME64 == (PRIME64_MULTIPLIER, 0, PRIME64_MODULUS)
    assert (PCG128_MULTIPLIER, OURS_INCREMENT) == (PUBLISHED_MULTIPLIER, PCG128_INCREMENT)
    assert _generators.SPLITMIX64_GAMMA == 0x9E3779B97F4A7C15
