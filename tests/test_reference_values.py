"""p-values and statistics against published reference values:
NIST SP 800-22 Rev 1a worked examples (through the CLI, --format bits) and
ENT's figures on the same file."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

from nist_reference import pi_bits


EPSILON_100 = pi_bits(100)


def test_pi_bits_match_the_standard_text():
    # SP 800-22 2.1.8 prints this epsilon; checking its head guards pi_bits itself
    assert EPSILON_100.startswith("1100100100001111110110101010001000100001011010001100001000110100")
    assert len(EPSILON_100) == 100


def by_name(result, name):
    return next(t for t in result.json()["tests"] if t["name"] == name)


@pytest.mark.parametrize("test_name, expected", [("frequency", 0.109599), ("runs", 0.500798)])
def test_nist_100_bit_examples(cli, test_name, expected):
    result = cli("test", "-", "--format", "bits", "--tests", test_name, "--json", "-", input=EPSILON_100.encode())
    assert result.returncode == 0, result.stderr
    entry = by_name(result, test_name)
    assert f"{entry['p_value']:.6f}" == f"{expected:.6f}"
    assert entry["verdict"] == "pass"
    assert result.json()["bits_tested"] == 100


def test_nist_10_bit_frequency_example_is_insufficient(cli):
    # SP 800-22 2.1.4: epsilon = 1011010101 gives 0.527089; the standard asks
    # for n >= 100, so randqa shows the p-value but gives no verdict
    result = cli("test", "-", "--format", "bits", "--tests", "frequency", "--json", "-", input=b"1011010101\n")
    assert result.returncode == 0, result.stderr
    entry = by_name(result, "frequency")
    assert f"{entry['p_value']:.6f}" == "0.527089"
    assert entry["verdict"] == "insufficient"
    assert "100 bits" in entry["needs"]


def test_bits_not_a_multiple_of_eight_count_every_bit(cli):
    # 103 bits: the last 7 are the tail that does not fill a byte
    bits = EPSILON_100 + "101"
    result = cli("test", "-", "--format", "bits", "--tests", "frequency", "--json", "-", input=bits.encode())
    ones = bits.count("1")
    s_obs = abs(2 * ones - 103) / np.sqrt(103)
    assert by_name(result, "frequency")["statistic"] == pytest.approx(s_obs, rel=1e-12)
    assert result.json()["bits_tested"] == 103


def test_bits_format_rejects_other_characters(cli):
    result = cli("test", "-", "--format", "bits", input=b"0101x0101")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "'x'" in result.stderr


ent = shutil.which("ent")


@pytest.mark.skipif(ent is None, reason="ENT (Debian package 'ent') is not installed")
@pytest.mark.parametrize("kind", ["urandom", "biased"])
def test_chi_square_and_serial_correlation_equal_ent(cli, tmp_path, kind):
    rng = np.random.default_rng(7)
    if kind == "urandom":
        data = rng.bytes(1 << 20)
    else:  # skewed bytes with correlation, so the comparison is not only near 0
        walk = np.cumsum(rng.integers(-3, 4, size=300_000)) % 256
        data = walk.astype(np.uint8).tobytes()
    path = tmp_path / "data.bin"
    path.write_bytes(data)
    ent_out = subprocess.run([ent, str(path)], capture_output=True, text=True, check=True).stdout
    ent_chi = re.search(r"Chi square distribution for \d+ samples is ([\d.]+)", ent_out).group(1)
    ent_scc = re.search(r"Serial correlation coefficient is (-?[\d.]+)", ent_out).group(1)

    result = cli("test", str(path), "--tests", "chi_square,serial_correlation", "--json", "-")
    chi = by_name(result, "chi_square")["statistic"]
    scc = by_name(result, "serial_correlation")["statistic"]
    # ENT prints the statistic with 2 decimals and the coefficient with 6
    assert f"{chi:.2f}" == ent_chi
    assert f"{scc:.6f}" == ent_scc
