"""Exit code 1 means a failed test and nothing else: every error is one line
on stderr and exit 2, anything unforeseen one line and exit 3 (its
traceback with --debug or RANDQA_DEBUG=1), never a traceback by default.

Source: the README's exit-code table.  Each case is the real failure, in a
child process: a user generator that raises, returns floats, runs dry or
returns -1; stdout on /dev/full; stderr closed; a report nested 100,000
deep, unbounded (/dev/zero) or naming a source with mathtext '$'; sizes
past 2^62 or in full-width digits; a seed sweep of an unseedable source.
Overflowing suite parameters are in tests/battery/test_memory_bounds.py.
Minimum data: 64 KiB per run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from cli_harness import assert_one_error_line, importable, randqa, randqa_command, run
from conftest import assert_report_refuses
from randqa.cli import main

QUICK = ["--suite", "quick", "-n", "64K", "--seed", "1"]

BAD_GENERATORS = '''
import importlib
import numpy as np
from randqa.sources.base import Source

class RaisesAtStart:
    def __init__(self, seed):
        raise RuntimeError("no entropy device")

class ReturnsText:
    def __init__(self, seed):
        pass
    def random_raw(self, n):
        return "not an array"

class FailsMidStream:
    def __init__(self, seed):
        self.inner, self.calls = np.random.PCG64(seed), 0
    def random_raw(self, n):
        self.calls += 1
        if self.calls > 3:
            self.fail()
        return self.inner.random_raw(n)
    def fail(self):
        raise ValueError("lost its state")

class ExitsMidStream(FailsMidStream):
    def fail(self):
        raise SystemExit(0)

class ReturnsFloats:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
    def random_raw(self, n):
        return self.rng.random(n)

class RunsDry:
    def __init__(self, seed):
        self.first = True
    def random_raw(self, n):
        words = np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15) if self.first else np.zeros(0, np.uint64)
        self.first = False
        return words

class MinusOne(Source):
    endless = True
    def readinto(self, buffer):
        return -1

def minus_one(seed):
    return MinusOne()

class NoCount(Source):
    endless = True
    def readinto(self, buffer):
        return None

def no_count(seed):
    return NoCount()
'''


@pytest.fixture
def generators(tmp_path) -> dict[str, str]:
    (tmp_path / "bad_generators.py").write_text(BAD_GENERATORS)
    (tmp_path / "broken_import.py").write_text("raise RuntimeError('half-installed package')\n")
    return importable(tmp_path)


@pytest.mark.parametrize("spec, says", [
    ("bad_generators:RaisesAtStart", "RuntimeError: no entropy device"),
    ("bad_generators:ReturnsText", "returned str, not a numpy array"),
    ("bad_generators:FailsMidStream", "ValueError: lost its state"),
    ("bad_generators:ExitsMidStream", "SystemExit: 0"),  # not a silent exit 0
    ("bad_generators:ReturnsFloats", "returned float64 values"),
    ("bad_generators:RunsDry", "returned no words"),
    ("bad_generators:minus_one", "readinto returned -1"),
    ("bad_generators:no_count", "readinto returned None"),
    ("broken_import:Anything", "RuntimeError: half-installed package"),
])
def test_a_user_generator_that_misbehaves_is_one_line_and_exit_2(generators, spec, says):
    # neither a traceback, a verdict on cast values nor an endless loop
    result = randqa("test", spec, "-n", "16M", "--suite", "quick", env=generators, timeout=60)
    assert not result.timed_out, "randqa spun instead of refusing the generator's output"
    assert result.code == 2
    assert_one_error_line(result, spec, says)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_full_stdout_is_one_line_and_exit_2_after_the_files(tmp_path):
    with open("/dev/full", "w") as full:
        result = run(randqa_command("test", "pcg64", *QUICK, "--json", "r.json"), cwd=tmp_path,
                     stdin=subprocess.DEVNULL, preexec_fn=lambda: os.dup2(full.fileno(), 1))
    assert result.code == 2
    assert_one_error_line(result, "cannot write to stdout", "No space left on device")
    assert json.loads((tmp_path / "r.json").read_text())["bytes_tested"] == 65536


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_generate_into_a_full_stdout_is_one_line_and_exit_2(tmp_path):
    # the backend-and-seed line waits until the output has taken bytes
    with open("/dev/full", "w") as full:
        result = run(randqa_command("generate", "pcg64", "-n", "1K"), cwd=tmp_path, stdin=subprocess.DEVNULL,
                     preexec_fn=lambda: os.dup2(full.fileno(), 1))
    assert result.code == 2
    assert_one_error_line(result, "cannot write to stdout", "No space left on device")


def test_deeply_nested_report_input_is_refused(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000)
    result = randqa("report", str(deep), "-o", str(tmp_path / "r.html"))
    assert result.code == 2
    assert_one_error_line(result, "deep.json", "nested too deeply")


@pytest.mark.parametrize("field, text", [("bytes_tested", "1" + "0" * 400), ("elapsed_s", "1e400")])
def test_a_number_too_large_for_a_result_is_refused(tmp_path, capsys, field, text):
    # an input error, not an OverflowError from the charts
    import randqa

    doc = json.dumps(randqa.test("pcg64", "64K", seed=1, suite="quick").to_json())
    content = doc.replace(f'"{field}": {json.dumps(json.loads(doc)[field])}', f'"{field}": {text}')
    assert text in content
    assert_report_refuses(tmp_path, capsys, content.encode(), "too large")


def test_unbounded_report_input_is_refused_unread(tmp_path):
    result = randqa("report", "/dev/zero", "-o", str(tmp_path / "r.html"), timeout=60)
    assert not result.timed_out
    assert result.code == 2
    assert_one_error_line(result, "/dev/zero", "larger than 256 MiB")
    assert result.max_rss < 600 << 20


def test_a_dollar_in_a_source_name_is_text_not_mathtext(tmp_path):
    saved = tmp_path / "c.json"
    made = randqa("compare", "pcg64", "-n", "64K", "--no-progressive", "--suite", "quick", "--speed-repeats", "1",
                  "--no-html", "--json", str(saved))
    assert made.code == 0, made.err
    doc = json.loads(saved.read_text())
    doc["runs"][0]["source"]["name"] = r"gen$\bad{$"
    saved.write_text(json.dumps(doc))
    result = randqa("report", str(saved), "-o", str(tmp_path / "r.html"))
    assert result.code == 0, result.err
    assert "gen$\\bad{$" in (tmp_path / "r.html").read_text()


def _boom(*args, **kwargs):
    raise RuntimeError("an unforeseen bug")


def test_internal_error_is_one_line_and_exit_3(monkeypatch, capsys):
    monkeypatch.setattr("randqa.cli.test.render_run", _boom)
    monkeypatch.delenv("RANDQA_DEBUG", raising=False)
    with pytest.raises(SystemExit) as stop:
        main(["test", "pcg64", *QUICK])
    assert stop.value.code == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.strip() == ("randqa: error: internal error (RuntimeError: an unforeseen bug); "
                           "rerun with --debug for the traceback")


@pytest.mark.parametrize("how", ["--debug", "RANDQA_DEBUG"])
def test_debug_shows_the_traceback_of_an_internal_error(monkeypatch, capsys, how):
    monkeypatch.setattr("randqa.cli.test.render_run", _boom)
    args = ["test", "pcg64", *QUICK]
    if how == "--debug":
        args.append("--debug")  # accepted after the command too
    else:
        monkeypatch.setenv("RANDQA_DEBUG", "1")
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 3
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "_boom" in err
    assert err.strip().splitlines()[-1].startswith("randqa: error: internal error (RuntimeError")


def _out_of_memory(*args, **kwargs):
    raise MemoryError()


def test_memory_error_is_one_line_and_exit_2(monkeypatch, capsys):
    monkeypatch.setattr("randqa.engine.workloads.judge_entries", _out_of_memory)
    with pytest.raises(SystemExit) as stop:
        main(["test", "pcg64", *QUICK])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.startswith("randqa: error: out of memory")


def test_closed_stderr_still_writes_results(tmp_path):
    result = run(randqa_command("test", "pcg64", *QUICK, "--json", "r.json"), cwd=tmp_path,
                 preexec_fn=lambda: os.close(2))
    assert result.code == 0
    assert json.loads((tmp_path / "r.json").read_text())["bytes_tested"] == 65536
    assert "frequency" in result.out


def test_generate_writes_only_bytes_to_stdout_even_with_stderr_closed(tmp_path):
    args = randqa_command("generate", "pcg64", "-n", "4K", "--seed", "7")
    quiet = run(args + ["--quiet"])
    closed = run(args, preexec_fn=lambda: os.close(2))
    assert quiet.code == closed.code == 0
    assert "randqa generate" not in closed.out
    assert closed.out == quiet.out


@pytest.mark.parametrize("size", ["99999999999999999999T", "4194305T", "１０K", "١٠K"])
def test_sizes_past_2_62_or_in_other_digits_are_refused(size):
    result = randqa("test", "pcg64", "-n", size, "--suite", "quick", timeout=60)
    assert not result.timed_out
    assert result.code == 2
    assert_one_error_line(result, "invalid size")


# urandom:16, a backend with its :PARAM, is a generator too: it was refused as "stdin or a file"
@pytest.mark.parametrize("source", ["urandom", "getrandom", "urandom:16"])
def test_seed_sweep_of_an_unseedable_source_is_refused(source):
    result = randqa("test", source, "--seed-sweep", "2000")
    assert result.code == 2
    assert_one_error_line(result, "--seed-sweep", source, "cannot be seeded")


def test_the_command_keeps_numpys_blas_to_one_thread() -> None:
    # OpenBLAS threads spin after each call: CPU time a run would count as its own
    script = ("import os, sys\n"
              "sys.argv = ['randqa', '--version']\n"
              "from randqa._entry import main\n"
              "try:\n    main()\nexcept SystemExit:\n    pass\n"
              "import numpy\n"
              "print(os.environ['OPENBLAS_NUM_THREADS'], len(os.listdir('/proc/self/task')))\n")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split()[-2:] == ["1", "1"]
