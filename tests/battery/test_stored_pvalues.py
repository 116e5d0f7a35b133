"""Every shipped suite's statistics and p-values on one fixed input, against
values stored from an earlier version of the code.

Restructuring how tests get their counts (shared statistics, new kernels,
another engine) must not change any result whose statistic is unchanged.
This runs each suite through the CLI, as a user would, on 64 MiB + 1001 bytes
of PCG64 output (seed 12345, ``random_raw`` words written little-endian; the
odd length leaves partial blocks and words at the end) and compares each
result's statistic, p-value, lower-tail p-value and verdict (and, for
NIST STS second-level results, the smallest per-sequence p-value) with
``tests/data/stored_pvalues.json``.

Every statistic is a fixed float formula of integer counts, so computing the
counts in another way or order leaves it unchanged, but the last digits
depend on the CPU as well as on libm and numpy: numpy picks SIMD code (AVX2,
AVX-512 or neither) at run time, and a vectorised sum or log rounds
differently.  Floats are compared with a relative tolerance of 1e-9, below
what any change of the counts does to a result (one bit flipped moves each
of the six statistics checked below, or its p-value, by more than that on
this input: ``test_the_tolerance_sees_one_bit_changed``); integers,
verdicts and missing values are compared exactly.

When a statistic is changed on purpose (a re-tuned suite entry, a
corrected formula), the stored values are rewritten with ``PYTHONPATH=tests python
tests/battery/test_stored_pvalues.py --store`` (the helpers of tests/ on the
path, as pytest puts them) from a version of the code whose results are known to be right.

The stored values are not only the code's own output: ``test_stored_values_
agree_with_a_numpy_pair_table`` recomputes the statistics of frequency, runs,
chi_square, serial_correlation, digraph and overlapping_serial (m = 8) from
a table of overlapping byte pairs built with numpy, with the formulas of
their sources (NIST SP 800-22 2.1, 2.3, 2.11, frequency's and runs' p-values
the exact binomial tails of their counts; ENT; Wald and Wolfowitz 1943;
Good 1953).
"""

from __future__ import annotations

import hashlib
import json
import math
import platform
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy import special, stats

import pair_table_reference as ref

DATA = Path(__file__).resolve().parents[1] / "data" / "stored_pvalues.json"
SEED = 12345
INPUT_BYTES = (64 << 20) + 1001

#: one CLI run per shipped suite: NIST STS on 3 sequences of 10^6 bits (the
#: first 375,000 bytes); rc4's per-position digraph has its statistic from
#: 16 MiB + 1 byte (a verdict from 32 MiB)
RUNS: dict[str, list[str]] = {
    "quick": ["--suite", "quick"],
    "standard": ["--suite", "standard"],
    "deep": ["--suite", "deep"],
    "nist-sp800-22": ["--suite", "nist-sp800-22", "--sequences", "3"],
    "rc4": ["--suite", "rc4", "-n", "17M"],
    "frontier": ["--suite", "frontier"],
    # its statement (4.7 GiB, with a save's copy of its set) is over the default --max-memory of a small machine
    "collisions64": ["--suite", "collisions64", "--max-memory", "6G"],
}

COMPARED = ("statistic", "p_value", "p_value_low", "verdict")
#: rounding of libm, numpy and the SIMD path numpy picks on this CPU
RTOL = 1e-9


