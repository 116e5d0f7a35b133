"""The HTML report (report/html.py) of `randqa compare` and `randqa test`
documents: self-contained (nothing fetched, no script, unique ids across
the inline SVGs), failures first, rebuilt byte for byte from the JSON,
several documents combined, details with their exponents; malformed or
foreign JSON refused in one line naming the file and the problem.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import numpy as np
import pytest

from conftest import assert_report_refuses, run_main


pytestmark = pytest.mark.usefixtures("in_tmp_folder")


GOOD, BAD = "pcg64", "randu"


class _SummaryRows(HTMLParser):
    """(source, verdict) of each row of the summary table, and the verdicts of
    each per-source test table in page order."""

    def __init__(self) -> None:
        super().__init__()
        self.summary: list[tuple[str, str]] = []
        self.test_tables: list[list[str]] = []
        self._table: str | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag == "table":
            self._table = a.get("class")
            if self._table == "tests":
                self.test_tables.append([])
        elif tag == "tr" and "data-source" in a and self._table == "summary":
            self.summary.append((a["data-source"], a["data-verdict"]))
        elif tag == "tr" and self._table == "tests" and a.get("class", "").startswith("row-"):
            self.test_tables[-1].append(a["class"][4:])

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._table = None


def test_report_rebuilds_the_same_html_from_json(counter_file, tmp_path):
    json_path, html_path, rebuilt = tmp_path / "c.json", tmp_path / "c.html", tmp_path / "r.html"
    assert run_main("compare", GOOD, BAD, counter_file, "-n", "256K", "--speed-repeats", "1",
                    "--json", str(json_path), "--html", str(html_path)) == 0
    assert run_main("report", str(json_path), "-o", str(rebuilt)) == 0
    assert rebuilt.read_bytes() == html_path.read_bytes()


def test_html_report_is_self_contained_and_puts_failures_first(counter_file, random_file, tmp_path):
    json_path, html_path = tmp_path / "c.json", tmp_path / "c.html"
    assert run_main("compare", GOOD, BAD, counter_file, random_file, "-n", "512K", "--speed-repeats", "1",
                    "--json", str(json_path), "--html", str(html_path)) == 0
    doc = json.loads(json_path.read_text())
    page = html_path.read_text()
    parser = _SummaryRows()
    parser.feed(page)
    assert parser.summary == [(r["source"]["name"], r["verdict"]) for r in doc["runs"]]
    # each source's test table: fail, then suspicious, then pass; the tests
    # with too little data only named below it, folded
    rank = {"fail": 0, "unconfirmed": 1, "suspicious": 2, "pass": 3}  # a file has no fresh data: unconfirmed happens
    assert len(parser.test_tables) == len(doc["runs"])
    for verdicts, run in zip(parser.test_tables, doc["runs"]):
        assert sorted(verdicts) == sorted(t["verdict"] for t in run["tests"] if t["verdict"] != "insufficient")
        assert [rank[v] for v in verdicts] == sorted(rank[v] for v in verdicts)
    short = next(r for r in doc["runs"] if any(t["verdict"] == "insufficient" for t in r["tests"]))
    unjudged = [t["name"] for t in short["tests"] if t["verdict"] == "insufficient"]
    assert f"{len(unjudged)} results with too little data, no verdict" in page
    assert all(f'<span class="mono">{name}</span>' in page for name in unjudged)
    # the tables are folded; the run's verdict and its false-FAIL bound come first
    assert page.count('<details class="tests">') == len(doc["runs"])
    loosest = max(r["false_fail_rate"]["at_most"] for r in doc["runs"])
    assert page.index('id="verdict"') < page.index(f"probability at most {loosest:.2g}") < page.index("<svg")
    assert parser.test_tables[1][0] == "fail"
    # nothing to fetch: no external resource, no script, ids unique across the inline SVGs
    assert not re.search(r"<(script|link|img|iframe|object|embed)\b", page)
    assert not re.search(r"""(?:src|href)\s*=\s*["'](?!#)""", page)
    assert not re.search(r"url\((?!#)", page)
    # the only URLs are XML namespace names, which are never fetched
    assert re.findall(r"\w+://", re.sub(r'xmlns(?::\w+)?="[^"]*"', "", page)) == []
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))
    # the speed chart names the generators (text stays text) and leaves the files out
    chart = re.search(r'<figure class="speed-quality">(.*?)</figure>', page, re.S).group(1)
    assert GOOD in chart and BAD in chart and counter_file not in chart
    assert f"Not plotted (no generation speed): {counter_file}, {random_file}" in page


def test_report_renders_a_single_test_run(random_file, tmp_path, cli):
    json_path, html_path = tmp_path / "one.json", tmp_path / "one.html"
    assert cli("test", random_file, "--json", str(json_path)).returncode == 0
    result = cli("report", str(json_path), "-o", str(html_path))
    assert result.returncode == 0, result.stderr
    parser = _SummaryRows()
    parser.feed(html_path.read_text())
    assert parser.summary == [(random_file, "pass")]
    judged = [t for t in json.loads(json_path.read_text())["tests"] if t["verdict"] != "insufficient"]
    assert len(parser.test_tables[0]) == len(judged)


