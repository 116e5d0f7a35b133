"""Named generator backends: pinned to their references by known-answer
tests, seeded reproducibly, independent of read sizes, never locked by a
degenerate seed, and usable by every CLI command."""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import platform
import random
import subprocess
import sys

import numpy as np
import pytest

from randqa.cli import main as cli_main
from randqa.errors import UsageError
from randqa.sources import _generators, open_source
from randqa.sources.backends import backend_names, compiled_backend_names, describe_backends, open_backend
from randqa.sources.base import read_full

M64 = (1 << 64) - 1
HAVE_LIBCRYPTO = ctypes.util.find_library("crypto") is not None


def stream(name: str, seed: int | None, nbytes: int) -> bytes:
    buffer = bytearray(nbytes)
    with open_backend(name, seed) as source:
        assert read_full(source, memoryview(buffer)) == nbytes
    return bytes(buffer)


def words(name: str, seed: int | None, count: int, dtype: str) -> list[int]:
    size = np.dtype(dtype).itemsize
    return np.frombuffer(stream(name, seed, count * size), dtype=dtype).tolist()


def gen_words(generator, count: int, dtype: str) -> list[int]:
    buffer = bytearray(count * np.dtype(dtype).itemsize)
    generator.fill(buffer)
    return np.frombuffer(buffer, dtype=dtype).tolist()


def run_cli_inprocess(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        cli_main(list(args))
    out = capsys.readouterr()
    return exit_info.value.code, out.out, out.err


# --------------------------------------------------------------------------
# The list

ISSUE_BACKENDS = [
    "urandom", "getrandom", "openssl", "glibc-rand", "glibc-rand-byte", "glibc-rand-short", "msvc-rand-byte",
    "msvc-rand-short", "dnet-arc4", "arc4", "arc4-drop", "lfsr113", "siprand", "randu", "minstd", "ansi-c-rand",
    "mt19937", "xorshift32", "splitmix64", "python-random", "pcg64", "pcg64dxsm", "philox", "sfc64", "chacha",
    "aes-ctr", "xoshiro256",
]


def test_every_backend_of_the_issue_is_listed_with_one_line(capsys):
    described = dict(describe_backends())
    assert set(ISSUE_BACKENDS) <= set(backend_names())
    assert all(text and "\n" not in text for text in described.values())
    code, out, _ = run_cli_inprocess(capsys, "list")
    assert code == 0
    listed = {line.split()[0] for line in out.splitlines() if line and not line.startswith("#")}
    assert set(backend_names()) == listed


def test_compiled_backends_are_the_c_generators():
    assert set(compiled_backend_names()) == {
        "glibc-rand", "glibc-rand-byte", "glibc-rand-short", "msvc-rand-byte", "msvc-rand-short", "dnet-arc4",
        "arc4", "arc4-drop", "lfsr113", "siprand", "ansi-c-rand", "randu", "minstd", "mt19937", "xorshift32",
        "java-random", "mmix-lcg", "splitmix64"}


# --------------------------------------------------------------------------
# Known answers

@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="needs glibc's own rand()")
@pytest.mark.parametrize("seed", [0, 1, 42, 2**31 - 1, 2**31, 2**32 - 1])
def test_glibc_rand_equals_libc_rand(seed):
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.srand(ctypes.c_uint(seed))
    expected = [libc.rand() for _ in range(2000)]
    assert words("glibc-rand", seed, 2000, "<u4") == expected
    assert list(stream("glibc-rand-byte", seed, 2000)) == [r & 0xFF for r in expected]
    assert words("glibc-rand-short", seed, 2000, "<u2") == [r & 0xFFFF for r in expected]


def test_msvc_rand_known_answers():
    assert words("msvc-rand-short", 1, 4, "<u2") == [41, 18467, 6334, 26500]
    assert list(stream("msvc-rand-byte", 1, 4)) == [41 & 0xFF, 18467 & 0xFF, 6334 & 0xFF, 26500 & 0xFF]


def test_msvc_rand_short_keeps_bit_15_zero():
    shorts = np.frombuffer(stream("msvc-rand-short", 7, 1 << 16), dtype="<u2")
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
    assert stream("arc4", 123456789, 64) == plain[:64]
    assert stream("arc4-drop", 123456789, 64) == plain[3072:3072 + 64]
    assert stream("arc4-drop:768", 123456789, 64) == plain[768:768 + 64]
    assert open_backend("arc4-drop:768", 5).describe()["drop"] == 768


