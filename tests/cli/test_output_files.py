"""Result files are never lost or corrupted: written whole or not at all
(randqa.files.write_atomically: a temporary file in the same folder, fsync,
rename), before the table is printed, to paths checked before the first
byte is read.

Source: the failure modes are POSIX's: rename(2) replaces a directory entry
atomically (and replaces a symlink rather than following it), write(2) on a
full filesystem fails with ENOSPC, a write to a pipe whose reader has exited
fails with EPIPE.  Each case runs against the real failure: a full tmpfs
(root only, else skipped), a read-only remount, `| true`, /proc/self/mem.
Minimum data: 64 KiB of a generator per run (the results' content does not
matter here, only that they arrive whole).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import threading
from pathlib import Path

import pytest

from cli_harness import (assert_one_error_line, fill_filesystem, importable, is_root, randqa, randqa_command,
                         remount_read_only, small_tmpfs)
from randqa.files import write_atomically

QUICK = ["--suite", "quick", "-n", "64K", "--seed", "1"]
OLD = '{"old": "results of an earlier run"}\n'


def leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.startswith(".randqa-")]


@pytest.mark.parametrize("option", ["--json", "--html"])
def test_full_disk_keeps_the_previous_file(tmp_path, option):
    with small_tmpfs(tmp_path / "mnt") as mnt:
        target = mnt / "result"
        target.write_text(OLD)
        fill_filesystem(mnt)
        result = randqa("test", "pcg64", *QUICK, option, str(target))
        assert result.code == 2
        assert_one_error_line(result, str(target), "No space left on device", "previous file is unchanged")
        assert target.read_text() == OLD
        assert leftovers(mnt) == []


def test_write_atomically_on_a_full_disk_raises_and_changes_nothing(tmp_path):
    with small_tmpfs(tmp_path / "mnt") as mnt:
        target = mnt / "r.json"
        target.write_text(OLD)
        fill_filesystem(mnt)
        with pytest.raises(OSError):
            write_atomically(str(target), b"x" * (1 << 20))
        assert target.read_text() == OLD
        assert leftovers(mnt) == []


def test_symlink_at_the_target_is_replaced_not_followed(tmp_path):
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("not randqa's to overwrite")
    link = tmp_path / "r.json"
    link.symlink_to(elsewhere)
    result = randqa("test", "pcg64", *QUICK, "--json", str(link))
    assert result.code == 0, result.err
    assert elsewhere.read_text() == "not randqa's to overwrite"
    assert not link.is_symlink()
    assert json.loads(link.read_text())["source"]["name"] == "pcg64"


def test_a_pipe_or_device_at_the_target_is_written_not_replaced(tmp_path):
    """A rename over /dev/null would make it a file (as root); a named pipe
    stands for both: it must stay a pipe and its reader get the JSON."""
    fifo = tmp_path / "results.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    result = randqa("test", "pcg64", *QUICK, "--json", str(fifo))
    reader.join(timeout=60)
    assert result.code == 0, result.err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert json.loads(received[0])["bytes_tested"] == 65536
    assert leftovers(tmp_path) == []


def test_closed_stdout_still_writes_the_files(tmp_path):
    # the table is printed last: `| true` has exited by then, the files are already whole
    command = " ".join(randqa_command("test", "pcg64", *QUICK, "--json", "j.json", "--html", "h.html"))
    proc = subprocess.run(f"{command} | true; echo ${{PIPESTATUS[0]}} >&2", shell=True, executable="/bin/bash",
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.stderr.strip().splitlines()[-1] == "141"
    assert "broken pipe" in proc.stderr and "Traceback" not in proc.stderr
    assert json.loads((tmp_path / "j.json").read_text())["bytes_tested"] == 65536
    assert (tmp_path / "h.html").read_text().rstrip().endswith("</html>")


def refused_before_reading(args: list[str], cwd: Path | None = None) -> tuple[int, str]:
    """Run randqa with a stdin that stays open and empty, so a run that began
    reading would wait forever; return its exit code and stderr."""
    proc = subprocess.Popen(randqa_command(*args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=cwd)
    try:
        _, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"randqa {' '.join(args)} started reading instead of refusing at once")
    return proc.returncode, err


def _check_refusal(code: int, err: str, expect: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1, err
    assert lines[0].startswith("randqa: error: --json") and expect in lines[0], lines[0]


def test_directory_as_output_is_refused_before_reading(tmp_path):
    (tmp_path / "a-folder").mkdir()
    _check_refusal(*refused_before_reading(["test", "-", "--json", str(tmp_path / "a-folder")]), "is a directory")


def test_missing_folder_is_refused_before_reading(tmp_path):
    target = tmp_path / "missing" / "r.json"
    _check_refusal(*refused_before_reading(["test", "-", "--json", str(target)]), "does not exist")


def test_read_only_folder_is_refused_before_reading(tmp_path):
    if is_root():  # permissions do not stop root: a read-only filesystem does
        with small_tmpfs(tmp_path / "ro") as folder:
            remount_read_only(folder)
            _check_refusal(*refused_before_reading(["test", "-", "--json", str(folder / "r.json")]),
                           "Read-only file system")
    else:
        folder = tmp_path / "ro"
        folder.mkdir()
        folder.chmod(0o555)
        _check_refusal(*refused_before_reading(["test", "-", "--json", str(folder / "r.json")]), "cannot write in folder")


def test_html_to_stdout_is_refused(tmp_path):
    result = randqa("test", "pcg64", *QUICK, "--html", "-", cwd=tmp_path)
    assert result.code == 2
    assert_one_error_line(result, "--html -")
    assert not (tmp_path / "-").exists()


def test_one_file_named_twice_is_refused(tmp_path):
    result = randqa("test", "pcg64", *QUICK, "--json", "X", "--html", "X", cwd=tmp_path)
    assert result.code == 2
    assert_one_error_line(result, "--json and --html both name X")
    assert not (tmp_path / "X").exists()


def test_report_onto_its_own_input_is_refused(tmp_path):
    saved = tmp_path / "a.json"
    assert randqa("test", "pcg64", *QUICK, "--json", str(saved)).code == 0
    before = saved.read_bytes()
    result = randqa("report", str(saved), "-o", str(saved))
    assert result.code == 2
    assert_one_error_line(result, "is also an input")
    assert saved.read_bytes() == before


def test_compare_checks_every_source_before_the_first_run(tmp_path):
    # '-' comes first and its stdin never ends: only a check of every source
    # before any run can report the unreadable second one
    code, err = refused_before_reading(["compare", "-", "/proc/self/mem", "--no-html", "--json", "c.json"], tmp_path)
    assert code == 2
    assert "/proc/self/mem" in err and "Traceback" not in err
    assert not (tmp_path / "c.json").exists()


FAILING_GENERATOR = '''
import numpy as np

class BreaksLater:
    """Fine for its first few calls, then random_raw fails."""
    def __init__(self, seed):
        self.inner = np.random.PCG64(seed)
        self.calls = 0
    def random_raw(self, n):
        self.calls += 1
        if self.calls > 4:
            raise RuntimeError("the device went away")
        return self.inner.random_raw(n)
'''


def test_compare_keeps_the_runs_finished_before_a_source_fails(tmp_path):
    (tmp_path / "breaking_generators.py").write_text(FAILING_GENERATOR)
    result = randqa("compare", "pcg64", "breaking_generators:BreaksLater", "-n", "1M", "--no-progressive",
                    "--suite", "quick", "--speed-repeats", "1", "--seed", "3", "--no-html", "--json", "c.json",
                    cwd=tmp_path, env=importable(tmp_path))
    assert result.code == 2
    assert_one_error_line(result, "breaking_generators:BreaksLater", "RuntimeError: the device went away")
    doc = json.loads((tmp_path / "c.json").read_text())
    assert [run["source"]["name"] for run in doc["runs"]] == ["pcg64"]
    assert doc["runs"][0]["bytes_tested"] == 1 << 20
    assert "pcg64" in result.out  # the finished run's table is printed too


def test_files_follow_the_umask_and_keep_an_existing_mode(tmp_path):
    # before: every file was made 0644, whatever the umask, and an existing 0600 one became 0644;
    # the HTML goes through the same write_atomically as these two (matplotlib would cost seconds here)
    kept = tmp_path / "kept.json"
    kept.write_text(OLD)
    kept.chmod(0o640)
    result = randqa("test", "pcg64", *QUICK, "--jobs", "1", "--json", str(kept), "--checkpoint", "new.ckpt", cwd=tmp_path, preexec_fn=lambda: os.umask(0o077))
    assert result.code == 0, result.err
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()}
    assert modes == {"kept.json": 0o640, "new.ckpt": 0o600}
    assert json.loads(kept.read_text())["bytes_tested"] == 65536
