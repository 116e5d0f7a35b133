"""Verdicts (randqa/results.py): the thresholds, a failure that must repeat
on fresh data, what a retest settles, and the false-FAIL bound a report
states.  docs/verdicts.md says the same in words.
"""

from __future__ import annotations

import pytest

from randqa.battery.suites import load_suite
from randqa.errors import SuiteError
from randqa._report.terminal import retest_summary
from randqa.results import CALIBRATION, TestResult, Thresholds, Verdict, classify, false_fail_bound, resolve_retest

T = Thresholds()


def result(p: float | None, low: float | None = None) -> TestResult:
    return TestResult("t", 1.0 if p is not None else None, p, low)


@pytest.mark.parametrize("p, low, verdict", [
    (1e-21, None, "fail"), (1e-19, None, "unconfirmed"), (9.9e-7, None, "unconfirmed"), (1e-6, None, "suspicious"),
    (9.9e-4, None, "suspicious"), (1e-3, None, "pass"), (0.5, 1e-21, "fail"), (0.5, 1e-9, "unconfirmed"),
    (None, None, "insufficient")])
def test_classify_uses_the_smaller_tail_and_three_levels(p, low, verdict):
    assert classify(result(p, low), T) == verdict


def test_short_of_data_only_a_tail_below_fail_at_once_fails():
    near = result(1e-12)
    near.withhold_verdict_unless_decisive("at least 8 KiB")
    assert classify(near, T) == "insufficient" and near.needs == "at least 8 KiB"
    blatant = result(1e-40)
    blatant.withhold_verdict_unless_decisive("at least 8 KiB")
    assert classify(blatant, T) == "fail" and blatant.needs is None


def test_an_unconfirmed_failure_that_repeats_in_the_same_tail_fails():
    r = result(0.9, 1e-9)  # too good a fit
    classify(r, T)
    resolve_retest(r, result(0.99, 2e-4), T, start=1024, length=1024)
    assert r.verdict == "fail"
    assert r.retest == {"from_bytes": 1024, "bytes": 1024, "tail": "lower", "p_value": 2e-4, "repeated": True}
    assert retest_summary(r.retest) == "repeated on the next 1 KiB (p = 0.0002)"


def test_a_repeat_in_the_other_tail_is_no_repeat():
    r = result(1e-9, 0.9)
    classify(r, T)
    resolve_retest(r, result(0.9, 1e-5), T, start=1 << 28, length=1 << 28)
    assert r.verdict == "suspicious" and r.retest["repeated"] is False
    assert retest_summary(r.retest) == "not repeated on the next 256 MiB (p = 0.9)"


def test_a_suspicious_result_stays_suspicious_and_says_whether_it_repeated():
    for again, repeated in ((2e-4, True), (0.3, False)):
        r = result(2e-4)
        classify(r, T)
        resolve_retest(r, result(again), T, start=4096, length=4096)
        assert r.verdict == "suspicious" and r.retest["repeated"] is repeated


@pytest.mark.parametrize("q, verdict", [(1e-10, Verdict.UNCONFIRMED), (1e-8, Verdict.SUSPICIOUS),
                                         (0.99e-9, Verdict.UNCONFIRMED), (1e-9, Verdict.SUSPICIOUS)])
def test_without_fresh_data_a_failure_stands_only_below_fail_times_suspicious(q, verdict):
    # before: any q below fail stayed unconfirmed (exit 1): 1.1e-6 a check for a good file, not the stated 1.2e-9
    r = result(q)
    classify(r, T)
    assert r.verdict == Verdict.UNCONFIRMED  # until its retest, or the lack of one, settles it
    resolve_retest(r, None, T, start=8192, length=8192)
    assert r.verdict == verdict and T.fail_unrepeated == pytest.approx(1e-9)
    assert r.retest["repeated"] is None and retest_summary(r.retest) == "not retested: the data ended"
    assert Verdict.UNCONFIRMED.severity == Verdict.FAIL.severity - 1 > Verdict.SUSPICIOUS.severity


@pytest.mark.parametrize("q, again, verdict", [(1e-10, 0.3, Verdict.UNCONFIRMED), (1e-8, 0.3, Verdict.SUSPICIOUS),
                                                (1e-8, 2e-4, Verdict.FAIL), (1e-10, 2e-4, Verdict.FAIL)])
def test_a_retest_cut_short_confirms_a_failure_but_does_not_clear_it(q, again, verdict):
    # before: a cut retest that did not repeat made any failure suspicious, where no retest at all left
    # one below fail x suspicious unconfirmed
    r = result(q)
    classify(r, T)
    resolve_retest(r, result(again), T, start=8192, length=512, cut_short=True)
    assert r.verdict == verdict and r.retest["cut_short"] is True
    shown = "repeated" if again < T.suspicious else "not repeated"
    assert retest_summary(r.retest) == f"{shown} on the next 512 B, cut short (p = {again:.2g})"


def test_a_check_without_fresh_data_fails_a_good_source_no_more_often_than_the_bound_says():
    # P(p < fail x suspicious), calibrated within 1.1 of it, is within the per-check bound
    assert CALIBRATION * T.fail_unrepeated <= T.per_check() - CALIBRATION * T.fail_at_once


def test_the_false_fail_bound_is_the_union_of_the_checks():
    per_check = 1.1e-20 + 1.1e-6 * 1.1e-3
    assert T.per_check() == pytest.approx(per_check, rel=1e-12)
    assert false_fail_bound(1200, T) == pytest.approx(1200 * per_check, rel=1e-12)
    assert false_fail_bound(1200, T) < 1e-5
    assert false_fail_bound(10**12, T) == 1.0
    # a check whose retest may be cut short fails either way: it adds P(p < fail x suspicious)
    assert T.per_cut_check() == pytest.approx(1.1e-9, rel=1e-12)
    assert false_fail_bound(1200, T, cut=300) == pytest.approx(1200 * per_check + 300 * 1.1e-9, rel=1e-12)
    assert Thresholds(fail_at_once=1e-6, fail=1e-6).per_cut_check() == 0.0  # no retests: nothing to cut


def test_thresholds_must_be_ordered(tmp_path):
    with pytest.raises(ValueError, match="fail_at_once <= fail"):
        Thresholds(fail_at_once=1e-5)
    path = tmp_path / "bad.toml"
    path.write_text('[thresholds]\nfail_at_once = 1e-3\n[[tests]]\ntest = "frequency"\n')
    with pytest.raises(SuiteError, match="bad.toml.*fail_at_once"):
        load_suite(str(path))
