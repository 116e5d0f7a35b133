"""K streams of one generator, seeded by a scheme and interleaved
(randqa/sources/multistream.py).

Each scheme is pinned to its definition, computed apart from randqa's code
for it: ``consecutive``, ``spaced:D`` and ``bitflip`` against the backend
opened with each seed (seed + i, seed + i D, seed XOR Gray(i), as PractRand's
``-ttseed64 -walk_greycode`` walks seeds); ``spawn`` against numpy's
``PCG64(SeedSequence(seed).spawn(K)[i])``; ``jump`` against numpy's
``PCG64.jumped(i)`` and, for MINSTD, which has no jump of its own, against
x0 * 16807^(i 2^64 + 1) mod (2^31 - 1) computed with Python's pow;
``module:attr`` against the function's own BitGenerators.  The interleaved
stream opened at any offset (what a worker given a segment reads) equals
the same bytes of the stream read from its start; schemes a generator
cannot do are refused with one line.
"""

from __future__ import annotations

import numpy as np
import pytest

from reference_generators import backend_bytes, pcg_pair

from randqa.errors import UsageError
from randqa.sources.multistream import StreamLayout, gray, open_streams
from randqa.sources.segments import NotSplittable, open_at


def read(source, n: int) -> np.ndarray:
    out = np.empty(n, dtype=np.uint8)
    assert source.readinto(memoryview(out)) == n
    return out


def interleaved(parts: list[np.ndarray], block: int) -> np.ndarray:
    rounds = min(len(p) for p in parts) // block
    return np.stack([p[:rounds * block].reshape(rounds, block) for p in parts], axis=1).reshape(-1)


def raw_bytes(bitgen, words: int) -> np.ndarray:
    return bitgen.random_raw(words).astype("<u8").view(np.uint8)


@pytest.mark.parametrize("scheme, seeds", [
    ("consecutive", [70, 71, 72]),
    ("spaced:1000", [70, 1070, 2070]),
    ("bitflip", [70, 71, 69]),
])
def test_seed_schemes_seed_the_backend_through_its_own_routine(scheme, seeds):
    with open_streams("mt19937", 70, StreamLayout(3, scheme)) as source:
        assert source.interleave == 4 and [m["seed"] for m in source.describe()["streams"]["members"]] == seeds
        got = read(source, 3 * 4096)
    assert np.array_equal(got, interleaved([backend_bytes("mt19937", s, 4096) for s in seeds], 4))
    assert [bin(gray(i) ^ gray(i + 1)).count("1") for i in range(255)] == [1] * 255  # one bit apart


def test_spawn_and_jump_are_numpys():
    with open_streams("pcg64", 9, StreamLayout(3, "spawn", interleave=16)) as source:
        got = read(source, 3 * 4096)
    children = np.random.SeedSequence(9).spawn(3)
    assert np.array_equal(got, interleaved([raw_bytes(np.random.PCG64(c), 512) for c in children], 16))
    with open_streams("pcg64", 9, StreamLayout(2, "jump")) as source:
        got = read(source, 2 * 4096)
    assert np.array_equal(got, interleaved([raw_bytes(np.random.PCG64(9).jumped(i), 512) for i in range(2)], 8))


def test_jump_without_a_jump_of_its_own_is_randqas_by_2_64_outputs():
    with open_streams("minstd", 5, StreamLayout(2, "jump")) as source:
        assert source.describe()["streams"]["members"][1]["jump"].startswith("2^64 outputs")
        words = read(source, 16).view("<u4")
    modulus = (1 << 31) - 1
    assert words[0] == 5 * 16807 % modulus
    assert words[1] == 5 * pow(16807, (1 << 64) + 1, modulus) % modulus


def test_a_function_decides_the_streams():
    with open_streams("pcg64", 4, StreamLayout(2, "reference_generators:pcg64_sharing_63_bits")) as source:
        assert source.name == "pcg64[2 streams, reference_generators:pcg64_sharing_63_bits]"
        got = read(source, 2 * 4096)
    assert np.array_equal(got, interleaved([raw_bytes(b, 512) for b in pcg_pair(np.random.PCG64, 4, 63)], 8))


