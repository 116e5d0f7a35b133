"""``--checkpoint`` and ``randqa resume`` as a user meets them: the client
killed with SIGKILL in the middle of a run on workers, or stopped by Ctrl-C
sent to its whole process group (as a terminal does), resumes to the JSON of
an uninterrupted run; damaged checkpoints, checkpoints of another run and
segment sizes the suite cannot be split at exit 2 with one line.  What a
checkpoint may not choose: where the results go unseen (paths it holds are
shown on the "resuming from" line and checked before the run), code to
import (a `module:attr` source), a run that can only fail at its final save
(a read-only folder is refused before it starts: a real read-only tmpfs,
root only).  Minimum data: 64 KiB of pcg64 for those.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_harness import remount_read_only, small_tmpfs
from conftest import rewrite_checkpoint, run_main
from schema_check import assert_valid_document

from randqa.engine.checkpoint import read_checkpoint
from randqa.errors import InputError

#: long enough that a stop sent once segments are under way lands mid-run
RUN = ["test", "pcg64", "-n", "4G", "--seed", "3", "--suite", "quick", "--no-progress"]
TIMEOUT_S = 240


def randqa(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "randqa", *args], input=stdin, capture_output=True,
                          timeout=TIMEOUT_S)


def comparable(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k not in ("elapsed_s", "execution", "command", "date")}


@pytest.fixture(scope="module")
def uninterrupted() -> dict:
    done = randqa(*RUN, "--jobs", "1", "--json", "-")
    assert done.returncode == 0, done.stderr
    return comparable(json.loads(done.stdout))


def _start(args: list[str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "randqa", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)


def _wait_for_progress(checkpoint: Path, process: subprocess.Popen, at_least: int) -> int:
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline and process.poll() is None:
        if checkpoint.exists():
            try:
                position = read_checkpoint(str(checkpoint)).progress.position
            except InputError:
                position = 0
            if position >= at_least:
                return position
        time.sleep(0.05)
    raise AssertionError(f"no checkpoint of {at_least} bytes: {process.stderr.read().decode() if process.stderr else ''}")


def _children_of(pgid: int) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getpgid(int(entry)) == pgid:
                    pids.append(int(entry))
            except ProcessLookupError:
                pass
    return pids


def test_kill_9_of_the_client_then_resume(tmp_path, uninterrupted):
    checkpoint = tmp_path / "run.ckpt"
    out = tmp_path / "out.json"
    process = _start([*RUN, "--jobs", "2", "--segment", "64M", "--checkpoint", str(checkpoint),
                      "--checkpoint-every", "0", "--json", str(out)])
    try:
        _wait_for_progress(checkpoint, process, 128 << 20)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        # the worker processes notice their parent is gone and end
        deadline = time.monotonic() + 30
        while _children_of(process.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _children_of(process.pid) == []
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    saved = read_checkpoint(str(checkpoint))
    assert 0 < saved.progress.position < 4 << 30
    assert not out.exists()
    resumed = randqa("resume", str(checkpoint), "--jobs", "2")
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming from" in resumed.stderr.decode()
    doc = json.loads(out.read_text())  # written where the run would have written it
    assert assert_valid_document(doc) == "run"
    assert doc["execution"]["resumed_at_bytes"] == saved.progress.position
    assert comparable(doc) == uninterrupted


def test_ctrl_c_then_the_same_command_resumes(tmp_path, uninterrupted):
    checkpoint = tmp_path / "run.ckpt"
    args = [*RUN, "--jobs", "2", "--segment", "64M", "--checkpoint", str(checkpoint), "--json", "-"]
    process = subprocess.Popen([sys.executable, "-m", "randqa", *args, "--checkpoint-every", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        first_line = process.stderr.readline().decode()  # the cluster has started
        assert "Dask dashboard" in first_line, first_line
        _wait_for_progress(checkpoint, process, 128 << 20)  # segments are under way
        os.killpg(process.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the workers get it too
        stdout, stderr = process.communicate(timeout=TIMEOUT_S)
        stderr = first_line.encode() + stderr
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if process.returncode == 0:
        pytest.skip("the run finished before Ctrl-C (a very fast machine)")
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr.decode()
    stopped = json.loads(stdout)
    assert stopped["interrupted"] and stopped["bytes_tested"] == read_checkpoint(str(checkpoint)).progress.position
    again = randqa(*args)
    assert again.returncode == 0, again.stderr
    assert comparable(json.loads(again.stdout)) == uninterrupted


def test_checkpoint_refusals_are_one_line(tmp_path):
    checkpoint = tmp_path / "run.ckpt"
    small = ["test", "pcg64", "-n", "2M", "--seed", "1", "--suite", "quick", "--jobs", "1", "--checkpoint",
             str(checkpoint)]
    assert randqa(*small).returncode == 0
    data = checkpoint.read_bytes()
    failures = {}
    checkpoint.write_bytes(data[: len(data) // 3])
    failures["truncated"] = randqa("resume", str(checkpoint))
    checkpoint.write_bytes(data[:100] + bytes(64) + data[164:])
    failures["corrupt"] = randqa("resume", str(checkpoint))
    checkpoint.write_bytes(data)
    failures["another suite"] = randqa(*small[:-2], "--suite", "standard", "--checkpoint", str(checkpoint))
    failures["another seed"] = randqa(*[a if a != "1" else "2" for a in small])
    failures["missing"] = randqa("resume", str(tmp_path / "nothing.ckpt"))
    failures["segment"] = randqa("test", "pcg64", "-n", "1G", "--suite", "standard", "--segment", "100M", "--jobs", "2")
    for name, result in failures.items():
        lines = result.stderr.decode().strip().splitlines()
        assert result.returncode == 2 and len(lines) == 1 and lines[0].startswith("randqa: error: "), (name, lines)
    assert "truncated or corrupt" in failures["truncated"].stderr.decode()
    assert "suite 'quick', not 'standard'" in failures["another suite"].stderr.decode()
    assert "seed 1, not 2" in failures["another seed"].stderr.decode()
    assert "--segment 100 MiB is not a multiple of 3840 KiB" in failures["segment"].stderr.decode()


def test_a_comparison_resumes_from_its_checkpoint(tmp_path):
    checkpoint = tmp_path / "compare.ckpt"
    first = tmp_path / "first.json"
    args = ["compare", "pcg64", "minstd", "-n", "4M", "--seed", "1", "--suite", "quick", "--no-html",
            "--speed-repeats", "1", "--jobs", "1", "--checkpoint", str(checkpoint), "--no-progress"]
    done = randqa(*args, "--json", str(first))
    assert done.returncode == 0, done.stderr
    again = randqa("resume", str(checkpoint), "--jobs", "1", "--json", "-")
    assert again.returncode == 0, again.stderr

    def runs(doc):
        return [{k: v for k, v in run.items() if k not in ("elapsed_s", "execution", "speed_mb_s", "speed_bytes",
                                                           "generation_mb_s", "lengths", "command", "date")}
                for run in doc["runs"]]

    assert runs(json.loads(again.stdout)) == runs(json.loads(first.read_text()))


# ---------------------------------------------------------------- what a checkpoint may not choose

SMALL = ["test", "pcg64", "-n", "64K", "--seed", "1", "--suite", "quick", "--jobs", "1"]


@pytest.fixture
def small_checkpoint(tmp_path, capsys) -> Path:
    checkpoint = tmp_path / "run.ckpt"
    assert run_main(*SMALL, "--checkpoint", str(checkpoint)) == 0
    capsys.readouterr()
    return checkpoint


def test_outputs_from_the_checkpoint_are_shown_and_checked_before_the_run(tmp_path, capsys, small_checkpoint):
    # before: a crafted outputs.json made resume replace that file, without saying where it wrote
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    rewrite_checkpoint(str(small_checkpoint), lambda meta, arrays: meta["outputs"].update(
        json=str(elsewhere / "victim.json")))
    assert run_main("resume", str(small_checkpoint)) == 0
    assert capsys.readouterr().err == (f"randqa: resuming from {small_checkpoint} (finished); writing its JSON to "
                                       f"{elsewhere / 'victim.json'}, where the run wrote it (--json and --html "
                                       "choose others)\n")
    rewrite_checkpoint(str(small_checkpoint), lambda meta, arrays: meta["outputs"].update(
        json=str(tmp_path / "missing" / "r.json")))
    assert run_main("resume", str(small_checkpoint)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--json" in err and "missing/r.json: folder" in err and "does not exist" in err
    rewrite_checkpoint(str(small_checkpoint), lambda meta, arrays: meta["outputs"].update(
        json=str(tmp_path / "\x1b[2J.json")))
    assert run_main("resume", str(small_checkpoint)) == 0
    assert "writing its JSON to '" + str(tmp_path) + "/\\x1b[2J.json'" in capsys.readouterr().err  # escaped
    assert (tmp_path / "\x1b[2J.json").exists()


def test_a_checkpoint_names_no_code_to_run(tmp_path, capsys, small_checkpoint, monkeypatch):
    (tmp_path / "planted.py").write_text("import pathlib\npathlib.Path(__file__).with_name('ran').touch()\n"
                                         "Gen = None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    rewrite_checkpoint(str(small_checkpoint), lambda meta, arrays: meta["run"].update(source="planted:Gen"))
    assert run_main("resume", str(small_checkpoint)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "its run tests planted:Gen, code randqa would import and run" in err
    assert not (tmp_path / "ran").exists()


def test_a_relative_json_path_is_where_the_run_meant_it_not_in_the_resumes_folder(tmp_path, capsys, monkeypatch):
    # before: resume from another folder wrote (over) that folder's file of the same name
    started, elsewhere = tmp_path / "started", tmp_path / "elsewhere"
    started.mkdir()
    elsewhere.mkdir()
    (elsewhere / "r.json").write_text("unrelated")
    monkeypatch.chdir(started)
    assert run_main(*SMALL, "--checkpoint", "run.ckpt", "--json", "r.json") == 0
    (started / "r.json").unlink()
    monkeypatch.chdir(elsewhere)
    assert run_main("resume", str(started / "run.ckpt")) == 0
    assert (elsewhere / "r.json").read_text() == "unrelated"
    assert json.loads((started / "r.json").read_text())["bytes_tested"] == 65536
    # an older checkpoint's relative path: taken from the checkpoint's folder
    rewrite_checkpoint(str(started / "run.ckpt"), lambda meta, arrays: meta["outputs"].update(json="old.json"))
    assert run_main("resume", str(started / "run.ckpt")) == 0
    assert (started / "old.json").exists() and not (elsewhere / "old.json").exists()
    # --json given to resume: from the current folder, as for any command
    assert run_main("resume", str(started / "run.ckpt"), "--json", "mine.json") == 0
    assert (elsewhere / "mine.json").exists()


def test_a_checkpoint_of_a_module_attr_scheme_names_the_command_that_continues_it(tmp_path, capsys, monkeypatch):
    # before: it suggested `randqa test seeds:make ... --checkpoint`, a source that does not exist
    (tmp_path / "seeds.py").write_text("import numpy as np\n"
                                       "def make(seed, k):\n    return [np.random.PCG64(seed + i) for i in range(k)]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    checkpoint = tmp_path / "s.ckpt"
    command = [*SMALL, "--streams", "2", "--stream-seeds", "seeds:make", "--checkpoint", str(checkpoint)]
    assert run_main(*command) == 0
    rewrite_checkpoint(str(checkpoint), lambda meta, arrays: meta.update(command=None))
    capsys.readouterr()
    assert run_main("resume", str(checkpoint)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    suggested = err.split("`")[1]
    assert suggested == f"randqa test pcg64 --streams 2 --stream-seeds seeds:make ... --checkpoint {checkpoint}"
    # the suggestion, with the run's own options for its '...', continues the run
    assert run_main(*suggested.split()[1:3], *SMALL[2:], *suggested.split()[3:7],
                    "--checkpoint", str(checkpoint)) == 0
    assert "resuming from" in capsys.readouterr().err


def test_resume_refuses_a_read_only_folder_before_running(tmp_path, capsys):
    # before: the whole remaining run ran, then the final save failed (exit 2, no JSON: the session lost)
    with small_tmpfs(tmp_path / "mnt", "4m") as folder:
        checkpoint = folder / "run.ckpt"
        assert run_main(*SMALL, "--checkpoint", str(checkpoint), "--json", str(tmp_path / "r.json")) == 0
        remount_read_only(folder)
        capsys.readouterr()
        started = time.monotonic()
        assert run_main("resume", str(checkpoint), "--json", str(tmp_path / "again.json")) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "checkpoint " in err and "Read-only file system" in err
        # before, the whole remaining run ran first; the bound is for a busy machine, far below a run
        assert time.monotonic() - started < 60 and not (tmp_path / "again.json").exists()
