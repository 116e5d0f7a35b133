"""`randqa compare` (engine/compare.py): each source is tested and each
generator's speed measured apart from testing, in one JSON document; with
--progressive each run records its first failure.  Two real generator
backends stand for the good and the bad: pcg64, and RANDU (IBM's LCG, whose
bytes fail every test of the quick suite at once).
"""

from __future__ import annotations

import json
import re

import pytest

import randqa.engine.compare
from conftest import run_main
from randqa.battery.suites import DEFAULT_SUITE


pytestmark = pytest.mark.usefixtures("in_tmp_folder")


GOOD, BAD = "pcg64", "randu"


def test_compare_measures_speed_apart_and_tests_each_source(counter_file, tmp_path, capsys):
    json_path = tmp_path / "c.json"
    code = run_main("compare", GOOD, BAD, counter_file, "-n", "1M", "--seed", "2024", "--speed-repeats", "2",
                    "--json", str(json_path))
    assert code == 0  # a comparison that finds bad generators has done its job
    assert (tmp_path / "randqa-report.html").stat().st_size > 0
    doc = json.loads(json_path.read_text())
    assert doc["kind"] == "compare" and doc["suite"] == DEFAULT_SUITE
    for key in ("randqa_version", "command", "date", "platform", "cpu"):
        assert isinstance(doc[key], str) and doc[key]
    runs = {r["source"]["name"]: r for r in doc["runs"]}
    assert list(runs) == [GOOD, BAD, counter_file]
    # generators have a speed, measured on their own reads; a file has none
    assert runs[GOOD]["speed_mb_s"] > 0 and runs[BAD]["speed_mb_s"] > 0
    assert runs[GOOD]["speed_bytes"] >= 1 << 20
    assert runs[counter_file]["speed_mb_s"] is None
    assert runs[GOOD]["verdict"] == "pass"
    assert runs[BAD]["verdict"] == "fail" and runs[counter_file]["verdict"] == "fail"
    assert runs[GOOD]["bytes_tested"] == 1 << 20
    assert runs[GOOD]["source"]["seed"] == runs[BAD]["source"]["seed"] == 2024
    assert runs[counter_file]["source"]["seed"] is None  # --seed is for generators only
    table = capsys.readouterr().out
    bad_row = next(line for line in table.splitlines() if line.startswith(BAD))
    failed = [t["name"] for t in runs[BAD]["tests"] if t["verdict"] == "fail"]
    assert "FAIL" in bad_row and failed and failed[0] in bad_row
    good_row = next(line for line in table.splitlines() if line.startswith(GOOD))
    assert "pass" in good_row and f"{runs[GOOD]['speed_mb_s']:.1f}" in good_row


def test_progressive_compare_reports_first_failure(tmp_path):
    json_path, html_path = tmp_path / "p.json", tmp_path / "p.html"
    assert run_main("compare", GOOD, BAD, "--progressive", "--min", "64K", "--max", "512K", "--speed-repeats", "1",
                    "--json", str(json_path), "--html", str(html_path)) == 0
    runs = {r["source"]["name"]: r for r in json.loads(json_path.read_text())["runs"]}
    assert [step["bytes"] for step in runs[GOOD]["lengths"]] == [64 << 10, 128 << 10, 256 << 10, 512 << 10]
    assert runs[GOOD]["first_failure_bytes"] is None
    # a period of 256 bytes fails at the first length, and the run stops there
    assert runs[BAD]["first_failure_bytes"] == 64 << 10 and len(runs[BAD]["lengths"]) == 1
    page = html_path.read_text()
    assert page.count('<figure class="pvalue-history">') == 2
    ids = re.findall(r'\bid="([^"]+)"', page)  # three inline SVGs share one id space
    assert len(ids) == len(set(ids))
    assert "none up to 512 KiB" in page


def test_default_sources_are_backends():
    from randqa.sources import backend_names

    names = backend_names()
    assert names
    assert [s for s in randqa.engine.compare.DEFAULT_SOURCES if s not in names] == []


def test_presets_name_their_sources_and_length():
    from randqa.engine.compare import PRESETS, RUNTIMES_COMPARE_BYTES, preset_plan
    from randqa.errors import UsageError

    assert preset_plan([], "runtimes", None, None) == (list(PRESETS["runtimes"].sources), RUNTIMES_COMPARE_BYTES)
    assert preset_plan([], "runtimes", 1 << 20, None)[1] == 1 << 20
    assert preset_plan([], "runtimes", None, 1 << 22)[1] is None  # --max says how far
    assert preset_plan(["pcg64"], None, None, None) == (["pcg64"], None)
    assert preset_plan([], None, None, None)[0] == list(randqa.engine.compare.DEFAULT_SOURCES)
    with pytest.raises(UsageError, match="give sources or --preset runtimes, not both"):
        preset_plan(["pcg64"], "runtimes", None, None)


def test_preset_with_sources_is_refused_in_one_line(capsys):
    assert run_main("compare", "--preset", "runtimes", "pcg64") == 2
    assert capsys.readouterr().err.strip().splitlines() == ["randqa: error: give sources or --preset runtimes, not both"]
