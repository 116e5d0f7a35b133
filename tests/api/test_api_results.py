"""The result objects of the API (Result, Comparison), ``randqa.report`` and
the streaming ``randqa.Battery``.

Source: the API as the README's "From Python" section documents it (verdict, passed, results with statistic and
p-values, first_failure_bytes, bytes_tested, elapsed_s, to_json, to_html,
_repr_html_, lookup by test name; compare and report mirroring the CLI;
Battery update/merge/result on the engine's accumulators, whose rule is
that results never depend on how the stream is cut; randqa/battery/base.py).
Data: 64 KiB to 1 MiB per run, mostly the quick suite.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import randqa
from randqa import Battery, Comparison, Result, TestResult, Verdict

from schema_check import assert_valid_document


@pytest.fixture(scope="module")
def good() -> Result:
    return randqa.test("pcg64", "256K", seed=1)


@pytest.fixture(scope="module")
def progressive_bad() -> Result:
    return randqa.test("randu", seed=1, progressive=True, max="64K", suite="quick")


def test_result_attributes(good):
    assert good.verdict == Verdict.PASS and good.passed
    assert good.bytes_tested == 256 << 10 and good.bits_tested == 8 * (256 << 10)
    assert good.elapsed_s > 0 and good.name == "pcg64" and good.seed == 1 and good.suite == "standard"
    assert good.first_failure_bytes is None and not good.interrupted and good.notes == []
    assert all(isinstance(t, TestResult) for t in good.results) and len(good) == len(good.results) > 30
    assert [t.name for t in good] == [t["name"] for t in good.to_json()["tests"]]
    spacing = good["birthday_spacings"]
    assert spacing.statistic is not None and 0 <= spacing.pvalue <= 1 and spacing.pvalue_low is not None
    assert spacing.verdict == Verdict.PASS and spacing.details


def test_results_by_name_with_repeats(good):
    names = [t.name for t in good]
    assert len(set(names)) == len(names)  # a run names each result apart (randqa/battery/suites.py)
    document = good.to_json()  # as a document written before that, with a name twice
    document["tests"][1]["name"] = repeated = document["tests"][0]["name"]
    older = randqa.Result(document)
    first, second = older[repeated], older[f"{repeated} #2"]
    assert first is not second and [t for t in older if t.name == repeated] == [first, second]
    assert second.statistic == document["tests"][1]["statistic"]
    with pytest.raises(KeyError, match="no test 'birthday_spacing' in this result; close matches: birthday_spacings"):
        good["birthday_spacing"]
    with pytest.raises(KeyError, match="no test 'frequency #2'"):
        good["frequency #2"]
    with pytest.raises(TypeError, match="by test name"):
        good[0]  # type: ignore[index]


def test_failing_progressive_result(progressive_bad):
    assert progressive_bad.verdict == Verdict.FAIL and not progressive_bad.passed
    assert progressive_bad.first_failure_bytes == 2048 == progressive_bad.bytes_tested
    assert repr(progressive_bad) == "<randqa.Result randu seed=1, suite quick, 2 KiB: fail, first failure at 2 KiB (5 tests)>"
    plain_fail = randqa.test("randu", "4K", seed=1, suite="quick")
    assert plain_fail.first_failure_bytes == 4096  # a single length: it failed at its length


def test_to_json_is_a_fresh_plain_copy(good):
    doc = good.to_json()
    assert type(doc["verdict"]) is str and doc == json.loads(json.dumps(doc))
    doc["verdict"] = "changed"
    assert good.to_json()["verdict"] == "pass"
    assert_valid_document(good.to_json())
    again = Result(good.to_json())  # a result rebuilt from its document
    assert [(t.name, t.statistic, t.pvalue, t.verdict) for t in again] == [(t.name, t.statistic, t.pvalue, t.verdict) for t in good]


def test_to_html_returns_or_writes_the_report(good, tmp_path):
    page = good.to_html()
    assert page.startswith("<!DOCTYPE html>") and 'class="pvalue-history"' in page and "KS p =" in page
    assert good.to_html(tmp_path / "r.html") is None
    assert (tmp_path / "r.html").read_text() == page  # deterministic: same document, same bytes
    with pytest.raises(ValueError, match="folder /no/such does not exist"):
        good.to_html("/no/such/r.html")


def test_jupyter_view_is_compact_and_self_contained(good, progressive_bad):
    html = good._repr_html_()
    assert html.count("<svg") == 1 and "KS p =" in html
    assert not re.search(r"<(script|link|img|iframe)\b", html)
    assert not re.search(r"""(?:src|href)\s*=\s*["'](?!#)""", html)
    assert html.count("<tr>") == 1 + 12 and f"… and {len(good) - 12} more" in html  # a header and 12 of the tests
    other = good._repr_html_()
    ids = set(re.findall(r'\bid="([^"]+)"', html)) & set(re.findall(r'\bid="([^"]+)"', other))
    assert not ids  # two views in one notebook share no SVG id
    bad = progressive_bad._repr_html_()
    assert "first failure at 2 KiB" in bad and bad.index(">fail<") < bad.index(">pass<")


@pytest.fixture(scope="module")
def comparison() -> Comparison:
    return randqa.compare(["pcg64", "minstd"], "64K", seed=1, suite="quick", progressive=True, min="16K",
                          speed_repeats=1)


