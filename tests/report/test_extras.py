"""A light install (report/extras.py): without the html extra a run still
tests and writes JSON, and asking for HTML is one line naming the extra."""

from __future__ import annotations

import json
import subprocess
import sys

from randqa._report import extras

#: randqa's CLI in a fresh interpreter where jinja2 cannot be imported, as in `pip install randqa`
WITHOUT_JINJA2 = "import sys; sys.modules['jinja2'] = None; from randqa.cli import main; main(sys.argv[1:])"


def _randqa_without_jinja2(tmp_path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", WITHOUT_JINJA2, *args], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)


def test_without_the_html_extra_json_works_and_html_names_the_extra(tmp_path):
    ran = _randqa_without_jinja2(tmp_path, "test", "pcg64", "-n", "64K", "--seed", "1", "--json", "run.json")
    assert ran.returncode == 0, ran.stderr
    assert json.loads((tmp_path / "run.json").read_text())["verdict"] == "pass"
    refused = _randqa_without_jinja2(tmp_path, "test", "pcg64", "-n", "64K", "--seed", "1", "--html", "r.html")
    assert refused.returncode == 2
    assert refused.stderr == f"randqa: error: --html r.html: {extras.HTML_EXTRA_NEEDED}\n"
    assert not (tmp_path / "r.html").exists()


def test_without_the_html_extra_compare_is_refused_before_its_run_or_leaves_out_its_default_report(tmp_path):
    asked = _randqa_without_jinja2(tmp_path, "compare", "pcg64", "-n", "64K", "--seed", "1", "--html", "c.html")
    assert asked.returncode == 2
    assert asked.stderr == f"randqa: error: --html c.html: {extras.HTML_EXTRA_NEEDED}\n"
    assert asked.stdout == ""  # refused before anything was run
    default = _randqa_without_jinja2(tmp_path, "compare", "pcg64", "-n", "64K", "--seed", "1", "--json", "c.json")
    assert default.returncode == 0, default.stderr
    assert f"no HTML report ({extras.HTML_EXTRA_NEEDED})" in default.stderr
    assert json.loads((tmp_path / "c.json").read_text())["runs"]
    assert not (tmp_path / "randqa-report.html").exists()


def test_missing_html_extra_is_asked_without_importing(monkeypatch):
    assert extras.missing_html_extra() is None  # the test environment has every extra
    real = extras.find_spec
    monkeypatch.setattr(extras, "find_spec", lambda name: None if name == "matplotlib" else real(name))
    assert extras.missing_html_extra() == "HTML reports need the html extra: pip install 'randqa[html]'"
