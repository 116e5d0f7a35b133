"""Segments: a source opened at byte offset k*S gives exactly bytes
[k*S, (k+1)*S) of the stream a one-process run reads.

Every jumping backend is compared with its sequential stream at offsets
inside and across words, blocks and MT19937's 624-word twists.  Large
offsets (2^40 bytes and more) are checked where an independent computation
exists (closed-form LCGs in Python big ints, splitmix64's counter, the
periods of xorshift32 and LFSR113, numpy's MT19937.jumped() and randomgen's
jumped() of the xoshiro family (2^64 to 2^512 steps), glibc's
recurrence as a 31x31 matrix power mod 2^32), and otherwise by composition:
jumping a then b equals jumping a + b.  Jumps of 2^60 run in a subprocess
bounded by a timeout, which an O(N) jump could never meet.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from randqa.sources import backend_names, open_source
from randqa.sources.base import read_full
from randqa.sources.runtimes import LIVE_SUFFIX
from randqa.sources.segments import NotSplittable, open_at
from randqa.sources.streams import PreadSource
from reference_generators import PCG128_INCREMENT, PCG128_MULTIPLIER, PRIME64_MODULUS, PRIME64_MULTIPLIER, pcg128_lcg_states

SEED = 20240611
M32, M64 = (1 << 32) - 1, (1 << 64) - 1

JUMPING = [
    "glibc-rand", "glibc-rand-byte", "glibc-rand-short", "msvc-rand-byte", "msvc-rand-short", "ansi-c-rand",
    "randu", "minstd", "mt19937", "xorshift32", "splitmix64", "lfsr113", "python-random", "lcg64-prime",
    "lcg128-top64", "lcg128-top32", "splitmix",
    "pcg64", "pcg64dxsm", "philox", "mt19937-numpy", "chacha", "aes-ctr", "threefry", "speck128", "pcg32",
    "mwc128x", "squares", "blabla", "xoshiro256", "xoshiro512", "xoroshiro128", "xorshift1024", "mt64",
]
SEQUENTIAL = ["dnet-arc4", "arc4", "arc4-drop", "siprand", "lfib19937", "lfib19937-top32", "sfc64", "jsf", "hc128", "sfmt", "lxm"]
INDEPENDENT = ["urandom", "getrandom"]


def read(source, n: int) -> bytes:
    buffer = bytearray(n)
    assert read_full(source, memoryview(buffer)) == n
    return bytes(buffer)


def sequential(name: str, n: int) -> bytes:
    with open_source(name, seed=SEED) as source:
        return read(source, n)


# --------------------------------------------------------------------------
# Which way each source is split


def test_split_methods_of_the_backends():
    methods = {}
    for name in backend_names():
        if name == "openssl":
            continue  # needs the system libcrypto; an UnseededSource like the two below
        if name.endswith(LIVE_SUFFIX):
            continue  # a runtime's process, read in order like stdin
        with open_source(name, seed=None if name in INDEPENDENT else SEED) as source:
            methods[name] = source.split_method
    assert {n for n, m in methods.items() if m == "jump"} == set(JUMPING)
    assert all(methods[n] == "sequential" for n in SEQUENTIAL)
    assert all(methods[n] == "independent" for n in INDEPENDENT)


def test_split_methods_of_data(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(b"x" * 100)
    with open_source(str(path)) as source:
        assert source.split_method == "pread"
    with open_source(str(path), fmt="bits") as source:  # whitespace makes byte offsets unknowable
        assert source.split_method == "sequential"
    with open_source("/dev/zero") as source:  # a device: no offsets to read at
        assert source.split_method == "sequential"
    with pytest.raises(NotSplittable):
        open_at("-", None, 0)
    with pytest.raises(NotSplittable):
        open_at("arc4", SEED, 16)


# --------------------------------------------------------------------------
# Files


def test_pread_ranges_equal_slices_and_share_no_position(tmp_path):
    data = np.random.default_rng(5).integers(0, 256, 100_003, dtype=np.uint8).tobytes()
    path = str(tmp_path / "data.bin")
    with open(path, "wb") as f:
        f.write(data)
    size = 7_777
    readers = [open_at(path, None, k * size, length=size) for k in range(len(data) // size + 1)]
    pieces = [bytearray() for _ in readers]
    # interleaved small reads: a shared file position would mix the ranges up
    for step in range(size // 1000 + 2):
        for reader, piece in zip(readers, pieces):
            chunk = bytearray(1000)
            got = reader.readinto(memoryview(chunk))
            piece += chunk[:got]
    for k, piece in enumerate(pieces):
        assert bytes(piece) == data[k * size:(k + 1) * size]
    for reader in readers:
        reader.close()
    with PreadSource(path, 99_000) as tail:  # no length: to the end of the file
        assert read(tail, 1_003) == data[99_000:]
        assert tail.readinto(memoryview(bytearray(10))) == 0
    with PreadSource(path, 200_000) as beyond:
        assert beyond.readinto(memoryview(bytearray(10))) == 0


# --------------------------------------------------------------------------
# Generators: small offsets against the sequential stream

SEGMENT_SIZES = [1, 3, 1000, 4093, 8 * 624 + 5]


@pytest.mark.parametrize("name", JUMPING)
def test_segment_k_equals_the_sequential_slice(name):
    total = 40_000
    stream = sequential(name, total)
    for size in SEGMENT_SIZES:
        for k in (0, 1, 2, 7):
            if (k + 1) * size <= total:
                assert read(open_at(name, SEED, k * size), size) == stream[k * size:(k + 1) * size], (size, k)
    # every offset within the first few words, and around MT19937's twists
    offsets = list(range(0, 70)) + [2495, 2496, 2497, 2500, 4 * 1247, 4 * 1248 + 1, 16_001]
    for offset in offsets:
        assert read(open_at(name, SEED, offset), 64) == stream[offset:offset + 64], offset


@pytest.mark.parametrize("name", JUMPING)
def test_jumps_compose_at_large_offsets(name):
    a = (1 << 40) + 24  # bytes: 2^40 and a few words, so counters sit inside their blocks
    source = open_at(name, SEED, a)
    width = source.word_bytes
    for b_words in (1, 3, 5, (1 << 37) + 7):
        composed = open_at(name, SEED, a)
        composed.advance(b_words)
        direct = open_at(name, SEED, a + b_words * width)
        assert read(composed, 96) == read(direct, 96), b_words
    # unaligned: the bytes after a + 3 are the tail of the word at a
    assert read(open_at(name, SEED, a + 3), 61) == read(source, 64)[3:]


# --------------------------------------------------------------------------
# Large offsets against independent computations


def lcg_closed_form(x: int, a: int, c: int, m: int, n: int) -> int:
    """x after n steps of x -> a x + c mod m: a^n x + c (a^n - 1)/(a - 1), exact in big ints."""
    if a == 1:
        return (x + c * n) % m
    return (pow(a, n, m) * x + c * ((pow(a, n, m * (a - 1)) - 1) // (a - 1))) % m


BIG = [(1 << 40) + 2, (1 << 50) + 7, (1 << 62) + 1]


@pytest.mark.parametrize("offset", BIG)
def test_lcg_backends_at_large_offsets_match_the_closed_form(offset):
    msvc, ansi = (214013, 2531011), (1103515245, 12345)
    for name, (a, c), width in (("msvc-rand-short", msvc, 2), ("msvc-rand-byte", msvc, 1), ("ansi-c-rand", ansi, 2)):
        words, skip = divmod(offset, width)
        x = lcg_closed_form(1234, a, c, 1 << 32, words)
        expected = b"".join(((x := (a * x + c) & M32) >> 16 & (0x7FFF if width == 2 else 0xFF)).to_bytes(width, "little")
                            for _ in range(4))
        got = read(open_at(name, 1234, offset), 4 * width - skip)
        assert got == expected[skip:], name
    words = offset // 4
    x = lcg_closed_form(1234 | 1, 65539, 0, 1 << 31, words + 1)
    assert read(open_at("randu", 1234, 4 * words), 4) == x.to_bytes(4, "little")
    x = lcg_closed_form(1234, 16807, 0, (1 << 31) - 1, words + 1)
    assert read(open_at("minstd", 1234, 4 * words), 4) == x.to_bytes(4, "little")
    x = lcg_closed_form(1234, PRIME64_MULTIPLIER, 0, PRIME64_MODULUS, offset // 8 + 1)
    assert read(open_at("lcg64-prime", 1234, offset // 8 * 8), 8) == x.to_bytes(8, "little")
    seeded = pcg128_lcg_states(1234, 1)[0]  # the first output's state
    x = lcg_closed_form(seeded, PCG128_MULTIPLIER, PCG128_INCREMENT, 1 << 128, offset // 4)
    assert read(open_at("lcg128-top32", 1234, offset // 4 * 4), 4) == (x >> 96).to_bytes(4, "little")


def splitmix64_output(state: int) -> int:
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


@pytest.mark.parametrize("offset", BIG)
def test_splitmix64_at_large_offsets_is_its_counter(offset):
    words, skip = divmod(offset, 8)
    state = (SEED + (words + 1) * 0x9E3779B97F4A7C15) & M64
    assert read(open_at("splitmix64", SEED, offset), 8 - skip) == splitmix64_output(state).to_bytes(8, "little")[skip:]


def test_gf2_generators_return_after_their_period():
    """xorshift32 repeats after 2^32 - 1 outputs and LFSR113 after the product of
    its components' periods (2^31-1)(2^29-1)(2^28-1)(2^25-1), about 2^113."""
    start = sequential("xorshift32", 64)
    for laps in (1, 3, 1 << 20):
        assert read(open_at("xorshift32", SEED, 4 * laps * ((1 << 32) - 1) + 4), 60) == start[4:]
    period = ((1 << 31) - 1) * ((1 << 29) - 1) * ((1 << 28) - 1) * ((1 << 25) - 1)
    start = sequential("lfsr113", 64)
    assert read(open_at("lfsr113", SEED, 4 * period + 6), 58) == start[6:]
    assert read(open_at("lfsr113", SEED, 4 * (period - 1)), 4) != start[:4]


