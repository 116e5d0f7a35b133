"""The report commands (cli/reports.py): `randqa compare` refuses an unknown
source and option mistakes in one line, before any work and without
writing a file.
"""

from __future__ import annotations

import pytest

from conftest import run_main


pytestmark = pytest.mark.usefixtures("in_tmp_folder")


GOOD = "pcg64"


def test_compare_refuses_unknown_source_before_any_work(tmp_path, capsys):
    assert run_main("compare", GOOD, "no-such-generator", "--json", str(tmp_path / "c.json")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no-such-generator" in err
    assert not (tmp_path / "c.json").exists()


@pytest.mark.parametrize("args, problem", [
    (["--no-progressive", "--min", "1M"], "only with --progressive"),
    (["--progressive", "--min", "1M", "--max", "64K"], "--min (1048576) is larger"),
    (["--html", "/nonexistent-folder/r.html"], "does not exist"),
    (["-", "-"], "stdin"),
])
def test_compare_usage_errors(capsys, args, problem):
    assert run_main("compare", GOOD, *args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and problem in err
