"""randqa.engine.options: each option of the CLI and the API declared once,
the commands' decorators made from it, the API's defaults taken from it,
and the CLI and the API refusing a bad value with the same line (click's)."""

from __future__ import annotations

import inspect
import json

import pytest

import randqa
from randqa.api import running
from randqa.cli import reports as cli_reports
from randqa.cli import test as cli_test
from randqa.engine.options import OPTIONS, api_defaults, check_value, click_option
from randqa.errors import UsageError


@pytest.mark.parametrize("command", [cli_test.test_command, cli_reports.compare_command])
def test_the_commands_take_their_ranges_from_the_table(command):
    flags = {flag: option for option in OPTIONS.values() for flag in option.flags}
    # a size (--interleave) is parsed by its callback; its range is checked with the other values
    ranged = [param for param in command.params
              if any(flag in flags for flag in param.opts) and flags[param.opts[0]].type is not None
              and param.callback is None]
    assert ranged
    for param in ranged:
        assert param.type is flags[param.opts[0]].type, param.opts


@pytest.mark.parametrize("keyword, flags", [("n", ["-n", "--bytes"]), ("jobs", ["-j", "--jobs"]),
                                            ("word_bits", ["--word-bits"])])
def test_every_option_of_randqa_test_is_the_tables(keyword, flags):
    param = next(p for p in cli_test.test_command.params if p.opts == flags)
    declared = OPTIONS[keyword]
    assert param.help == declared.help and param.metavar == declared.metavar
    assert param.name == (declared.dest or keyword)


@pytest.mark.parametrize("function, defaults", [(randqa.test, running._TEST_DEFAULTS),
                                                (randqa.compare, running._COMPARE_DEFAULTS)])
def test_every_api_keyword_defaults_as_the_table_says(function, defaults):
    keywords = {name: p.default for name, p in inspect.signature(function).parameters.items()
                if name not in ("source", "sources", "jobs")}  # jobs: the deprecated name of threads
    assert keywords == defaults
    own = {"progressive": True, "threads": None} if function is randqa.compare else {}
    assert defaults == api_defaults(*defaults, **own)


def test_a_keyword_of_the_api_alone_has_no_decorator():
    with pytest.raises(ValueError, match="threads is a keyword of the API alone"):
        click_option("threads")


@pytest.mark.parametrize("name, value, line", [
    ("jobs", 0, "Invalid value for '-j' / '--jobs': 0 is not in the range 1<=x<=256."),
    ("word_bits", 12, "Invalid value for '--word-bits': '12' is not one of '8', '16', '32', '64'."),
    ("positions", 4097, "Invalid value for '--positions': 4097 is not in the range 1<=x<=4096."),
    ("threads", 257, "Invalid value for threads: 257 is not in the range 1<=x<=256."),  # the API's alone
])
def test_a_bad_value_gets_clicks_line(name, value, line):
    with pytest.raises(UsageError) as info:
        check_value(name, value)
    assert str(info.value) == line


def test_good_values_and_none_pass():
    for name, value in (("jobs", 256), ("word_bits", 64), ("format", "bits"), ("seed", None)):
        check_value(name, value)


@pytest.mark.parametrize("flag", ["--scheduler-timeout", "--checkpoint-every"])
@pytest.mark.parametrize("value", ["nan", "inf", "-nan"])
@pytest.mark.parametrize("command", [["test", "pcg64", "-n", "64K"], ["compare", "pcg64", "-n", "64K"],
                                     ["resume", "no-such.ckpt"]])
def test_a_seconds_option_refuses_what_is_not_a_finite_number(capsys, command, flag, value):
    from tests.conftest import run_cli_inprocess

    code, _out, err = run_cli_inprocess(capsys, *command, flag, value)
    assert code == 2
    assert err.count("\n") == 1 and f"'{flag}'" in err, err
    assert "is not a finite number" in err or "is not in the range" in err, err


def test_the_seconds_options_are_the_tables():
    for keyword, flag in (("scheduler_timeout", "--scheduler-timeout"), ("checkpoint_every", "--checkpoint-every")):
        param = next(p for p in cli_test.test_command.params if flag in p.opts)
        assert param.type is OPTIONS[keyword].type and param.default == OPTIONS[keyword].default


def test_the_largest_seed_gives_json_that_randqa_report_reads(tmp_path, capsys):
    # before: a seed of 400 digits ran, and `randqa report` refused its JSON (numbers of over 300 digits)
    from tests.conftest import run_cli_inprocess
    from randqa.engine.options import MAX_SEED_DIGITS

    largest = "9" * MAX_SEED_DIGITS
    code, _, err = run_cli_inprocess(capsys, "test", "pcg64", "--seed", largest + "9", "-n", "64K")
    assert code == 2 and err.count("\n") == 1 and f"a seed has at most {MAX_SEED_DIGITS} digits" in err, err
    code, _, err = run_cli_inprocess(capsys, "test", "pcg64", "--streams", "2", "--stream-seeds",
                                     f"spaced:{largest}9", "-n", "64K")
    assert code == 2 and err.count("\n") == 1 and "at most 256 digits" in err and len(err) < 300, err
    with pytest.raises(ValueError, match="a seed has at most"):
        randqa.test("pcg64", seed=int(largest + "9"), n="64K")
    path = tmp_path / "largest.json"
    code, _, err = run_cli_inprocess(capsys, "test", "pcg64", "--seed", largest, "--streams", "3", "--stream-seeds",
                                     f"spaced:{largest}", "-n", "64K", "--jobs", "1", "--json", str(path))
    assert code == 0, err
    members = json.loads(path.read_text())["source"]["streams"]["members"]
    assert max(len(str(m["seed"])) for m in members) > MAX_SEED_DIGITS
    assert run_cli_inprocess(capsys, "report", str(path), "-o", str(tmp_path / "r.html"))[0] == 0