def test_mt19937_jump_matches_numpys_jumped():
    """numpy's MT19937.jumped() is Matsumoto's Horner jump by 2^128 on the state
    read as a window starting at mt[pos] (pos 624 read as 0), stepped one word at
    a time, so it returns that window rotated, with pos where it ended.  From a
    state whose whole block was output (pos 624) that window starts 2^128 - 624
    outputs past the next output.  All 624 words must agree with ours but the
    low 31 bits of the oldest, which MT19937 never uses (only its top bit feeds
    the recurrence) and which that jump leaves as a sum of old values."""
    from randqa.sources.jumps import mt19937_jump

    bitgen = np.random.MT19937(SEED)
    bitgen.random_raw(int(624 - bitgen.state["state"]["pos"]))
    state = bitgen.state["state"]
    assert state["pos"] == 624
    jumped = bitgen.jumped().state["state"]
    theirs = np.concatenate([jumped["key"][jumped["pos"]:], jumped["key"][:jumped["pos"]]])
    ours = mt19937_jump(state["key"], state["pos"], (1 << 128) - 624)
    assert np.array_equal(ours[1:], theirs[1:])
    assert ours[0] >> 31 == theirs[0] >> 31


@pytest.mark.parametrize("cls_name, kwargs, steps", [
    ("Xoshiro256", {}, 1 << 128), ("Xoshiro512", {}, 1 << 256), ("Xoroshiro128", {}, 1 << 64),
    ("Xoroshiro128", {"plusplus": True}, 1 << 64), ("Xorshift1024", {}, 1 << 512),
])
def test_xoshiro_family_jump_matches_randomgens_jumped(cls_name, kwargs, steps):
    """randomgen's jumped() applies Vigna's precomputed jump polynomials; ours
    computes x^steps mod p(x) from the recurrence.  From fresh and from used states."""
    import randomgen

    from randqa.sources.bitgenerators import BitGeneratorSource

    cls = getattr(randomgen, cls_name)
    for used in (0, 5):
        bitgen = cls(SEED, **kwargs)
        bitgen.random_raw(used)
        expected = bitgen.jumped().random_raw(50)
        BitGeneratorSource(cls_name, SEED, bitgen, 8, seeding="").advance(steps)
        assert np.array_equal(bitgen.random_raw(50), expected), used