@pytest.mark.parametrize("spec, scheme, split", [
    ("mt19937", "consecutive", "jump"),  # randqa's MT19937 jump, for every stream
    ("pcg64", "spawn", "jump"),
    ("glibc-rand-byte", "bitflip", "jump"),  # one byte per word: the interleave is 1
    ("java-random", "consecutive", "sequential"),  # no jump: read in order
])
def test_a_segment_opened_at_any_offset_is_the_same_bytes(spec, scheme, split):
    layout = StreamLayout(3, scheme)
    with open_streams(spec, 11, layout) as source:
        assert source.split_method == split
        whole = read(source, 1 << 14)
        resolved = source.layout.to_json()
    for offset in (1, 4097, 12345):
        if split == "jump":
            with open_at(spec, 11, offset, streams=resolved) as part:
                assert np.array_equal(read(part, 2000), whole[offset:offset + 2000])
        else:
            with pytest.raises(NotSplittable):
                open_at(spec, 11, offset, streams=resolved)


@pytest.mark.parametrize("spec, scheme, problem", [
    ("urandom", "consecutive", "urandom draws from the system and cannot be seeded"),
    ("java-random", "jump", "java-random cannot jump"),
    ("mt19937", "spawn", "mt19937 is not seeded through numpy's SeedSequence"),
    ("mt19937", "spaced:3000000000", "stream 2's seed 6000000001 does not fit mt19937"),
    ("pcg64", "spaced:0", "spaced:D needs a whole number D >= 1"),
    ("pcg64", "seed+1", "use one of consecutive, spaced:D, bitflip, jump, spawn, module:attr"),
    ("pcg64", "reference_generators:pcg_pair", "raised TypeError"),  # f(seed, k) with the wrong arguments
    ("pcg64", "builtins:divmod", r"must return a list of 3 BitGenerators, not a tuple of 2"),
    ("nosuchgen", "consecutive", "unknown source 'nosuchgen'"),
    ("-", "consecutive", "needs a generator"),
])
def test_what_cannot_be_done_is_refused(spec, scheme, problem):
    with pytest.raises(UsageError, match=problem):
        open_streams(spec, 1, StreamLayout(3, scheme))


@pytest.mark.parametrize("spec, can_spawn", [("arc4", False), ("java-random", False), ("sfc64", True)])
def test_the_jump_refusal_suggests_only_schemes_that_take_the_generator(spec, can_spawn):
    # before: it suggested spawn to arc4 and java-random, which spawn refuses too
    with pytest.raises(UsageError, match=f"{spec} cannot jump") as refused:
        open_streams(spec, 1, StreamLayout(2, "jump"))
    suggested = str(refused.value).rsplit("use ", 1)[1]
    assert ("spawn" in suggested) == can_spawn
    for scheme in ("consecutive", "spaced:3", "bitflip", "spawn"):
        if scheme.split(":")[0] in suggested:
            with open_streams(spec, 1, StreamLayout(2, scheme)):
                pass


def test_a_failure_of_the_users_streams_mid_run_names_their_code(tmp_path, monkeypatch):
    # before: "backend pcg64: random_raw(...) raised", pcg64 being only the run's label
    (tmp_path / "late_failure.py").write_text(
        "import numpy as np\n"
        "class Failing:\n"
        "    def __init__(self, seed):\n"
        "        self.bitgen, self.calls = np.random.PCG64(seed), 0\n"
        "    def random_raw(self, n):\n"
        "        self.calls += 1\n"
        "        if self.calls > 1:\n"
        "            raise RuntimeError('late')\n"
        "        return self.bitgen.random_raw(n)\n"
        "def make(seed, k):\n"
        "    return [Failing(seed + i) for i in range(k)]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from randqa.errors import InputError

    with open_streams("pcg64", 1, StreamLayout(2, "late_failure:make")) as source:
        read(source, 1 << 16)  # each stream's first random_raw call
        with pytest.raises(InputError) as failed:
            read(source, 1 << 20)
    assert "late_failure:make stream 0: random_raw" in str(failed.value)
    assert "pcg64" not in str(failed.value)
