"""A user's code run as a source (randqa/sources/user_code.py): whatever it
raises, ``sys.exit()`` included, ends the run with one line naming the
user's object and exit 2 -- never a silent exit 0, an exit 1 that reads as
"a test failed", or an exit 3 that reads as randqa's own error."""

from __future__ import annotations

import pytest

from conftest import run_cli_inprocess

EXITING_STREAMS = '''
import sys

def exits0(seed, k):
    sys.exit(0)

def exits1(seed, k):
    sys.exit(1)

def exits3(seed, k):
    sys.exit(3)
'''

STREAMS = ["pcg64", "--streams", "2", "--stream-seeds"]


@pytest.fixture
def exiting(tmp_path, monkeypatch) -> str:
    """The module of stream functions that call sys.exit(), importable, the current folder a scratch one."""
    (tmp_path / "exiting_streams.py").write_text(EXITING_STREAMS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return "exiting_streams"


@pytest.mark.parametrize("code", [0, 1, 3])
@pytest.mark.parametrize("command", [
    ["test", *STREAMS, "{f}", "-n", "64K", "--suite", "quick"],
    ["generate", *STREAMS, "{f}", "-n", "64K", "-o", "out.bin"],
    ["compare", *STREAMS, "{f}", "-n", "64K", "--suite", "quick", "--no-predict", "--speed-repeats", "1"],
], ids=["test", "generate", "compare"])
def test_sys_exit_in_a_stream_seeds_function_is_one_line_and_exit_2(capsys, exiting, command, code):
    function = f"{exiting}:exits{code}"
    status, out, err = run_cli_inprocess(capsys, *[part.format(f=function) for part in command])
    assert status == 2, (status, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("randqa: error: "), err
    assert function in lines[0] and f"raised SystemExit: {code}" in lines[0], lines[0]
