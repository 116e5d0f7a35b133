"""Speed as each runtime gets its own generator (randqa/speed/runtimes.py).

The driver's time_command is the runtime's loop; its reply (seconds, as the
runtime measured them) becomes MB/s of the stream's bits: calls x
bits_per_call / 8 / seconds.  A stand-in command that prints a known time
pins that arithmetic and the sizing of the runs; Node, where installed,
shows the real path end to end.  A runtime that is not installed has no
speed, and says so; one that fails is reported in one line.
"""

from __future__ import annotations

import shutil
import sys

import pytest

from randqa.errors import InputError
from randqa.sources.runtimes import driver_for
from randqa.speed import runtimes
from randqa.speed.as_called import as_called_speed, speed_method

#: seconds per call the stand-in runtime reports: 10 ns, so 52-bit calls give 650 MB/s
SECONDS_PER_CALL = 1e-8


@pytest.fixture
def stand_in(monkeypatch):
    """Node's driver answering time_command with SECONDS_PER_CALL per call; the calls asked for are kept."""
    asked: list[int] = []
    driver = driver_for("v8-math-random")

    def time_command(backend: str, seed: int, calls: int) -> list[str]:
        asked.append(calls)
        return [sys.executable, "-c", f"print({calls} * {SECONDS_PER_CALL})"]

    monkeypatch.setattr(driver, "time_command", time_command)
    monkeypatch.setattr(driver, "missing_program", lambda: None)
    return asked


def test_mb_per_s_counts_the_bits_each_call_gives(stand_in):
    timing = runtimes.runtime_speed("v8-math-random", 5, repeats=3)
    assert timing.note is None and timing.method == "Math.random() in node's own loop, timed by node itself"
    # 52 bits per call at 10 ns a call
    assert timing.speed.median == pytest.approx(52 / 8 / SECONDS_PER_CALL / 1e6)
    # a probe, then three runs sized to take about TARGET_SECONDS each, in whole stream words
    probe, *timed = stand_in
    assert probe == runtimes.PROBE_CALLS and len(timed) == 3 and len(set(timed)) == 1
    assert timed[0] % 8 == 0 and timed[0] * SECONDS_PER_CALL == pytest.approx(runtimes.TARGET_SECONDS, rel=1e-3)
    assert timing.speed.nbytes == timed[0] * 52 // 8


def test_live_twin_is_timed_in_the_runtime_too(stand_in):
    assert speed_method("v8-math-random-live") == speed_method("v8-math-random")
    assert runtimes.runtime_speed("v8-math-random-live", 5, repeats=1).speed.median == pytest.approx(650)


def test_a_runtime_not_installed_has_no_speed_and_says_why(monkeypatch):
    monkeypatch.setattr(driver_for("v8-math-random"), "missing_program", lambda: "node")
    timing = as_called_speed("v8-math-random", seed=3, repeats=1)
    assert timing.speed is None
    assert timing.note == "no speed: Math.random() is timed in node itself, and node is not on PATH"
    assert timing.generation.median > 0  # randqa's C still feeds the tests


def test_a_failing_runtime_is_one_line(monkeypatch):
    driver = driver_for("v8-math-random")
    monkeypatch.setattr(driver, "missing_program", lambda: None)
    monkeypatch.setattr(driver, "time_command", lambda backend, seed, calls: [
        sys.executable, "-c", "import sys; sys.stderr.write('boom\\nout of memory\\n'); sys.exit(3)"])
    with pytest.raises(InputError, match=r"^timing v8-math-random in node: .* exited with status 3: out of memory$"):
        runtimes.runtime_speed("v8-math-random", 5, repeats=1)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_node_times_math_random_itself():
    timing = as_called_speed("v8-math-random", seed=11, repeats=1)
    assert timing.speed.median > 0 and timing.method.startswith("Math.random() in node")
    assert timing.generation is not timing.speed  # randqa's C feed rate, timed apart


def test_a_runtime_that_prints_without_end_is_stopped_in_one_line(monkeypatch):
    # before: subprocess.run(capture_output=True) kept all of it (18 GB before the OOM killer came)
    driver = driver_for("v8-math-random")
    monkeypatch.setattr(driver, "missing_program", lambda: None)
    monkeypatch.setattr(driver, "time_command", lambda backend, seed, calls: ["yes", "0.5"])
    with pytest.raises(InputError, match=rf"^timing v8-math-random in node: yes failed \(printed more than "
                                         rf"{runtimes.TIMING_OUTPUT_BYTES} bytes\)$"):
        runtimes.runtime_speed("v8-math-random", 5, repeats=1)
