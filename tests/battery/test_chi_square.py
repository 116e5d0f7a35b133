"""chi_square and serial_correlation, ENT's two statistics, equal what ENT
(Debian package 'ent') prints for the same file: on random bytes and on a
skewed, correlated walk.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest


def by_name(result, name):
    return next(t for t in result.json()["tests"] if t["name"] == name)


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