def test_report_combines_several_documents(random_file, tmp_path):
    first, second, html_path = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "ab.html"
    assert run_main("compare", GOOD, "-n", "256K", "--speed-repeats", "1", "--json", str(first)) == 0
    assert run_main("test", random_file, "--json", str(second)) == 0
    assert run_main("report", str(first), str(second), "-o", str(html_path)) == 0
    parser = _SummaryRows()
    parser.feed(html_path.read_text())
    assert [name for name, _ in parser.summary] == [GOOD, random_file]


@pytest.fixture(scope="module")
def saved_run(tmp_path_factory):
    """A real single-run JSON document to break in various ways."""
    folder = tmp_path_factory.mktemp("saved")
    data, saved = folder / "random.bin", folder / "run.json"
    data.write_bytes(np.random.Generator(np.random.PCG64(3)).bytes(1 << 16))
    run_main("test", str(data), "--json", str(saved))
    return json.loads(saved.read_text())


def _broken(saved: dict, how: str) -> bytes:
    doc = json.loads(json.dumps(saved))
    if how == "p_value_text":
        doc["tests"][0]["p_value"] = "0.5"
    elif how == "p_value_range":
        doc["tests"][1]["p_value"] = 1.5
    elif how == "verdict":
        doc["verdict"] = "great"
    elif how == "missing_tests":
        del doc["tests"]
    elif how == "bool_bytes":
        doc["bytes_tested"] = True
    elif how == "empty_compare":
        doc = {"kind": "compare", "runs": []}
    elif how == "compare_bad_run":
        del doc["source"]
        doc = {"kind": "compare", "runs": [json.loads(json.dumps(saved)), doc]}
    elif how == "kind":
        doc["kind"] = "benchmark"
    elif how == "nan":
        return json.dumps(doc).replace('"p_value": ' + json.dumps(doc["tests"][0]["p_value"]), '"p_value": NaN', 1).encode()
    return json.dumps(doc).encode()


@pytest.mark.parametrize("how, problem", [
    ("p_value_text", "tests[0].p_value: expected number or null, got string"),
    ("p_value_range", "tests[1].p_value: p-value 1.5 is outside [0, 1]"),
    ("verdict", "verdict: unknown verdict 'great'"),
    ("missing_tests", "missing key 'tests'"),
    ("bool_bytes", "bytes_tested: expected integer, got boolean"),
    ("empty_compare", "runs: a compare document needs at least one run"),
    ("compare_bad_run", "runs[1]: missing key 'source'"),
    ("kind", "unknown document kind 'benchmark'"),
    ("nan", "not valid JSON (NaN is not valid JSON)"),
])
def test_report_refuses_malformed_json(saved_run, tmp_path, capsys, how, problem):
    assert_report_refuses(tmp_path, capsys, _broken(saved_run, how), problem)


@pytest.mark.parametrize("content, problem", [
    (b'{"name": "left-pad", "version": "1.3.0", "dependencies": {}}', "not a randqa result"),
    (b'[{"source": "x"}]', "expected a JSON object at the top level, got array"),
    (b'{"tests": [}', "not valid JSON (line 1 column 12"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "not UTF-8 text"),
    (None, "cannot read"),
])
def test_report_refuses_foreign_files_in_one_line(tmp_path, cli, content, problem):
    path = tmp_path / "input.json"
    if content is not None:
        path.write_bytes(content)
    result = cli("report", str(path), "-o", str(tmp_path / "x.html"))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert str(path) in result.stderr and problem in result.stderr, result.stderr


def test_report_details_keep_their_exponents(saved_run, tmp_path):
    # the zeros of an exponent are kept: a p of 5.3e-50 must not show as 5.31e-5
    doc = json.loads(json.dumps(saved_run))
    doc["tests"][0]["details"] = {"worst_cell_p": 5.3062373157205915e-50, "big": 1.2e10, "count": 256.0}
    json_path, html_path = tmp_path / "details.json", tmp_path / "details.html"
    json_path.write_text(json.dumps(doc))
    assert run_main("report", str(json_path), "-o", str(html_path)) == 0
    text = html_path.read_text()
    assert "worst_cell_p=5.31e-50, big=1.2e+10, count=256<" in text


def test_a_document_without_the_optional_fail_at_once_renders(saved_run, tmp_path):
    # the schema leaves thresholds.fail_at_once out of older documents; the
    # template asked for it and stopped with an internal error (the fuzz test found it)
    doc = json.loads(json.dumps(saved_run))
    del doc["thresholds"]["fail_at_once"]
    json_path, html_path = tmp_path / "old.json", tmp_path / "old.html"
    json_path.write_text(json.dumps(doc))
    assert run_main("report", str(json_path), "-o", str(html_path)) == 0
    text = html_path.read_text()
    assert "fail below p = 1e-06 once repeated on fresh data)" in text


def test_compare_report_shows_which_sources_are_predictable(tmp_path):
    report = tmp_path / "c.html"
    code = run_main("compare", "lfsr113", "siprand", "-n", "64K", "--seed", "3", "--speed-repeats", "1",
                    "--html", str(report))
    assert code == 0
    page = report.read_text()
    assert ">predictable from<" in page
    cells = re.findall(r'<td class="num predictable" title="([^"]*)">([^<]*)</td>', page)
    assert cells == [("gf2-linear", "904 B"), ("", "—")]