def glibc_by_matrix_power(hist: list[int], n: int) -> list[int]:
    """The TYPE_3 window n outputs on, as the n-th power of the 31x31 companion
    matrix of r[i] = r[i-3] + r[i-31] (uint64 arithmetic wraps, mod 2^32 kept)."""
    t = np.zeros((31, 31), dtype=np.uint64)
    for k in range(30):
        t[k, k + 1] = 1
    t[30, 0] = t[30, 28] = 1
    result = np.eye(31, dtype=np.uint64)
    while n:
        if n & 1:
            result = (result @ t) & M32
        t = (t @ t) & M32
        n >>= 1
    return [int(v) for v in (result @ np.array(hist, dtype=np.uint64)) & M32]


def test_glibc_rand_at_large_offsets_matches_the_matrix_power():
    from randqa.sources import _generators

    hist = np.frombuffer(_generators.glibc_rand(SEED, 0).state(), dtype="=u4", count=31).tolist()
    for words in (1, 1000, (1 << 38) + 5, (1 << 60) + 3):
        window = glibc_by_matrix_power(hist, words)
        expected = [(window[28] + window[0]) & M32, (window[29] + window[1]) & M32]
        got = np.frombuffer(read(open_at("glibc-rand", SEED, 4 * words), 8), dtype="<u4").tolist()
        assert got == [v >> 1 for v in expected], words
        assert read(open_at("glibc-rand-byte", SEED, words), 2) == bytes([(v >> 1) & 0xFF for v in expected])


