"""`randqa test` as a user runs it (cli/test.py).  Bad input gets one line on
stderr and exit code 2; short input is tested and said to be short;
nothing hangs or prints a traceback.  ASCII bit text (--format bits, as
NIST STS reads it) reproduces the worked examples of NIST SP 800-22 Rev 1a
2.1, 2.3 and 2.4 and counts every bit.  Every backend runs through it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from conftest import run_cli_inprocess
from nist_reference import EPSILON_128, pi_bits
from randqa.sources.backends import backend_names
from randqa.sources.runtimes import LIVE_SUFFIX


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


def test_ctrl_c_prints_what_was_tested(tmp_path):
    # an endless slow pipe: randqa must stop on SIGINT and report the bytes it saw;
    # the signal comes once randqa has read 16 MiB, however loaded the machine is
    written = tmp_path / "blocks"
    writer = subprocess.Popen(
        [sys.executable, "-c", "import os,sys,time\nn = 0\nwhile True:\n    sys.stdout.buffer.write(os.urandom(1<<16)); "
         f"sys.stdout.flush(); n += 1; open({str(written)!r}, 'w').write(str(n)); time.sleep(0.01)"],
        stdout=subprocess.PIPE,
    )
    proc = subprocess.Popen([sys.executable, "-m", "randqa", "test", "-"], stdin=writer.stdout,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    writer.stdout.close()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and int(written.read_text() or 0 if written.exists() else 0) < 256:
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
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


def test_nearly_constant_input_writes_valid_json(cli, tmp_path):
    path = tmp_path / "one.bin"
    path.write_bytes(bytes(1000) + b"\xff")
    result = cli("test", str(path), "--suite", "quick", "--json", str(tmp_path / "o.json"))
    assert result.returncode in (0, 1) and "Traceback" not in result.stderr
    assert (tmp_path / "o.json").read_text().startswith("{")


def test_unwritable_json_path_is_refused_before_the_run(cli):
    result = cli("test", "pcg64", "-n", "1M", "--json", "/nonexistent-folder/x.json")
    assert result.returncode == 2 and result.stderr.count("\n") == 1


def test_option_mistakes_are_refused(cli):
    for args in (["--tests", ","], ["--low-bits", "2"], ["--seed-sweep", "2000", "-n", "1M"]):
        result = cli("test", "pcg64", *args)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, args


def test_sequences_refused_for_a_suite_without_them(cli):
    result = cli("test", "-", "--sequences", "3", input=b"x" * 100)
    assert result.returncode == 2 and "sequences" in result.stderr


EPSILON_100 = pi_bits(100)


def test_pi_bits_match_the_standard_text():
    # SP 800-22 2.1.8 prints this epsilon; checking its head guards pi_bits itself
    assert EPSILON_100.startswith("1100100100001111110110101010001000100001011010001100001000110100")
    assert len(EPSILON_100) == 100


def by_name(result, name):
    return next(t for t in result.json()["tests"] if t["name"] == name)


@pytest.fixture
def sts_suite(tmp_path):
    """frequency and runs with SP 800-22's p-values (the suites' default is the exact binomial tail)."""
    path = tmp_path / "sts.toml"
    path.write_text('[[tests]]\ntest = "frequency"\npvalues = "sts"\n[[tests]]\ntest = "runs"\npvalues = "sts"\n')
    return str(path)


@pytest.mark.parametrize("test_name, expected", [("frequency", 0.109599), ("runs", 0.500798)])
def test_nist_100_bit_examples(cli, sts_suite, test_name, expected):
    result = cli("test", "-", "--format", "bits", "--suite", sts_suite, "--tests", test_name, "--json", "-",
                 input=EPSILON_100.encode())
    assert result.returncode == 0, result.stderr
    entry = by_name(result, test_name)
    assert f"{entry['p_value']:.6f}" == f"{expected:.6f}"
    assert entry["verdict"] == "pass"
    assert result.json()["bits_tested"] == 100


def test_nist_10_bit_frequency_example_is_insufficient(cli, sts_suite):
    # SP 800-22 2.1.4: epsilon = 1011010101 gives 0.527089; the standard asks
    # for n >= 100, so randqa shows the p-value but gives no verdict
    result = cli("test", "-", "--format", "bits", "--suite", sts_suite, "--tests", "frequency", "--json", "-",
                 input=b"1011010101\n")
    assert result.returncode == 0, result.stderr
    entry = by_name(result, "frequency")
    assert f"{entry['p_value']:.6f}" == "0.527089"
    assert entry["verdict"] == "insufficient"
    assert "100 bits" in entry["needs"]


def test_bits_not_a_multiple_of_eight_count_every_bit(cli):
    # 103 bits: the last 7 are the tail that does not fill a byte
    bits = EPSILON_100 + "101"
    result = cli("test", "-", "--format", "bits", "--tests", "frequency", "--json", "-", input=bits.encode())
    ones = bits.count("1")
    s_obs = abs(2 * ones - 103) / np.sqrt(103)
    assert by_name(result, "frequency")["statistic"] == pytest.approx(s_obs, rel=1e-12)
    assert result.json()["bits_tested"] == 103


def test_bits_format_rejects_other_characters(cli):
    result = cli("test", "-", "--format", "bits", input=b"0101x0101")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "'x'" in result.stderr


def test_cli_runs_the_examples_from_bit_text(cli, tmp_path):
    suite = tmp_path / "examples.toml"
    suite.write_text('name = "examples"\n[[tests]]\ntest = "longest_run"\n[[tests]]\ntest = "block_frequency"\nM = 10\n')
    out = cli("test", "-", "--format", "bits", "--suite", str(suite), "--json", "-", input=EPSILON_128.encode())
    assert out.returncode == 0, out.stderr
    results = {t["name"]: t for t in out.json()["tests"]}
    assert results["longest_run"]["p_value"] == pytest.approx(0.180609, abs=5e-7)
    assert out.json()["bits_tested"] == 128


HAVE_LIBCRYPTO = ctypes.util.find_library("crypto") is not None


def test_every_backend_runs_through_randqa_test_json(capsys, tmp_path):
    for name in backend_names():
        if name == "openssl" and not HAVE_LIBCRYPTO:
            continue
        if name.endswith(LIVE_SUFFIX):
            continue  # the real runtimes: tests/sources/test_runtime_*.py check them against their C twins
        out = tmp_path / f"{name}.json"
        code, _, err = run_cli_inprocess(capsys, "test", name, "-n", "1M", "--seed", "1", "--json", str(out))
        assert code in (0, 1), (name, err)
        report = json.loads(out.read_text())
        assert report["source"]["name"] == name and report["bytes_tested"] == 1 << 20
        if report["source"]["reproducible"]:
            assert report["source"]["seed"] == 1
        else:
            assert report["source"]["seed_ignored"] == 1