def dnet_reference(key: bytes, n: int) -> bytes:
    """libdnet rand.c, transcribed: rand_set = init + two addrandom passes, then rand_get."""
    s = list(range(256))
    i = j = 0
    for _ in range(2):  # rand_addrandom: continues from i, j; ends with j = i
        i = (i - 1) & 0xFF
        for k in range(256):
            i = (i + 1) & 0xFF
            si = s[i]
            j = (j + si + key[k % len(key)]) & 0xFF
            s[i] = s[j]
            s[j] = si
        j = i
    out = bytearray()
    for _ in range(n):
        i = (i + 1) & 0xFF
        si = s[i]
        j = (j + si) & 0xFF
        sj = s[j]
        s[i], s[j] = sj, si
        out.append(s[(si + sj) & 0xFF])
    return bytes(out)


@pytest.mark.parametrize("seed", [0, 1, 2**64 - 1])
def test_dnet_arc4_is_libdnets_keying_not_plain_rc4(seed):
    key = seed.to_bytes(8, "little")
    got = stream("dnet-arc4", seed, 600)
    assert got == dnet_reference(key, 600)
    assert got != stream("arc4", seed, 600)
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


def lfsr113_reference(seed: int, count: int) -> list[int]:
    """prandom_seed_state(seed) + prandom_warmup, then prandom_u32_state, in Python."""
    i = ((seed >> 32) ^ (seed << 10) ^ seed) & 0xFFFFFFFF
    s = [i + m if i < m else i for m in (2, 8, 16, 128)]
    params = [(6, 13, 4294967294, 18), (2, 27, 4294967288, 2), (13, 21, 4294967280, 7), (3, 12, 4294967168, 13)]
    out = []
    for _ in range(10 + count):
        s = [((x & c) << d & 0xFFFFFFFF) ^ ((((x << a) & 0xFFFFFFFF) ^ x) >> b) for x, (a, b, c, d) in zip(s, params)]
        out.append(s[0] ^ s[1] ^ s[2] ^ s[3])
    return out[10:]


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


def sipround(v: list[int]) -> list[int]:
    """PRND_SIPROUND (64-bit), transcribed from include/linux/prandom.h."""
    def rol(x: int, r: int) -> int:
        return ((x << r) | (x >> (64 - r))) & M64

    v0, v1, v2, v3 = v
    v0 = (v0 + v1) & M64; v1 = rol(v1, 13); v2 = (v2 + v3) & M64; v3 = rol(v3, 16)  # noqa: E702
    v1 ^= v0; v0 = rol(v0, 32); v3 ^= v2  # noqa: E702
    v0 = (v0 + v3) & M64; v3 = rol(v3, 21); v2 = (v2 + v1) & M64; v1 = rol(v1, 17)  # noqa: E702
    v3 ^= v0; v1 ^= v2; v2 = rol(v2, 32)  # noqa: E702
    return [v0, v1, v2, v3]


def siphash24(key: bytes, message: bytes) -> int:
    k0, k1 = int.from_bytes(key[:8], "little"), int.from_bytes(key[8:], "little")
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D, k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]
    whole = len(message) // 8 * 8
    blocks = [int.from_bytes(message[i:i + 8], "little") for i in range(0, whole, 8)]
    blocks.append((len(message) << 56) | int.from_bytes(message[whole:], "little"))
    for m in blocks:
        v[3] ^= m
        v = sipround(sipround(v))
        v[0] ^= m
    v[2] ^= 0xFF
    for _ in range(4):
        v = sipround(v)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


K0 = 0x736F6D6570736575 ^ 0x6C7967656E657261
K1 = 0x646F72616E646F6D ^ 0x7465646279746573


def siprand_reference(seed: int, count: int) -> list[int]:
    """Linux 5.10 siprand_u32 with net_rand_noise = 0, keyed as prandom_reseed."""
    lo, hi = seed & M64, seed >> 64
    v = [w if w else M64 for w in (lo, hi, lo ^ K0, hi ^ K1)]
    out = []
    for _ in range(count):
        v = sipround(sipround(v))
        out.append((v[1] + v[3]) & 0xFFFFFFFF)
    return out


def test_sipround_is_siphashs_round():
    # SipHash-2-4 paper, appendix A: key 00..0f, message 00..0e
    assert siphash24(bytes(range(16)), bytes(range(15))) == 0xA129CA6149BE45E5


