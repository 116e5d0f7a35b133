"""The nist-sp800-22 suite (suites/nist-sp800-22.toml) as a user runs it:
every test on the first 1,000,000 bits of e gives Appendix B's value, K
sequences get STS's second-level analysis, two sequences of xorshift32 fail
it, and its 188 p-values are uniform over 200 PCG64 sequences.
"""

from __future__ import annotations

import pytest


# Appendix B of SP 800-22 Rev 1a; the suite uses exact class probabilities,
# so longest_run, overlapping_template and linear_complexity (whose printed
# values come from the standard's rounded tables) are pinned in tests/battery/.
APPENDIX_B = {
    "frequency": 0.953749,
    "block_frequency": 0.211072,
    "runs": 0.561917,
    "matrix_rank": 0.306156,
    "dft": 0.847187,
    "non_overlapping_template[000000001]": 0.078790,
    "universal": 0.282568,
    "serial[1]": 0.766182,
    "serial[2]": 0.462921,
    "approximate_entropy": 0.700073,
    "cumulative_sums[forward]": 0.669887,  # exact 0.6698865: the standard rounds its last digit up
    "random_excursions[x=+1]": 0.786868,
    "random_excursions_variant[x=-1]": 0.826009,
}


@pytest.fixture(scope="module")
def e_file(tmp_path_factory, e):
    path = tmp_path_factory.mktemp("nist") / "e.bin"
    path.write_bytes(e.tobytes())
    return path


def test_nist_suite_reproduces_appendix_b_on_e(cli, e_file):
    result = cli("test", str(e_file), "--suite", "nist-sp800-22", "--json", "-")
    assert result.returncode == 0, result.stderr
    tests = {t["name"]: t for t in result.json()["tests"]}
    assert len(tests) == 188  # every p-value of the standard, by name
    for name, printed in APPENDIX_B.items():
        assert tests[name]["p_value"] == pytest.approx(printed, abs=1e-6), name


def test_nist_suite_second_level_on_a_good_generator(cli):
    result = cli("test", "pcg64", "--seed", "3", "--suite", "nist-sp800-22", "--sequences", "60", "--json", "-")
    doc = result.json()
    assert result.returncode == 0, result.stdout
    assert doc["bytes_tested"] == 60 * 125_000
    freq = next(t for t in doc["tests"] if t["name"] == "frequency")
    assert freq["details"]["sequences"] == 60
    assert "uniformity_chi2" in freq["details"]  # P-value_T from 60 >= 55 sequences
    assert doc["verdict"] != "fail"


def test_nist_suite_catches_xorshift32_with_two_sequences(cli):
    # two sequences: the proportion alone cannot fail (both failing at 0.01
    # happens 1 in 10,000), but the adjusted smallest p-value does
    result = cli("test", "xorshift32", "--seed", "1", "--suite", "nist-sp800-22", "--sequences", "2", "--json", "-")
    failed = {t["name"] for t in result.json()["tests"] if t["verdict"] == "fail"}
    assert result.returncode == 1
    assert "matrix_rank" in failed


@pytest.mark.slow
def test_nist_pvalues_are_uniform_on_pcg64():
    """Every p-value the suite prints, over 200 PCG64 sequences of 10^6 bits,
    passes a KS check (Bonferroni over the 188 names at 1e-3 overall)."""
    from scipy import stats

    from randqa.engine import run
    from randqa.sources import open_backend
    from randqa.battery.suites import load_suite

    suite = load_suite("nist-sp800-22")
    by_name: dict[str, list[float]] = {}
    for seed in range(200):
        with open_backend("pcg64", 1000 + seed) as source:
            result = run(source, suite, limit=125_000)
        for r in result.results:
            if r.verdict != "insufficient" and r.details.get("precondition_passed", True):
                by_name.setdefault(r.name, []).append(r.pvalue)
    assert len(by_name) == 188
    worst = min((stats.kstest(p, "uniform").pvalue, name) for name, p in by_name.items() if len(p) >= 100)
    assert worst[0] > 1e-3 / 188, worst