def fixed_input() -> bytes:
    words = np.random.PCG64(SEED).random_raw(-(-INPUT_BYTES // 8))
    return words.astype("<u8").tobytes()[:INPUT_BYTES]


def this_platform() -> dict[str, str]:
    """Where the values were stored, for a reader: comparisons do not depend on it."""
    return {"machine": platform.machine(), "libc": " ".join(platform.libc_ver()), "numpy": np.__version__}


def run_suite(path: Path, args: list[str]) -> dict:
    proc = subprocess.run([sys.executable, "-m", "randqa", "test", str(path), *args, "--json", "-"],
                          capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout)


def summary(document: dict) -> dict:
    """The compared fields of each result of one run, by result name."""
    results = {}
    for entry in document["tests"]:
        kept = {key: entry.get(key) for key in COMPARED}
        if "min_p" in entry.get("details", {}):
            kept["min_p"] = entry["details"]["min_p"]
        name, repeat = entry["name"], 1
        while name in results:  # entries that give results of one name: "name #2", as randqa.Result names them
            repeat += 1
            name = f"{entry['name']} #{repeat}"
        results[name] = kept
    return {"bytes_tested": document["bytes_tested"], "results": results}


@pytest.fixture(scope="module")
def input_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("stored") / "pcg64-12345.bin"
    path.write_bytes(fixed_input())
    return path


@pytest.fixture(scope="module")
def stored() -> dict:
    return json.loads(DATA.read_text())


def test_input_is_the_stored_one(input_file, stored):
    assert stored["input"]["bytes"] == INPUT_BYTES
    assert hashlib.sha256(input_file.read_bytes()).hexdigest() == stored["input"]["sha256"]
    assert stored["runs"].keys() == RUNS.keys()


def same(new: object, old: object) -> bool:
    if new == old:
        return True
    if not (isinstance(new, float) and isinstance(old, float)):
        return False
    return math.isclose(new, old, rel_tol=RTOL, abs_tol=0.0)


@pytest.mark.parametrize("suite", RUNS)
def test_results_equal_the_stored_ones(suite, input_file, stored):
    expected = stored["runs"][suite]
    assert expected["args"] == RUNS[suite], "the stored run used other arguments: store the values again"
    got = summary(run_suite(input_file, RUNS[suite]))
    assert got["bytes_tested"] == expected["bytes_tested"]
    differences = []
    for name, old in expected["results"].items():
        new = got["results"].get(name)
        if new is None:
            differences.append(f"{name}: missing")
            continue
        for key, old_value in old.items():
            if not same(new.get(key), old_value):
                differences.append(f"{name} {key}: {new.get(key)!r}, stored {old_value!r}")
    unstored = set(got["results"]) - set(expected["results"])
    assert not differences, "\n".join(differences)
    assert not unstored, f"results with no stored value: {sorted(unstored)}"


# ---- an independent check of the stored values ------------------------------

def pair_table_statistics(data: np.ndarray) -> dict[str, tuple[float, float]]:
    """(statistic, p-value) of six tests, from the pair table and the first and last byte."""
    n = len(data)
    first, last = int(data[0]), int(data[-1])
    pairs = ref.pair_table(data)
    circular = ref.circular(pairs, first, last)
    hist = ref.byte_histogram(pairs, last)
    ones, transitions = ref.ones_and_transitions(pairs, last)
    out = {}

    bits = 8 * n  # NIST SP 800-22 2.1's statistic, the exact two-sided binomial tail
    s_obs = abs(2 * ones - bits) / math.sqrt(bits)
    high = max(ones, bits - ones)
    out["frequency"] = (s_obs, min(1.0, 2 * stats.binom.sf(high - 1, bits, 0.5)))

    v_n = transitions + 1  # NIST SP 800-22 2.3's statistic; the bit changes are Bin(bits - 1, 1/2)
    high = max(transitions, bits - 1 - transitions)
    out["runs"] = (float(v_n), min(1.0, 2 * stats.binom.sf(high - 1, bits - 1, 0.5)))

    expected = n / 256  # ENT's chi-square
    x2 = float(np.sum((hist - expected) ** 2 / expected))
    out["chi_square"] = (x2, stats.chi2.sf(x2, 255))

    # ENT's circular lag-1 coefficient; Wald and Wolfowitz's moments of R = T1
    s1, s2, s3, s4 = (sum(int(c) * v**r for v, c in enumerate(hist)) for r in (1, 2, 3, 4))
    t1 = ref.lag1_products(circular)
    r = Fraction(n * t1 - s1 * s1, n * s2 - s1 * s1)
    mean = Fraction(s1 * s1 - s2, n - 1)
    var = (Fraction(s2 * s2 - s4, n - 1)
           + Fraction(s1**4 - 4 * s1 * s1 * s2 + 4 * s1 * s3 + s2 * s2 - 2 * s4, (n - 1) * (n - 2)) - mean**2)
    out["serial_correlation"] = (float(r), special.erfc(abs(float(t1 - mean) / math.sqrt(var)) / math.sqrt(2)))

    # Good's interaction sum over the (non-circular) pair table
    m = n - 1
    cell, margin = m / 65536, m / 256
    x2_pairs = float(np.sum((pairs - cell) ** 2)) / cell
    x2_rows = float(np.sum((pairs.sum(axis=1) - margin) ** 2)) / margin
    x2_cols = float(np.sum((pairs.sum(axis=0) - margin) ** 2)) / margin
    d = x2_pairs - x2_rows - x2_cols
    out["digraph"] = (d, stats.chi2.sf(d, 255 * 255))

    # NIST 2.11 with m = 8, from the circular 8-, 7- and 6-bit pattern counts
    psi = {}
    for width in (8, 7, 6):
        counts = ref.pattern_counts(circular, width)
        psi[width] = float(np.sum((counts - bits / 2**width) ** 2)) / (bits / 2**width)
    nabla, nabla2 = psi[8] - psi[7], psi[8] - 2 * psi[7] + psi[6]
    out["overlapping_serial[m=8,nabla]"] = (nabla, stats.chi2.sf(nabla, 128))
    out["overlapping_serial[m=8,nabla2]"] = (nabla2, stats.chi2.sf(nabla2, 64))
    return out


def test_stored_values_agree_with_a_numpy_pair_table(stored):
    data = np.frombuffer(fixed_input(), dtype=np.uint8)
    results = stored["runs"]["standard"]["results"]
    assert stored["runs"]["standard"]["bytes_tested"] == len(data)
    for name, (statistic, pvalue) in pair_table_statistics(data).items():
        assert results[name]["statistic"] == pytest.approx(statistic, rel=1e-9), name
        assert results[name]["p_value"] == pytest.approx(pvalue, rel=1e-9), name
        assert stored["runs"]["quick"]["results"].get(name, results[name]) == results[name]


def test_the_tolerance_sees_one_bit_changed():
    # the smallest change of the counts: one bit of the input flipped, which
    # moves one count of every table by one; the lowest bit of a byte whose
    # neighbours (its bit 1, the next byte's bit 7) are equal, so that the
    # runs count moves too (its exact tail does not look at the ones)
    data = np.frombuffer(fixed_input(), dtype=np.uint8)
    changed = data.copy()
    at = len(changed) // 2
    while (changed[at] >> 1 & 1) != changed[at + 1] >> 7:
        at += 1
    changed[at] ^= 1
    before, after = pair_table_statistics(data), pair_table_statistics(changed)
    for name, old in before.items():
        assert not all(same(new, value) for new, value in zip(after[name], old)), f"{name}: {after[name]} passes for {old}"


def store() -> None:
    """Write tests/data/stored_pvalues.json from the code as it is now."""
    import tempfile

    data = fixed_input()
    document = {
        "input": {"what": f"numpy PCG64({SEED}).random_raw() words, little-endian, first {INPUT_BYTES} bytes",
                  "bytes": INPUT_BYTES, "sha256": hashlib.sha256(data).hexdigest()},
        "platform": this_platform(),
        "runs": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "input.bin"
        path.write_bytes(data)
        for suite, args in RUNS.items():
            document["runs"][suite] = {"args": args, **summary(run_suite(path, args))}
    DATA.parent.mkdir(exist_ok=True)
    DATA.write_text(json.dumps(document, indent=1) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] != ["--store"]:
        sys.exit(f"usage: PYTHONPATH=tests python {sys.argv[0]} --store   (rewrites {DATA})")
    store()