@pytest.mark.parametrize("seed", [0, 1, 2**64 + 5, 2**128 - 1])
def test_siprand_against_the_kernel_transcription(seed):
    assert words("siprand", seed, 500, "<u4") == siprand_reference(seed, 500)


def test_siprand_documented_reference_values():
    # the values quoted in randqa/sources/backends.py's docstring
    assert siprand_reference(0, 4) == [3507486556, 1139426507, 345495905, 3542557534]


# --------------------------------------------------------------------------
# Degenerate seeds never lock a generator

def assert_not_stuck(data: bytes, word: str = "<u4") -> None:
    values = np.frombuffer(data, dtype=word)
    tail = values[len(values) // 2:]
    assert len(np.unique(tail)) > len(tail) // 2, "stream is (nearly) constant"


@pytest.mark.parametrize("name, seed", [
    ("lfsr113", 0), ("lfsr113", (1025 << 32) | 1), ("siprand", 0), ("siprand", K0), ("minstd", 0),
    ("minstd", 2**31 - 1), ("randu", 0), ("xorshift32", 0), ("glibc-rand", 0), ("mt19937", 0), ("splitmix64", 0),
    ("arc4", 0), ("dnet-arc4", 0),
])
def test_zero_and_degenerate_seeds_do_not_lock(name, seed):
    assert_not_stuck(stream(name, seed, 1 << 14))


def test_without_fixups_the_same_states_would_lock():
    # what the minimum-seed and zero-word fix-ups prevent: a Tausworthe state
    # below the minimums decays to zero, and the all-zero SipHash state is fixed
    locked = gen_words(_generators.lfsr113_raw(1, 7, 15, 127), 100, "<u4")
    assert set(locked[10:]) == {0}
    assert set(gen_words(_generators.siprand_raw(0, 0, 0, 0), 100, "<u4")) == {0}


# --------------------------------------------------------------------------
# Reproducible, recorded, independent of read sizes

@pytest.mark.parametrize("name", [n for n in ISSUE_BACKENDS if n not in ("urandom", "getrandom", "openssl")]
                         + ["mt19937-numpy", "pcg32", "arc4-drop:7"])
def test_stream_does_not_depend_on_read_sizes(name):
    whole = stream(name, 99, 10007)
    pieces = bytearray(10007)
    view = memoryview(pieces)
    with open_backend(name, 99) as source:
        pos = 0
        for size in [1, 2, 3, 5, 7, 11, 13, 4000, 1, 9, 5955]:
            source.readinto(view[pos:pos + size])
            pos += size
        assert pos == 10007
    assert bytes(pieces) == whole


def test_unseeded_backends_record_a_seed_that_reproduces_them():
    for name in ["glibc-rand", "siprand", "pcg64", "python-random", "arc4-drop"]:
        with open_backend(name, None) as source:
            seed = source.seed
            assert isinstance(seed, int) and source.describe()["seed"] == seed
            first = bytearray(256)
            source.readinto(memoryview(first))
        assert stream(name, seed, 256) == bytes(first)
        assert stream(name, seed + 1, 256) != bytes(first)


def test_os_backends_are_marked_not_reproducible():
    for name in ["urandom", "getrandom"] + (["openssl"] if HAVE_LIBCRYPTO else []):
        with open_backend(name, 5) as source:
            info = source.describe()
            assert info["reproducible"] is False and info["seed"] is None and info["seed_ignored"] == 5
            data = bytearray(1 << 16)
            read_full(source, memoryview(data))
        assert len(set(data)) == 256


def test_seed_outside_the_seeding_routines_range_is_refused(capsys):
    with pytest.raises(UsageError, match="2\\*\\*32"):
        open_backend("glibc-rand", 2**32)
    code, _, err = run_cli_inprocess(capsys, "generate", "mt19937", "--seed", str(2**32), "-n", "16", "-o", "/dev/null")
    assert code == 2 and err.count("\n") == 1


def test_unknown_backend_exits_2_with_close_matches(capsys):
    code, _, err = run_cli_inprocess(capsys, "test", "glibc-rnad", "-n", "1M")
    assert code == 2 and "glibc-rand" in err and err.count("\n") == 1
    code, _, err = run_cli_inprocess(capsys, "bench", "siprnd", "-n", "1M")
    assert code == 2 and "siprand" in err


# --------------------------------------------------------------------------
# User generators and plugins

def test_module_attribute_bitgenerator():
    assert stream("numpy.random:PCG64", 5, 4096) == stream("pcg64", 5, 4096)
    # 32-bit raw outputs are written as 4 bytes, as mt19937-numpy is
    assert stream("numpy.random:MT19937", 5, 4096) == stream("mt19937-numpy", 5, 4096)
    with pytest.raises(UsageError, match="cannot import"):
        open_backend("no_such_module_xyz:Gen", 1)


def test_entry_point_plugin_is_listed_and_opened(tmp_path, monkeypatch):
    from randqa.sources import backends

    (tmp_path / "randqa_test_plugin.py").write_text(
        "import numpy as np\n\ndef make(seed):\n    return np.random.SFC64(seed)\n")
    dist = tmp_path / "randqa_test_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: randqa-test-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[randqa.backends]\nmy-sfc = randqa_test_plugin:make\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    backends._entry_points.cache_clear()
    try:
        assert "my-sfc" in backend_names()
        with open_backend("my-sfc", 3) as source:
            assert source.name == "my-sfc" and source.seed == 3
        assert stream("my-sfc", 3, 1024) == stream("sfc64", 3, 1024)
    finally:
        backends._entry_points.cache_clear()


# --------------------------------------------------------------------------
# Through the CLI

def test_every_backend_runs_through_randqa_test_json(capsys, tmp_path):
    for name in backend_names():
        if name == "openssl" and not HAVE_LIBCRYPTO:
            continue
        out = tmp_path / f"{name}.json"
        code, _, err = run_cli_inprocess(capsys, "test", name, "-n", "1M", "--seed", "1", "--json", str(out))
        assert code in (0, 1), (name, err)
        report = json.loads(out.read_text())
        assert report["source"]["name"] == name and report["bytes_tested"] == 1 << 20
        if report["source"]["reproducible"]:
            assert report["source"]["seed"] == 1
        else:
            assert report["source"]["seed_ignored"] == 1


def test_quick_suite_catches_msvc_rand_byte_and_passes_chacha(capsys):
    code, out, _ = run_cli_inprocess(capsys, "test", "msvc-rand-byte", "-n", "64M", "--seed", "1")
    assert code == 1 and "FAIL" in out
    code, out, _ = run_cli_inprocess(capsys, "test", "chacha", "-n", "64M", "--seed", "1")
    assert code == 0 and "PASS" in out


def test_generate_writes_the_backend_bytes_and_records_the_seed(capsys, tmp_path):
    target = tmp_path / "out.bin"
    code, _, err = run_cli_inprocess(capsys, "generate", "glibc-rand", "-n", "1000", "--seed", "7", "-o", str(target))
    assert code == 0 and "seed 7" in err
    assert target.read_bytes() == stream("glibc-rand", 7, 1000)
    code, _, err = run_cli_inprocess(capsys, "generate", "splitmix64", "-n", "10", "-o", str(target))
    drawn = int(err.split("seed ")[1].split()[0].rstrip(","))
    assert target.read_bytes() == stream("splitmix64", drawn, 10)


def test_generate_ends_quietly_when_the_pipe_closes():
    proc = subprocess.Popen([sys.executable, "-m", "randqa", "generate", "pcg64", "--seed", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    head = proc.stdout.read(100_000)
    proc.stdout.close()
    _, err = proc.communicate(timeout=30)
    assert head == stream("pcg64", 1, 100_000)
    assert proc.returncode == 0
    assert err.decode().count("\n") == 1 and "Traceback" not in err.decode()


def test_bench_prints_a_rate_per_backend_and_json(capsys, tmp_path):
    target = tmp_path / "bench.json"
    code, out, _ = run_cli_inprocess(capsys, "bench", "splitmix64", "lfsr113", "-n", "1M", "--repeats", "3",
                                     "--json", str(target))
    assert code == 0 and "splitmix64" in out and "lfsr113" in out
    rows = json.loads(target.read_text())["backends"]
    assert [r["backend"] for r in rows] == ["splitmix64", "lfsr113"]
    assert all(r["min_mb_per_s"] <= r["mb_per_s"] <= r["max_mb_per_s"] for r in rows)


def test_open_source_reaches_backends():
    with open_source("xorshift32", seed=2463534242) as source:
        buffer = bytearray(4)
        source.readinto(memoryview(buffer))
    assert int.from_bytes(buffer, "little") == 723471715
