"""The terminal table (report/terminal.py): a failure's cause where the run's
own results show it, p-values that never read 0.000000, no p-value beside
"insufficient", and one name per result."""

from __future__ import annotations

import json

import pytest

from conftest import run_main
from randqa._report.terminal import failure_causes, format_pvalue, render_run
from randqa.results import TestResult
from randqa.run_result import RunResult


@pytest.fixture(scope="module")
def glibc_rand(tmp_path_factory) -> tuple[str, dict]:
    """glibc's rand() as 4 bytes a call: bit 31 of every word is 0."""
    json_path = tmp_path_factory.mktemp("glibc") / "run.json"
    assert run_main("test", "glibc-rand", "-n", "256K", "--seed", "1", "--json", str(json_path)) == 1
    doc = json.loads(json_path.read_text())
    return render_run(RunResult.from_json(doc)), doc  # the table the command printed


def test_a_constant_bit_is_named_as_the_cause(glibc_rand):
    table, _ = glibc_rand
    causes = [line for line in table.splitlines() if line.startswith("cause: ")]
    assert causes[0].startswith("cause: bit 31 of the 32-bit words is constant: 0 in 256 words in a row")
    # bit 31 of 32-bit words is bit 63 of 64-bit words too: said once
    assert not any("bit 63 of the 64-bit words" in line for line in causes)
    assert table.index("cause: ") < table.index("verdict: FAIL")


def test_pvalues_read_in_scientific_notation_and_insufficient_ones_not_at_all(glibc_rand):
    table, doc = glibc_rand
    assert "0.000000  fail" not in table
    rows = {line.split()[0]: line for line in table.splitlines() if line.split() and line.split()[0] in
            {t["name"] for t in doc["tests"]}}
    for test in doc["tests"]:
        cells = rows[test["name"]].split()
        if test["verdict"] == "insufficient":
            assert cells[2] == "-", rows[test["name"]]
        elif test["p_value"] is not None and test["p_value"] < 1e-6:
            assert "e-" in cells[2], rows[test["name"]]


def test_every_result_has_its_own_name(glibc_rand):
    _, doc = glibc_rand
    names = [t["name"] for t in doc["tests"]]
    assert len(names) == len(set(names))
    # the standard suite's second 32-bit entry says which it is
    assert "bit_linear_complexity[length=65536][bit=0/32]" in names and "bit_linear_complexity[bit=0/32]" in names


def test_format_pvalue():
    assert format_pvalue(0.0) == "<5e-324"  # underflowed: smaller than any double, not zero
    assert format_pvalue(3.2e-9) == "3.2000e-09"
    assert format_pvalue(0.25) == "0.250000"
    assert format_pvalue(0.25, "insufficient") == "-" and format_pvalue(None) == "-"


def test_no_cause_for_a_pass_or_a_complexity_near_half():
    lowest = {"sequences": 4, "length": 256, "lowest_complexity": 0, "P(L<=lowest)": 1e-77}
    stuck = TestResult("bit_linear_complexity[bit=3/8,lowest]", 0.0, 1e-77, details=lowest, verdict="fail")
    assert failure_causes([stuck]) == ["bit 3 of the 8-bit words is constant: 0 in 256 words in a row "
                                       "(bit_linear_complexity[bit=3/8,lowest])"]
    passed = TestResult("bit_linear_complexity[bit=3/8,lowest]", 0.0, 0.5, details=lowest, verdict="pass")
    assert failure_causes([passed]) == []


def test_a_cause_whose_numbers_a_saved_document_lacks_is_left_out():
    # before: `randqa report` on a document whose failed frequency result had lost "ones" (found by
    # tests/cli/test_fuzz.py) exited 3 with "internal error (KeyError: 'ones')"
    lost = TestResult("frequency", 6.66, 2.8e-11, details={"bits": 32768, "S_n": -1206}, verdict="unconfirmed")
    text = TestResult("frequency", 6.66, 2.8e-11, details={"bits": 32768, "ones": "many"}, verdict="fail")
    no_length = TestResult("bit_linear_complexity[bit=3/8,lowest]", 0.0, 1e-77, details={"lowest_complexity": 0},
                           verdict="fail")
    assert failure_causes([lost, text, no_length]) == []
    whole = TestResult("frequency", 6.66, 2.8e-11, details={"bits": 32768, "ones": 15781.0}, verdict="fail")
    assert failure_causes([whole]) == ["48.16% of the bits are 1 (frequency)"]
