"""Bad input gets one line on stderr and exit code 2; short input is tested
and said to be short; nothing hangs or prints a traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest


def assert_one_line_error(result, *fragments: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in result.stderr


def test_empty_stdin(cli):
    assert_one_line_error(cli("test", "-", input=b""), "no data")


def test_missing_file(cli, tmp_path):
    assert_one_line_error(cli("test", str(tmp_path / "nope.bin")), "no such file")


def test_directory_as_input(cli, tmp_path):
    assert_one_line_error(cli("test", str(tmp_path)), "directory")


@pytest.mark.parametrize("size", ["banana", "0", "-5", "12Q", "1.5M", ""])
def test_nonsense_sizes(cli, size):
    assert_one_line_error(cli("test", "-", "-n", size, input=b"x" * 1000), "size")


def test_unknown_suite(cli):
    assert_one_line_error(cli("test", "-", "--suite", "quik", input=b"x" * 1000), "quick")


def test_unknown_test_in_selection(cli):
    assert_one_line_error(cli("test", "-", "--tests", "frequency,nosuch", input=b"x" * 1000), "nosuch")


def test_unknown_option(cli):
    assert_one_line_error(cli("test", "-", "--frobnicate", input=b"x"), "frobnicate")


@pytest.mark.parametrize(
    "content, problem",
    [
        (b"name = 'x'\n[[tests]\n", "not valid TOML"),
        (b"name = 'x'\n", "at least one [[tests]]"),
        (b"[[tests]]\ntest = 'nosuch'\n", "unknown test 'nosuch'"),
        (b"[[tests]]\ntest = 'chi_square'\nbits = 12\n", "bits must be 8 or 16"),
        (b"[[tests]]\ntest = 'chi_square'\nwidth = 8\n", "unknown parameter 'width'"),
        (b"[thresholds]\nfail = 0.5\nsuspicious = 0.1\n[[tests]]\ntest = 'runs'\n", "thresholds"),
    ],
)
def test_malformed_suite_file_names_file_and_problem(cli, tmp_path, content, problem):
    path = tmp_path / "bad.toml"
    path.write_bytes(content)
    assert_one_line_error(cli("test", "-", "--suite", str(path), input=b"x" * 1000), str(path), problem)


def test_short_stdin_is_tested_and_reported(cli):
    data = os.urandom(100_000)
    result = cli("test", "-", "-n", "1M", "--json", "-", input=data)
    doc = result.json()
    assert result.returncode == 0
    assert doc["bytes_tested"] == 100_000
    assert doc["input_ended_early"] is True
    assert any("before the 1048576 requested" in note for note in doc["notes"])
    assert "input ended after 100000 bytes" in result.stderr  # the table went to stderr


def test_too_little_data_is_insufficient_never_a_verdict(cli):
    result = cli("test", "-", "--json", "-", input=os.urandom(10))  # 80 bits: below every minimum
    doc = result.json()
    assert result.returncode == 0
    assert {t["verdict"] for t in doc["tests"]} == {"insufficient"}
    assert doc["verdict"] == "insufficient"
    assert all(t["needs"] for t in doc["tests"])


def test_size_limit_is_respected_with_suffixes(cli):
    result = cli("test", "-", "-n", "64K", "--json", "-", input=os.urandom(200_000))
    assert result.json()["bytes_tested"] == 65536
    assert result.json()["input_ended_early"] is False


def test_ctrl_c_prints_what_was_tested():
    # an endless slow pipe: randqa must stop on SIGINT and report the bytes it saw
    writer = subprocess.Popen(
        [sys.executable, "-c", "import os,sys,time\nwhile True:\n    sys.stdout.buffer.write(os.urandom(1<<16)); sys.stdout.flush(); time.sleep(0.01)"],
        stdout=subprocess.PIPE,
    )
    proc = subprocess.Popen([sys.executable, "-m", "randqa", "test", "-"], stdin=writer.stdout,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    writer.stdout.close()
    time.sleep(3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    writer.kill()
    writer.wait()
    assert proc.returncode == 130
    assert b"interrupted: results cover the first" in out
    assert b"frequency" in out and b"Traceback" not in err


def test_closed_output_pipe_is_reported(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(os.urandom(1 << 20))
    proc = subprocess.run(f"{sys.executable} -m randqa test {path} --suite quick --json - | true; "
                          "echo ${PIPESTATUS[0]} >&2", shell=True, executable="/bin/bash", capture_output=True, text=True)
    lines = proc.stderr.strip().splitlines()
    assert lines[-1] == "141"
    assert any("broken pipe" in line for line in lines[:-1])
    assert "Traceback" not in proc.stderr