# --------------------------------------------------------------------------
# Cost: a jump of 2^60 must not step 2^60 times


def test_jumps_of_2_to_the_60_finish_quickly():
    code = textwrap.dedent(f"""
        from randqa.sources.segments import open_at
        for name in {JUMPING!r}:
            source = open_at(name, 1, (1 << 60) + 5)
            source.readinto(memoryview(bytearray(16)))
        print("done")
    """)
    # generous: the whole set takes well under a second; stepping 2^60 outputs would take decades
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "done"


# --------------------------------------------------------------------------
# Users' BitGenerators: jump only when advance is seen to count outputs

BLOCK_COUNTING = """
import numpy as np

class BlockAdvance(np.random.Philox):
    '''numpy's Philox under another name: its advance counts 4-output blocks.'''
"""


def test_user_bitgenerator_jumps_only_when_advance_counts_outputs(tmp_path, monkeypatch):
    (tmp_path / "usergens.py").write_text(BLOCK_COUNTING)
    monkeypatch.syspath_prepend(str(tmp_path))
    with open_source("usergens:BlockAdvance", seed=SEED) as source:
        assert source.split_method == "sequential"
    with open_source("randomgen:Philox", seed=SEED) as source:  # randomgen's advance counts draws
        assert source.split_method == "jump"
    stream = sequential("randomgen:Philox", 4000)
    for offset in (0, 5, 8 * 3 + 1, 8 * 37, 3001):
        assert read(open_at("randomgen:Philox", SEED, offset), 64) == stream[offset:offset + 64]


def test_the_source_reports_the_same_whichever_way_it_was_reached():
    for name in JUMPING:
        with open_source(name, seed=SEED) as fresh:
            assert open_at(name, SEED, 12_345).describe() == fresh.describe(), name


def test_open_at_needs_the_recorded_seed():
    with pytest.raises(ValueError):
        open_at("pcg64", None, 100)
    with pytest.raises(ValueError):
        open_at("pcg64", SEED, -1)


def test_jump_kernels_refuse_bad_input_and_take_steps_beyond_64_bits():
    from randqa.sources import _jump

    for n in (0, 1, 12345, (1 << 64) + 3, (1 << 1000) + 1):
        assert _jump.lcg(7, 6364136223846793005, 1442695040888963407, 1 << 64, n) == lcg_closed_form(
            7, 6364136223846793005, 1442695040888963407, 1 << 64, n)
    bad = [
        lambda: _jump.lcg(1, 2, 3, 1, 5),  # modulus below 2
        lambda: _jump.lcg(1, 2, 3, 1 << 32, -1),
        lambda: _jump.lcg(1, 2, 3, 1 << 32, 1 << 1024),
        lambda: _jump.glibc_additive(np.zeros(30, np.uint32), 1, np.zeros(31, np.uint32)),
        lambda: _jump.mt19937(np.zeros(624, np.uint32), 625, 1, np.zeros(_jump.MT_POLY_WORDS, np.uint64),
                              np.zeros(624, np.uint32)),
        lambda: _jump.mt19937(np.zeros(624, np.uint32), 0, 1, np.zeros(_jump.MT_POLY_WORDS, np.uint64),
                              np.zeros(624, np.uint32)),  # not the polynomial
        lambda: _jump.f2_jump("no-such-kind", np.zeros(4, np.uint64), 1, np.zeros(5, np.uint64), np.zeros(4, np.uint64)),
    ]
    for call in bad:
        with pytest.raises(ValueError):
            call()
