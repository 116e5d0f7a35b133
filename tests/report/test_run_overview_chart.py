"""The per-source chart of the HTML report: a heatmap of -log10 p (tests as
rows, doubling lengths as columns) beside a QQ plot of the final p-values
against U(0,1) with the Kolmogorov-Smirnov p-value; and the compare
report's "fast and good enough?" headline per source.

Source: the KS test as scipy.stats.kstest computes it (its exact
distribution for n p-values, kstwo), PractRand-style doubling lengths.
Documents are built by hand (a 190-result run as nist-sp800-22 gives), or
come from short real runs (64 KiB, quick suite).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from scipy import stats

import randqa
from randqa._report import charts
from randqa._report.html import render_html
from randqa._report.speed_notes import headline
from randqa.run_result import RunResult


def _test(name: str, p: float | None, verdict: str = "pass") -> dict:
    return {"name": name, "statistic": None if p is None else 1.0, "p_value": p, "verdict": verdict}


def _run(tests: list[dict], lengths: list[dict] | None = None, **extra) -> dict:
    run = {"source": {"name": "g", "seed": 1}, "suite": "s", "bytes_tested": 1 << 16, "verdict": "pass",
           "thresholds": {"suspicious": 1e-3, "fail": 1e-6}, "tests": tests, **extra}
    if lengths is not None:
        run.setdefault("first_failure_bytes", None)
        run.update(progressive={"min_bytes": lengths[0]["bytes"], "max_bytes": lengths[-1]["bytes"], "keep_going": False},
                   lengths=lengths)
    return run


def test_grid_has_tests_as_rows_and_lengths_as_columns():
    lengths = [{"bytes": 1024 << i, "verdict": "pass", "tests": [_test("a", 0.5), _test("b", None), _test("a", 1e-9)]}
               for i in range(3)]
    rows, columns, grid = charts.heatmap_grid(_run(lengths[-1]["tests"], lengths))
    assert rows == ["a", "b", "a #2"] and columns == [1024, 2048, 4096]
    assert grid[0] == [0.5] * 3 and grid[1] == [None] * 3 and grid[2] == [1e-9] * 3
    plain_rows, plain_columns, _ = charts.heatmap_grid(_run([_test("x", 0.2)]))
    assert plain_rows == ["x"] and plain_columns == [1 << 16]


def test_190_results_fold_into_one_row_per_test_family():
    tests = [_test(f"template[{i:09b}]", 0.5 if i != 7 else 2e-5) for i in range(148)]
    tests += [_test(f"excursions[x={i}]", 0.3) for i in range(40)] + [_test("frequency", 0.9), _test("runs", None)]
    assert len(tests) == 190
    rows, _, grid = charts.heatmap_grid(_run(tests))
    assert rows == ["template (smallest of 148)", "excursions (smallest of 40)", "frequency", "runs"]
    assert [g[0] for g in grid] == [2e-5, 0.3, 0.9, None]  # the family's smallest p, as the verdicts judge each
    svg = charts.run_overview_svg(_run(tests), "n")
    assert "template (smallest of 148)" in svg
    assert re.findall(r"(\d+) continuous p-values", svg) == ["189"]  # every final p-value in the QQ panel


def test_uniformity_panel_states_the_ks_p_value():
    pvalues = list(np.random.default_rng(4).random(38))
    svg = charts.run_overview_svg(_run([_test(f"t{i}", p) for i, p in enumerate(pvalues)]), "u")
    ks = stats.kstest(pvalues, "uniform").pvalue
    assert f"KS p = {ks:.3g}" in svg
    skewed = [p / 50 for p in pvalues]  # all below 0.02: far from uniform
    svg = charts.run_overview_svg(_run([_test(f"t{i}", p) for i, p in enumerate(skewed)]), "u")
    assert float(re.search(r"KS p = ([0-9.e-]+)", svg).group(1)) < 1e-10
    few = charts.run_overview_svg(_run([_test("only", 0.4)]), "f")
    assert "too few continuous p-values" in few


def test_uniformity_panel_leaves_discrete_bounded_and_dependent_pvalues_out_of_ks():
    """Discrete p-values sit on or above the diagonal by construction (a
    lowest-complexity p of 2/3 at every length, say) and would pull KS down;
    a result from the same counts as another would count them twice."""
    continuous = list(np.random.default_rng(5).random(30))
    others = [dict(_test(f"d{i}", 2 / 3), p_value_kind="discrete") for i in range(20)]
    others += [dict(_test("b", 1.0), p_value_kind="bound"), dict(_test("dep", 0.001), p_value_kind="dependent")]
    run = _run([_test(f"t{i}", p) for i, p in enumerate(continuous)] + others)
    assert charts.uniformity_pvalues(run) == (sorted(continuous), sorted([2 / 3] * 20 + [1.0]))
    svg = charts.run_overview_svg(run, "k")
    assert f"KS p = {stats.kstest(continuous, 'uniform').pvalue:.3g}" in svg
    assert "30 continuous p-values" in svg and "21 hollow: discrete or bounds" in svg
    mixed = stats.kstest(continuous + [2 / 3] * 20 + [1.0, 0.001], "uniform").pvalue
    assert mixed < 0.01 < stats.kstest(continuous, "uniform").pvalue  # what the old panel would have shown


def test_chart_marks_the_levels_and_the_first_failure():
    lengths = [{"bytes": 1024 << i, "verdict": v, "tests": [_test("a", p, v)]}
               for i, (p, v) in enumerate([(0.4, "pass"), (1e-4, "suspicious"), (1e-12, "fail")])]
    svg = charts.run_overview_svg(_run(lengths[-1]["tests"], lengths, first_failure_bytes=4096), "m")
    assert "first failure at 4 KiB" in svg
    assert "suspicious" in svg and "0.001" in svg and "1e-06" in svg  # the colour scale's levels
    assert not re.search(r"<image\b|data:image", svg)  # vector only: the page embeds no picture
    assert svg == charts.run_overview_svg(_run(lengths[-1]["tests"], lengths, first_failure_bytes=4096), "m")


def test_a_run_without_tests_draws_nothing():
    assert charts.run_overview_svg(_run([]), "e") is None


def test_report_draws_one_overview_per_source():
    good = randqa.test("pcg64", "64K", seed=1, suite="quick", progressive=True, min="16K").to_json()
    plain = randqa.test("pcg64", "64K", seed=2, suite="quick").to_json()
    page = render_html([good, plain])
    assert page.count('<figure class="pvalue-history">') == 2 and page.count("KS p =") == 2
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))


def _timed(name: str, speed: float | None, failed_at: int | None, tested: int = 1 << 30, progressive: bool = True,
           verdict: str | None = None) -> dict:
    verdict = verdict or ("fail" if failed_at else "pass")
    run = {"source": {"name": name, "seed": 1}, "bytes_tested": tested, "speed_mb_s": speed, "verdict": verdict,
           "tests": [{"name": "t", "statistic": 1.0, "p_value": 1e-30 if verdict == "fail" else 0.5, "verdict": verdict}]}
    if progressive:
        run.update(progressive={"min_bytes": 1 << 10, "max_bytes": tested, "keep_going": False}, lengths=[],
                   first_failure_bytes=failed_at)
    return run


def test_headlines_answer_fast_and_good_enough():
    runs = [RunResult.from_json(run) for run in [
        _timed("fast", 1000.0, None), _timed("slow", 40.0, None), _timed("weak", 500.0, 1024),
        _timed("file.bin", None, 1 << 16), _timed("plain", 250.0, 4096, tested=4096, progressive=False),
        _timed("doubtful", 100.0, None, verdict="suspicious"), _timed("tiny", None, None, 16, verdict="insufficient")]]
    lines = [headline(run, runs) for run in runs]
    assert lines == [
        "fast: the fastest here (1,000.0 MB/s); good enough: no failure up to 1 GiB.",
        "slow: 25x slower than fast (40.0 MB/s); good enough: no failure up to 1 GiB.",
        "weak: 2.0x slower than fast (500.0 MB/s); not good enough: first fails at 1 KiB.",
        "file.bin: no speed measured (not a generator); not good enough: first fails at 64 KiB.",
        "plain: 4.0x slower than fast (250.0 MB/s); not good enough: fails at 4 KiB (one length tested).",
        "doubtful: 10x slower than fast (100.0 MB/s); good enough: no failure up to 1 GiB (some results suspicious).",
        "tiny: no speed measured (not a generator); no verdict: too little data in 16 B.",
    ]
    assert headline(runs[0], runs[:1]) == "fast: 1,000.0 MB/s; good enough: no failure up to 1 GiB."


def test_compare_report_shows_the_headlines(tmp_path):
    comparison = randqa.compare(["pcg64", "randu"], "64K", seed=1, suite="quick", min="16K", speed_repeats=1)
    page = comparison.to_html()
    items = re.findall(r'<li class="headline row-(\w+)">.*?</span> (.*?)</li>', page, re.S)
    assert [verdict for verdict, _ in items] == ["pass", "fail"]
    assert items[0][1].startswith("pcg64: ") and "no failure up to 64 KiB" in items[0][1]
    assert items[1][1].startswith("randu: ") and "first fails at 16 KiB" in items[1][1]
    speeds = {r.name: comparison.speed_mb_s(r.name) for r in comparison}
    fastest = max(speeds, key=lambda k: speeds[k] or 0)
    assert "the fastest here" in dict((line.split(":")[0], line) for _, line in items)[fastest]
    assert not math.isnan(sum(s or 0 for s in speeds.values()))


@pytest.mark.parametrize("runs", [1, 2])
def test_headlines_only_for_several_sources(runs):
    docs = [randqa.test("pcg64", "16K", seed=i, suite="quick").to_json() for i in range(runs)]
    assert ('<ul class="headlines">' in render_html(docs)) == (runs > 1)
