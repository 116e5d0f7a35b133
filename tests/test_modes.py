"""Progressive testing to first failure, and per-sequence testing with
NIST STS's second-level analysis."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import msvc_rand_low_bytes, pcg64_bytes
from randqa.battery._sequences import PValueSummary, second_level


@pytest.fixture(scope="module")
def msvc_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("streams") / "msvc.bin"
    path.write_bytes(msvc_rand_low_bytes(1 << 20))
    return path


def test_progressive_stops_at_first_failure(cli, msvc_file):
    result = cli("test", str(msvc_file), "--progressive", "--min", "1K", "--max", "1M", "--json", "-")
    doc = result.json()
    assert result.returncode == 1
    lengths = [entry["bytes"] for entry in doc["lengths"]]
    assert lengths == [1024 * 2**i for i in range(len(lengths))]
    assert doc["first_failure_bytes"] == lengths[-1] <= 64 * 1024
    assert doc["lengths"][-1]["verdict"] == "fail"
    assert all(entry["verdict"] != "fail" for entry in doc["lengths"][:-1])


def test_progressive_keep_going_reaches_max(cli, msvc_file):
    doc = cli("test", str(msvc_file), "--progressive", "--max", "1M", "--keep-going", "--json", "-").json()
    assert doc["lengths"][-1]["bytes"] == 1 << 20
    assert doc["first_failure_bytes"] < 1 << 20


def test_progressive_on_good_data_has_no_failure(cli, tmp_path):
    path = tmp_path / "good.bin"
    path.write_bytes(pcg64_bytes(1 << 20, 3))
    result = cli("test", str(path), "--progressive", "--min", "64K", "--json", "-")
    assert result.returncode == 0
    doc = result.json()
    assert doc["first_failure_bytes"] is None
    assert [e["bytes"] for e in doc["lengths"]] == [65536 * 2**i for i in range(5)]  # up to the file's 1 MiB


def test_progressive_min_above_max_is_refused(cli, msvc_file):
    result = cli("test", str(msvc_file), "--progressive", "--min", "1M", "--max", "1K")
    assert result.returncode == 2 and result.stderr.count("\n") == 1


SEQUENCE_SUITE = b"""
name = "seq"
[[tests]]
test = "frequency"
sequence_bits = 8000
[[tests]]
test = "runs"
sequence_bits = 8000
"""


def test_sequences_give_proportion_and_uniformity(cli, tmp_path):
    suite = tmp_path / "seq.toml"
    suite.write_bytes(SEQUENCE_SUITE)
    result = cli("test", "-", "--suite", str(suite), "--sequences", "100", "--json", "-", input=pcg64_bytes(100_000 + 77, 5))
    doc = result.json()
    assert result.returncode == 0, result.stderr
    assert doc["bytes_tested"] == 100_000
    freq = next(t for t in doc["tests"] if t["name"] == "frequency")
    assert freq["details"]["sequences"] == 100
    assert freq["details"]["proportion_ok"] is True
    assert sum(freq["details"]["histogram"]) == 100
    assert freq["verdict"] == "pass"


def test_sequences_catch_a_biased_stream(cli, tmp_path):
    suite = tmp_path / "seq.toml"
    suite.write_bytes(SEQUENCE_SUITE)
    # each byte has a one bit with probability ~0.53: fails most 8000-bit sequences' frequency test
    rng = np.random.default_rng(1)
    bits = (rng.random(800_000) < 0.53).astype(np.uint8)
    data = np.packbits(bits).tobytes()
    result = cli("test", "-", "--suite", str(suite), "--sequences", "100", "--json", "-", input=data)
    freq = next(t for t in result.json()["tests"] if t["name"] == "frequency")
    assert freq["verdict"] == "fail"
    assert freq["details"]["proportion_ok"] is False


def test_second_level_matches_sts_formulas():
    # 100 p-values, 10 per bin: a perfectly flat histogram, chi^2 = 0, P-value_T = 1
    pvalues = [(i + 0.5) / 100 for i in range(100)]
    r = second_level("x", PValueSummary.of(pvalues), 100)
    assert r.details["uniformity_chi2"] == 0.0
    assert r.pvalue == pytest.approx(1.0)
    assert r.details["passed"] == 99  # 0.005 < 0.01
    lo, hi = r.details["proportion_interval"]
    assert lo == pytest.approx(0.99 - 3 * np.sqrt(0.99 * 0.01 / 100))


def test_sequences_refused_for_a_suite_without_them(cli):
    result = cli("test", "-", "--sequences", "3", input=b"x" * 100)
    assert result.returncode == 2 and "sequences" in result.stderr
