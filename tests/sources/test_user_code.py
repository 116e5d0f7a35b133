"""A user's code run as a source (randqa/sources/user_code.py): whatever it
raises, ``sys.exit()`` included, ends the run with one line naming the
user's object and exit 2 -- never a silent exit 0, an exit 1 that reads as
"a test failed", or an exit 3 that reads as randqa's own error."""

from __future__ import annotations

import os
import sys
import uuid

import numpy as np
import pytest

from conftest import run_cli_inprocess
from randqa.sources import open_source
from randqa.sources.base import read_full
from randqa.sources.python_objects import kind_of
from randqa.sources.user_code import resolve_user_object

EXITING_STREAMS = '''
import sys

def exits0(seed, k):
    sys.exit(0)

def exits1(seed, k):
    sys.exit(1)

def exits3(seed, k):
    sys.exit(3)
'''

def first_bytes(source, n: int = 64) -> bytes:
    buffer = bytearray(n)
    assert read_full(source, memoryview(buffer)) == n
    return bytes(buffer)


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


EXITING_CODE = '''
import sys
import numpy as np

class ExitsWhenMade:
    def __init__(self, seed):
        sys.exit(0)
    def random_raw(self, n):
        return np.zeros(n, np.uint64)

class ExitsWhenRead:
    def random_raw(self, n):
        sys.exit(1)

exits_when_read = ExitsWhenRead()

def bytes_then_exit(k):
    sys.exit(3)

def make(seed):
    sys.exit(1)
'''


@pytest.fixture
def user_folder(tmp_path, monkeypatch):
    """The current folder, holding the user's modules; the import path restored afterwards."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("name, says", [
    ("ExitsWhenMade", "raised SystemExit: 0"),
    ("exits_when_read", "SystemExit: 1"),
    ("bytes_then_exit", "raised SystemExit: 3"),
    ("make", "raised SystemExit: 1"),
])
@pytest.mark.parametrize("form", ["./{module}.py:{name}", "{module}:{name}"])
def test_sys_exit_in_any_user_code_is_one_line_and_exit_2(capsys, user_folder, form, name, says):
    module = f"exiting_{uuid.uuid4().hex[:8]}"
    (user_folder / f"{module}.py").write_text(EXITING_CODE)
    spec = form.format(module=module, name=name)
    status, _, err = run_cli_inprocess(capsys, "test", spec, "-n", "64K", "--suite", "quick")
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and spec in lines[0] and says in lines[0], err


def test_sys_exit_while_importing_the_users_file_is_one_line_and_exit_2(capsys, user_folder):
    (user_folder / "exits_on_import.py").write_text("import sys\nsys.exit(0)\n")
    status, _, err = run_cli_inprocess(capsys, "test", "./exits_on_import.py:Gen", "-n", "64K", "--suite", "quick")
    assert status == 2 and "importing ./exits_on_import.py raised SystemExit: 0" in err, err


def test_a_file_imports_its_neighbours_from_any_folder(user_folder, monkeypatch):
    code = user_folder / "code"
    code.mkdir()
    neighbour = f"words_{uuid.uuid4().hex[:8]}"
    (code / f"{neighbour}.py").write_text("WORD = 0x0123456789ABCDEF\n")
    (code / "gen.py").write_text(f"import numpy as np\nfrom {neighbour} import WORD\n"
                                 "def f(k):\n    return np.full(k // 8, WORD, '<u8').tobytes()\n")
    elsewhere = user_folder / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    with open_source("../code/gen.py:f") as source:
        assert first_bytes(source, 8) == (0x0123456789ABCDEF).to_bytes(8, "little")


def test_a_module_name_never_shadows_an_installed_one(user_folder):
    (user_folder / "json.py").write_text("dumps = 'the folder shadowed the standard library'\n")
    import json

    assert resolve_user_object("json:dumps") is json.dumps


def test_an_instance_in_a_module_is_read_from_a_copy(user_folder):
    module = f"instances_{uuid.uuid4().hex[:8]}"
    (user_folder / f"{module}.py").write_text("import numpy as np\nrng = np.random.SFC64(11)\n")
    with open_source(f"{module}:rng") as first, open_source(f"{module}:rng") as again:
        assert first_bytes(first) == first_bytes(again) == first_bytes(open_source("sfc64", seed=11))
        assert first.seed == 11 and first.split_method == "sequential"  # another process may import another state
    assert resolve_user_object(f"{module}:rng").random_raw() == np.random.SFC64(11).random_raw()


def test_a_function_is_f_of_k_unless_its_first_parameter_is_the_seed():
    def make(seed):
        return np.random.PCG64(seed)

    def my_bytes(k):
        return bytes(k)

    assert [kind_of(f) for f in (make, my_bytes, os.urandom, np.random.PCG64, np.random.PCG64(1))] == [
        "class", "callable", "callable", "class", "instance"]
    with open_source(make, seed=4) as made, open_source("pcg64", seed=4) as named:
        assert made.seed == 4 and first_bytes(made) == first_bytes(named)
