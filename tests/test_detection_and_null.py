"""The quick suite catches a known-bad generator, passes good ones, and its
p-values are uniform under the null (so it fails at the advertised rate)."""

from __future__ import annotations

import os

import pytest
from scipy import stats

from conftest import msvc_rand_low_bytes, pcg64_bytes
from randqa.engine import run
from randqa.sources.base import Source
from randqa.battery.suites import load_suite


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


def test_msvc_rand_low_bytes_fail_the_quick_suite(cli, tmp_path):
    path = tmp_path / "msvc.bin"
    path.write_bytes(msvc_rand_low_bytes(64 << 20))
    result = cli("test", str(path), "--suite", "quick", "--json", "-")
    assert result.returncode == 1, result.stderr
    failed = {t["name"] for t in result.json()["tests"] if t["verdict"] == "fail"}
    # its 4-byte words cover only 2^24 of 2^32 cells, and its low 24 state bits repeat every 2^24 bytes
    assert "birthday_spacings" in failed


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
