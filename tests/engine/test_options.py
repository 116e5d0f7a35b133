"""randqa.engine.options: each ranged option declared once, and the CLI and
the API refusing a bad value with the same line (click's)."""

from __future__ import annotations

import pytest

from randqa.cli import reports as cli_reports
from randqa.cli import test as cli_test
from randqa.engine.options import OPTIONS, check_value
from randqa.errors import UsageError


@pytest.mark.parametrize("command", [cli_test.test_command, cli_reports.compare_command])
def test_the_commands_take_their_ranges_from_the_table(command):
    flags = {flag: option for option in OPTIONS.values() for flag in option.opts}
    # a size (--interleave) is parsed by its callback; its range is checked with the other options
    ranged = [param for param in command.params if any(flag in flags for flag in param.opts) and param.callback is None]
    assert ranged
    for param in ranged:
        assert param.type is flags[param.opts[0]].type, param.opts


@pytest.mark.parametrize("name, value, line", [
    ("jobs", 0, "Invalid value for '-j' / '--jobs': 0 is not in the range 1<=x<=256."),
    ("word_bits", 12, "Invalid value for '--word-bits': '12' is not one of '8', '16', '32', '64'."),
    ("positions", 4097, "Invalid value for '--positions': 4097 is not in the range 1<=x<=4096."),
])
def test_a_bad_value_gets_clicks_line(name, value, line):
    with pytest.raises(UsageError) as info:
        check_value(name, value)
    assert str(info.value) == line


def test_good_values_and_none_pass():
    for name, value in (("jobs", 256), ("word_bits", 64), ("format", "bits"), ("seed", None)):
        check_value(name, value)
