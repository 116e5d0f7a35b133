"""Per-sequence testing (PerSequence) with NIST STS's second-level analysis
(SP 800-22 Rev 1a 4.2: the proportion of sequences passing at 0.01 within
p +- 3 sqrt(p (1 - p) / K), the uniformity of their p-values over 10 bins,
checked from 55 sequences on), through `randqa test --sequences`.
"""

from __future__ import annotations

import numpy as np
import pytest

from randqa.battery._sequences import PValueSummary, second_level
from reference_generators import pcg64_bytes


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


def write_suite(tmp_path, body: str):
    path = tmp_path / "s.toml"
    path.write_text(body)
    return str(path)


def test_sequences_of_bit_text_count_bits(cli, tmp_path):
    suite = write_suite(tmp_path, "[[tests]]\ntest = 'frequency'\nsequence_bits = 8000\n")
    bits = np.unpackbits(np.frombuffer(pcg64_bytes(4000, 1), dtype=np.uint8))
    text = "".join(map(str, bits.tolist())).encode()
    doc = cli("test", "-", "--format", "bits", "--suite", suite, "--sequences", "3", "--json", "-", input=text).json()
    assert doc["bits_tested"] == 24000
    assert doc["tests"][0]["details"]["sequences"] == 3


def test_short_sequences_do_not_fail_a_good_generator_on_uniformity(cli, tmp_path):
    # 800-bit sequences give frequency p-values on a coarse lattice: no uniformity check then
    suite = write_suite(tmp_path, "[[tests]]\ntest = 'frequency'\nsequence_bits = 800\n")
    result = cli("test", "pcg64", "--seed", "1", "-n", "1M", "--suite", suite, "--json", "-")
    assert result.returncode == 0, result.stdout
    assert "uniformity_chi2" not in result.json()["tests"][0]["details"]
