"""The quick suite (suites/quick.toml) catches known-bad generators (MSVC
rand()'s low byte on 64 MiB, constant and counter streams), passes good ones
(/dev/urandom, ChaCha), and its p-values are uniform under the null: a KS
check over 200 PCG64 streams of 4 MiB, with mid-p values for the discrete
birthday collisions.
"""

from __future__ import annotations

import json
import os

import pytest
from scipy import stats

from conftest import run_cli_inprocess
from randqa.battery.suites import load_suite
from randqa.engine import run
from randqa.sources.base import Source
from reference_generators import pcg64_bytes


class BytesSource(Source):
    """In-memory bytes as a Source, so statistical checks skip process start-up."""

    def __init__(self, data: bytes) -> None:
        self.name = "memory"
        self._data = memoryview(data)
        self._pos = 0

    def readinto(self, buffer: memoryview) -> int:
        n = min(len(buffer), len(self._data) - self._pos)
        buffer[:n] = self._data[self._pos : self._pos + n]
        self._pos += n
        return n


def run_quick(data: bytes):
    suite = load_suite("quick")
    return run(BytesSource(data), suite)


def test_quick_suite_catches_msvc_rand_byte_and_passes_chacha(capsys):
    # msvc-rand-byte is MSVC rand()'s low bytes (pinned to the reference in
    # tests/sources/test_compiled.py): its 4-byte words cover only 2^24 of
    # 2^32 cells, and its low 24 state bits repeat every 2^24 bytes
    code, out, _ = run_cli_inprocess(capsys, "test", "msvc-rand-byte", "-n", "64M", "--seed", "1", "--suite", "quick",
                                     "--json", "-")
    assert code == 1
    failed = {t["name"] for t in json.loads(out)["tests"] if t["verdict"] == "fail"}
    assert "birthday_spacings" in failed
    code, out, _ = run_cli_inprocess(capsys, "test", "chacha", "-n", "64M", "--seed", "1", "--suite", "quick")
    assert code == 0 and "PASS" in out


def test_urandom_passes_the_quick_suite(cli, tmp_path):
    path = tmp_path / "urandom.bin"
    path.write_bytes(os.urandom(64 << 20))
    result = cli("test", str(path), "--suite", "quick", "--json", "-")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.json()["verdict"] in ("pass", "suspicious")


def test_constant_and_counter_streams_fail():
    assert run_quick(bytes(1 << 20)).verdict == "fail"
    assert run_quick(bytes(range(256)) * 4096).verdict == "fail"


@pytest.mark.slow
def test_pvalues_are_uniform_under_the_null():
    """Each test's p-values over 200 independent PCG64 streams pass a KS check.

    Discrete statistics (runs, birthday collisions) get mid-p values so the
    check does not reject a correct test for the lattice of its p-values."""
    streams = 200
    by_test: dict[str, list[float]] = {}
    for seed in range(streams):
        for r in run_quick(pcg64_bytes(4 << 20, seed)).results:
            p = r.pvalue
            if r.pvalue_low is not None and r.name == "birthday_spacings":
                # mid-p: P(X > x) + P(X = x)/2, uniform for a discrete X
                p_eq = r.pvalue + r.pvalue_low - 1
                p = r.pvalue - p_eq / 2
            by_test.setdefault(r.name, []).append(p)
    assert set(by_test) == {"frequency", "runs", "chi_square", "serial_correlation", "birthday_spacings"}
    for name, pvalues in by_test.items():
        ks = stats.kstest(pvalues, "uniform")
        assert ks.pvalue > 1e-3, (name, ks)
