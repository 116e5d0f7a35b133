"""The run loop (engine/loop.py): a progressive run is judged at each
length and stops at the first failure unless it keeps going, Ctrl-C
while results are judged keeps what was judged, and a saved state resumes
only a run of as many tests."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

from randqa.battery._state import StateError
from randqa.battery.base import Accumulator
from randqa.battery.suites import load_suite
from randqa.engine import run, run_progressive
from randqa.engine.lengths import Plan
from randqa.engine.loop import RunLoop
from randqa.engine.records import CheckpointRecord
from randqa.engine.workloads import StreamWorkload
from randqa.results import TestResult
from randqa.sources import open_backend
from reference_generators import msvc_rand_low_bytes, pcg64_bytes


@pytest.fixture(scope="module")
def msvc_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("streams") / "msvc.bin"
    path.write_bytes(msvc_rand_low_bytes(1 << 20))
    return path


def test_progressive_stops_at_first_failure(cli, msvc_file):
    result = cli("test", str(msvc_file), "--progressive", "--min", "1K", "--max", "1M", "--json", "-")
    doc = result.json()
    assert result.returncode == 1
    lengths = [entry["bytes"] for entry in doc["lengths"]]
    assert lengths == [1024 * 2**i for i in range(len(lengths))]
    assert doc["first_failure_bytes"] == lengths[-1] <= 64 * 1024
    assert doc["lengths"][-1]["verdict"] == "fail"
    assert all(entry["verdict"] != "fail" for entry in doc["lengths"][:-1])


def test_progressive_keep_going_reaches_max(cli, msvc_file):
    doc = cli("test", str(msvc_file), "--progressive", "--max", "1M", "--keep-going", "--json", "-").json()
    assert doc["lengths"][-1]["bytes"] == 1 << 20
    assert doc["first_failure_bytes"] < 1 << 20


def test_progressive_on_good_data_has_no_failure(cli, tmp_path):
    path = tmp_path / "good.bin"
    path.write_bytes(pcg64_bytes(1 << 20, 3))
    result = cli("test", str(path), "--progressive", "--min", "64K", "--json", "-")
    assert result.returncode == 0
    doc = result.json()
    assert doc["first_failure_bytes"] is None
    assert [e["bytes"] for e in doc["lengths"]] == [65536 * 2**i for i in range(5)]  # up to the file's 1 MiB


class InterruptOnFinalize(Accumulator):
    """Sends itself SIGINT while its results are being judged, once."""

    name = "interrupter"

    def __init__(self) -> None:
        super().__init__()
        self.sent = False

    def _update(self, chunk: np.ndarray) -> None:
        pass

    def _merge(self, other: Accumulator) -> None:
        pass

    def finalize(self) -> list[TestResult]:
        if self.bytes_seen >= 4096 and not self.sent:
            self.sent = True
            os.kill(os.getpid(), signal.SIGINT)
        return [TestResult(self.name, 0.0, 0.5)]


def test_ctrl_c_while_judging_keeps_the_lengths_judged(monkeypatch):
    suite = load_suite("quick")
    acc = InterruptOnFinalize()
    monkeypatch.setattr(suite, "build", lambda: [acc])
    with open_backend("pcg64", 1) as source:
        result = run_progressive(source, suite, 1024, 1 << 20)
    assert result.interrupted
    assert [e["bytes"] for e in result.progression.lengths] == [1024, 2048, 4096]


def test_ctrl_c_while_judging_a_plain_run_keeps_the_results(monkeypatch):
    suite = load_suite("quick")
    acc = InterruptOnFinalize()
    monkeypatch.setattr(suite, "build", lambda: [acc])
    with open_backend("pcg64", 1) as source:
        result = run(source, suite, limit=8192)
    assert result.interrupted and result.results[0].pvalue == 0.5


def test_a_saved_state_of_another_number_of_tests_is_refused():
    with open_backend("pcg64", 1) as source:
        workload = StreamWorkload(source, load_suite("quick"))
        tests = len(workload.build())
        with pytest.raises(StateError, match=f"the saved state holds 0 tests, the run {tests}$"):
            RunLoop(workload, Plan(limit=1024), segment=None, resume=(CheckpointRecord(), []))
