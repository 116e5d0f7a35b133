"""Suite files as data: values of the wrong kind are refused with a clear
SuiteError, folding keys do not take a test's own parameters, and a folded
per-sequence test keeps its name.
"""

from __future__ import annotations

import numpy as np
import pytest

from randqa.battery.suites import Suite, TestSpec, parse_suite
from randqa.results import Thresholds


@pytest.mark.parametrize("entry, problem", [
    ("test = 'serial_correlation'\nlags = [1, 1]", "distinct"),
    ("test = 'birthday_spacings'\nword_bytes = 4.0", "whole number"),
    ("test = 'birthday_spacings'\nbits_per_word = 31.5", "whole number"),
    ("test = 'frequency'\nfold_word_bits = 8.0\nfold_low_bits = 1", "folding"),
    ("test = 'frequency'\nfold_word_bits = 8\nfold_low_bits = true", "folding"),
    ("test = 'frequency'\nfold_low_bits = 1", "folding"),
])
def test_suite_values_of_the_wrong_kind_are_refused(entry, problem):
    from randqa.errors import SuiteError

    with pytest.raises(SuiteError, match=problem):
        parse_suite(f"[[tests]]\n{entry}\n".encode(), "s.toml")


@pytest.mark.parametrize("rest", ["fold_word_bits = 1", "sequence_bits = 3", "fold_low_bits = 1"])
def test_an_unknown_test_name_is_refused_before_a_message_echoes_it(rest):
    # before: a bad fold or sequence_bits came first, naming the test raw: a name with a newline
    # made the error two lines (found by tests/cli/test_fuzz.py)
    from randqa.errors import SuiteError

    with pytest.raises(SuiteError) as refused:
        parse_suite(f'[[tests]]\ntest = "a\\nb"\n{rest}\n'.encode(), "s.toml")
    assert "\n" not in str(refused.value) and "unknown test 'a\\nb'" in str(refused.value)


@pytest.mark.parametrize("kind, problem", [
    ("folder", "is a directory"), ("device", "not a regular file"), ("newline, missing", "not found"),
    ("newline, not TOML", "not valid TOML")])
def test_a_suite_path_that_is_no_suite_file_is_named_on_one_line(tmp_path, kind, problem):
    # before: a folder or /dev/null was "not found", and a name holding a newline broke the message in two
    from randqa.battery.suites import load_suite
    from randqa.errors import SuiteError, UsageError

    path = {"folder": str(tmp_path), "device": "/dev/null", "newline, missing": str(tmp_path / "a\nb.toml"),
            "newline, not TOML": str(tmp_path / "c\nd.toml")}[kind]
    if kind == "newline, not TOML":
        (tmp_path / "c\nd.toml").write_text("x")
    with pytest.raises((SuiteError, UsageError)) as refused:
        load_suite(path)
    message = str(refused.value)
    assert "\n" not in message and problem in message and message.startswith("suite file "), message


def test_folding_keys_do_not_take_a_tests_own_word_bits():
    suite = parse_suite(b"[[tests]]\ntest = 'bit_linear_complexity'\nword_bits = 16\nbits = [0]\nlength = 64\n"
                        b"fold_word_bits = 32\nfold_low_bits = 8\n", "s.toml")
    acc = suite.build()[0]
    assert acc.inner.word_bits == 16 and acc.word_bits == 32


def test_folded_per_sequence_results_keep_their_name():
    spec = TestSpec("frequency", {}, sequence_bits=80_000, fold=(32, 1))
    acc = Suite("x", "", Thresholds(), [spec], "x").build()[0]
    acc.update(np.zeros(1000, dtype=np.uint8))
    assert acc.finalize()[0].name == "frequency[low1/32]"


def test_include_starts_with_the_named_suites_entries_and_thresholds():
    from randqa.battery.suites import load_suite

    quick = load_suite("quick")
    suite = parse_suite(b'include = "quick"\n[[tests]]\ntest = "gap"\n', "s.toml")
    assert [spec.test for spec in suite.tests] == [spec.test for spec in quick.tests] + ["gap"]
    assert suite.thresholds == quick.thresholds
    own = parse_suite(b'include = "quick"\n[thresholds]\nfail = 1e-7\n', "s.toml")
    assert own.thresholds.fail == 1e-7 and len(own.tests) == len(quick.tests)


def test_the_deep_suite_is_the_standard_suite_and_more():
    from randqa.battery.suites import load_suite

    standard, deep = load_suite("standard"), load_suite("deep")
    assert deep.tests[:len(standard.tests)] == standard.tests and len(deep.tests) > len(standard.tests)
    assert deep.thresholds == standard.thresholds


@pytest.mark.parametrize("include, problem", [
    ('"nonesuch"', "include must name a shipped suite"), ("3", "include must name a shipped suite"),
    ('"deep"', "itself includes a suite")])
def test_include_of_no_shipped_suite_is_refused(include, problem):
    from randqa.errors import SuiteError

    with pytest.raises(SuiteError, match=problem):
        parse_suite(f"include = {include}\n".encode(), "s.toml")


def test_an_entrys_problem_is_numbered_within_its_own_file():
    from randqa.errors import SuiteError

    with pytest.raises(SuiteError, match=r"s.toml: \[\[tests\]\] entry 2 \(gap\): unknown parameter"):
        parse_suite(b'include = "quick"\n[[tests]]\ntest = "gap"\n[[tests]]\ntest = "gap"\nnope = 1\n', "s.toml")
