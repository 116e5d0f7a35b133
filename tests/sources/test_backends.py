"""Named generator backends (sources/backends.py): every required one is
listed with one line, seeded reproducibly (an unseeded one records the seed
it drew), independent of read sizes, refused outside its seeding routine's
range, extended by entry-point plugins, and reached by open_source.
"""

from __future__ import annotations

import ctypes
import ctypes.util

import pytest

from conftest import run_cli_inprocess
from randqa.errors import UsageError
from randqa.sources import open_source
from randqa.sources.backends import backend_names, describe_backends, open_backend
from randqa.sources.base import read_full
from reference_generators import backend_stream


HAVE_LIBCRYPTO = ctypes.util.find_library("crypto") is not None


REQUIRED_BACKENDS = [
    "urandom", "getrandom", "openssl", "glibc-rand", "glibc-rand-byte", "glibc-rand-short", "msvc-rand-byte",
    "msvc-rand-short", "dnet-arc4", "arc4", "arc4-drop", "lfsr113", "siprand", "randu", "minstd", "ansi-c-rand",
    "mt19937", "xorshift32", "splitmix64", "python-random", "pcg64", "pcg64dxsm", "philox", "sfc64", "chacha",
    "aes-ctr", "xoshiro256",
]


def test_every_required_backend_is_listed_with_one_line(capsys):
    described = dict(describe_backends())
    assert set(REQUIRED_BACKENDS) <= set(backend_names())
    assert all(text and "\n" not in text for text in described.values())
    code, out, _ = run_cli_inprocess(capsys, "list")
    assert code == 0
    listed = {line.split()[0] for line in out.splitlines() if line and not line.startswith("#")}
    assert set(backend_names()) == listed


@pytest.mark.parametrize("name", [n for n in REQUIRED_BACKENDS if n not in ("urandom", "getrandom", "openssl")]
                         + ["mt19937-numpy", "pcg32", "arc4-drop:7"])
def test_stream_does_not_depend_on_read_sizes(name):
    whole = backend_stream(name, 99, 10007)
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
        assert backend_stream(name, seed, 256) == bytes(first)
        assert backend_stream(name, seed + 1, 256) != bytes(first)


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
        assert backend_stream("my-sfc", 3, 1024) == backend_stream("sfc64", 3, 1024)
    finally:
        backends._entry_points.cache_clear()


def test_open_source_reaches_backends():
    with open_source("xorshift32", seed=2463534242) as source:
        buffer = bytearray(4)
        source.readinto(memoryview(buffer))
    assert int.from_bytes(buffer, "little") == 723471715


def test_getrandom_where_the_system_has_none_is_one_line(capsys, monkeypatch):
    # as on macOS: os has no getrandom
    import os

    monkeypatch.delattr(os, "getrandom", raising=False)
    code, _, err = run_cli_inprocess(capsys, "test", "getrandom", "-n", "1M")
    assert code == 2 and err.count("\n") == 1 and "no getrandom(2)" in err, err
