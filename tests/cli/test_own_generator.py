"""Your own generator in one line: ``randqa test ./mygen.py:NAME`` (or
``mygen:NAME``) run from a fresh folder, with nothing on PYTHONPATH, gives
the statistics ``randqa.test`` gives for the same object, in every form
``examples/mygen.py`` shows (a class with random_raw, a numpy BitGenerator
class and instance, an object with random_raw, ``f(k) -> bytes`` and
``make(seed)``).

Source: issue 34 ("testing your own generator from the command line ...
does not work as the API does": the module form needed PYTHONPATH=. and a
function was called with the seed, OverflowError).  The CLI runs in a
child process in a tmp folder holding a copy of examples/mygen.py; the API
reads a fresh import of the same file, so module-level state (the
instance, f(k)'s stream) starts where the child's does.  1 MiB, quick suite.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
import uuid
from pathlib import Path

import pytest

import randqa
from cli_harness import REPO, Run, assert_one_error_line, run

EXAMPLE = REPO / "examples" / "mygen.py"
QUICK = ["-n", "1M", "--suite", "quick"]


def statistics(document: dict) -> list[tuple[str, object, object]]:
    return [(t["name"], t["statistic"], t["p_value"]) for t in document["tests"]]


def fresh_example():
    """examples/mygen.py imported anew (its module-level objects at their first state)."""
    found = importlib.util.spec_from_file_location(f"mygen_{uuid.uuid4().hex}", EXAMPLE)
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module


@pytest.fixture
def fresh_folder(tmp_path) -> Path:
    """A folder holding only mygen.py, as a user's would."""
    folder = tmp_path / "fresh"
    folder.mkdir()
    shutil.copy(EXAMPLE, folder / "mygen.py")
    return folder


def run_randqa(*args: str, cwd: Path, timeout: float) -> Run:
    """randqa as its console script runs: -P, so the current folder is not on
    the import path by Python's doing (``python -m`` would put it there)."""
    return run([sys.executable, "-P", "-m", "randqa", *args], cwd=cwd, timeout=timeout)


def cli_document(folder: Path, spec: str, *args: str) -> dict:
    result = run_randqa("test", spec, *QUICK, *args, "--json", "a.json", cwd=folder, timeout=180)
    assert result.code == 0, result.err
    return json.loads((folder / "a.json").read_text())


#: (spec, the object's name in examples/mygen.py, --seed): every form, by path and by module name
FORMS = [
    ("./mygen.py:MyGen", "MyGen", 1),
    ("mygen:MyGen", "MyGen", 1),
    ("./mygen.py:my_bytes", "my_bytes", None),
    ("mygen:my_bytes", "my_bytes", None),
    ("./mygen.py:MyPCG", "MyPCG", 5),
    ("./mygen.py:rng", "rng", None),
    ("./mygen.py:my_splitmix", "my_splitmix", None),
    ("./mygen.py:make", "make", 3),
]


def test_the_help_shows_each_form_the_example_file_holds(capsys):
    from conftest import run_main

    assert run_main("test", "--help") == 0
    shown = set(re.findall(r"\bmygen(?:\.py)?:(\w+)", capsys.readouterr().out))
    assert shown == {name for _, name, _ in FORMS}
    example = fresh_example()
    assert all(hasattr(example, name) for name in shown)


@pytest.mark.parametrize("spec, name, seed", FORMS)
def test_the_cli_in_a_fresh_folder_gives_the_apis_statistics(fresh_folder, monkeypatch, spec, name, seed):
    monkeypatch.delenv("PYTHONPATH", raising=False)  # the child finds mygen from its folder alone
    seed_args = [] if seed is None else ["--seed", str(seed)]
    cli = cli_document(fresh_folder, spec, *seed_args)
    api = randqa.test(getattr(fresh_example(), name), "1M", suite="quick", seed=seed).to_json()
    assert cli["bytes_tested"] == api["bytes_tested"] == 1 << 20
    assert statistics(cli) == statistics(api)
    assert cli["source"]["name"] == spec and cli["source"].get("seed") == api["source"].get("seed")


def test_the_api_takes_the_clis_spec(fresh_folder, monkeypatch):
    monkeypatch.chdir(fresh_folder)
    by_spec = randqa.test("./mygen.py:MyGen", "1M", suite="quick", seed=1)
    by_object = randqa.test(fresh_example().MyGen, "1M", suite="quick", seed=1)
    assert by_spec.name == "./mygen.py:MyGen"
    assert statistics(by_spec.to_json()) == statistics(by_object.to_json())


@pytest.mark.parametrize("spec, args, says", [
    ("./mygen.py:my_bytes", ["--seed", "1"], "not to a callable source f(k) -> bytes"),
    ("./mygen.py:rng", ["--seed", "1"], "not to a BitGenerator instance"),
    ("./nothere.py:MyGen", [], "no such file ./nothere.py"),
    ("./mygen.py:Nope", [], "has no attribute 'Nope'"),
    ("mygen:GAMMA", [], "is a uint64; randqa tests a class constructed with the seed"),
])
def test_a_wrong_spec_is_one_line_and_exit_2(fresh_folder, spec, args, says):
    result = run_randqa("test", spec, *QUICK, *args, cwd=fresh_folder, timeout=120)
    assert result.code == 2
    assert_one_error_line(result, spec, says)


def test_a_checkpoint_names_no_file_of_code_to_run(tmp_path, capsys, monkeypatch):
    # a spec by path is code as module:attr is: resume refuses to import it from a checkpoint
    from conftest import rewrite_checkpoint, run_main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "planted.py").write_text("import pathlib\npathlib.Path(__file__).with_name('ran').touch()\n"
                                         "Gen = None\n")
    assert run_main("test", "pcg64", "-n", "64K", "--seed", "1", "--suite", "quick", "--jobs", "1",
                    "--checkpoint", "c.ckpt") == 0
    rewrite_checkpoint("c.ckpt", lambda meta, arrays: meta["run"].update(source="./planted.py:Gen"))
    capsys.readouterr()
    assert run_main("resume", "c.ckpt") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "its run tests ./planted.py:Gen, code randqa would import and run" in err
    assert not (tmp_path / "ran").exists()