def test_compare_returns_every_source_with_its_speed(comparison):
    assert [r.name for r in comparison] == ["pcg64", "minstd"] and len(comparison) == 2
    assert comparison["minstd"].first_failure_bytes == 16384 and comparison[0].passed
    assert comparison.speed_mb_s("pcg64") > 0 and not comparison.interrupted
    doc = comparison.to_json()
    assert doc["kind"] == "compare" and doc["command"].startswith("randqa.compare(['pcg64', 'minstd']")
    assert_valid_document(doc)
    with pytest.raises(KeyError, match="no source 'randu' in this comparison; it has: pcg64, minstd"):
        comparison["randu"]
    view = comparison._repr_html_()
    assert "the fastest here" in view or "slower than" in view
    assert "minstd: " in view and "not good enough: first fails at 16 KiB" in view


def test_compare_takes_names_and_paths_only(tmp_path):
    with pytest.raises(TypeError, match="test Python objects one at a time with randqa.test"):
        randqa.compare([np.random.PCG64(1)])  # type: ignore[list-item]
    data = tmp_path / "d.bin"
    data.write_bytes(np.random.default_rng(2).bytes(1 << 14))
    single = randqa.compare(data, suite="quick", progressive=False, speed_repeats=1)
    assert single[0].name == str(data) and single.speed_mb_s(str(data)) is None


def test_report_writes_one_page_from_any_mix(good, comparison, tmp_path):
    saved = tmp_path / "good.json"
    saved.write_text(json.dumps(good.to_json()))
    out = tmp_path / "all.html"
    randqa.report([good, comparison, comparison.to_json(), saved, str(saved)], out)
    page = out.read_text()
    assert page.count('<tr class="row-') >= 7 and page.count("<section class=\"source\"") == 7
    randqa.report(good, tmp_path / "one.html")  # a single document needs no list


@pytest.mark.parametrize("documents, error, message", [
    ([{"tests": []}], ValueError, "document 1: missing key 'source'"),
    ([{"name": "left-pad"}], ValueError, "document 1: not a randqa result"),
    (["/no/such/file.json"], ValueError, "/no/such/file.json: cannot read"),
    ([42], TypeError, "report takes results, documents (dicts) or JSON file paths, not int"),
    ([], ValueError, "nothing to report"),
])
def test_report_refuses_bad_documents(documents, error, message, tmp_path):
    with pytest.raises(error, match=re.escape(message)):
        randqa.report(documents, tmp_path / "x.html")
    assert not (tmp_path / "x.html").exists()


def test_randqa_report_is_a_plain_function_that_the_rendering_package_leaves_alone():
    import types

    import randqa._report.html  # importing the rendering package must not shadow randqa.report

    from randqa.api import report
    assert isinstance(randqa.report, types.FunctionType) and randqa.report is report


# ---------------------------------------------------------------- Battery

DATA = np.random.Generator(np.random.PCG64(9)).bytes(1 << 20)


def test_a_battery_fed_in_pieces_equals_one_run():
    whole = randqa.test(DATA, suite="standard")
    battery = Battery("standard")
    for start, size in zip(range(0, len(DATA), 77_777), [77_777] * 100):
        battery.update(np.frombuffer(DATA, dtype=np.uint8)[start:start + size])
    battery.update(b"")
    result = battery.result()
    assert [(t.name, t.statistic, t.pvalue) for t in result] == [(t.name, t.statistic, t.pvalue) for t in whole]
    assert result.bytes_tested == len(DATA) == battery.bytes_seen and result.name == "stream"
    assert_valid_document(result.to_json())
    battery.update(DATA[:1000])  # feeding goes on after a result
    assert battery.result().bytes_tested == len(DATA) + 1000


def test_merged_batteries_equal_one():
    whole = randqa.test(DATA, suite="quick")
    left, right = Battery("quick", name="two parts"), Battery("quick")
    cut = 3 * left.alignment
    left.update(DATA[:cut])
    right.update(DATA[cut:])
    left.merge(right)
    merged = left.result()
    assert merged.to_json()["tests"] == whole.to_json()["tests"] and merged.name == "two parts"


def test_battery_errors():
    with pytest.raises(ValueError, match="unknown suite 'nope'"):
        Battery("nope")
    with pytest.raises(ValueError, match="stream: no data"):
        Battery("quick").result()
    quick = Battery("quick")
    quick.update(DATA[:100])
    with pytest.raises(ValueError, match="not a multiple of its alignment"):
        quick.merge(Battery("quick"))
    with pytest.raises(ValueError, match="different suites or tests"):
        Battery("quick").merge(Battery("quick", tests="frequency"))
    with pytest.raises(TypeError, match="can only merge another Battery"):
        Battery("quick").merge("quick")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="chunk is str"):
        Battery("quick").update("text")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="numpy array of int64"):
        Battery("quick").update(np.arange(4))


def test_a_dollar_in_a_name_is_text_in_every_view(comparison):
    # matplotlib reads $...$ as mathtext: the page, the notebook view and
    # written files must all draw such a name as it is
    doc = comparison.to_json()
    doc["runs"][0]["source"]["name"] = r"gen$\bad{$"
    renamed = Comparison(doc)
    assert r"gen$\bad{$" in renamed.to_html()
    assert r"gen$\bad{$" in renamed._repr_html_()
