"""Running a suite over a stream (engine/run.py): progressive testing to the
first failure, Ctrl-C while results are judged keeps what was judged, and
the results are identical whatever the reads (a file, cat, odd-sized pipe
writes) and whatever the number of --jobs threads.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

from randqa.battery.base import Accumulator
from randqa.battery.suites import load_suite
from randqa.engine import run, run_progressive
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


def test_progressive_min_above_max_is_refused(cli, msvc_file):
    result = cli("test", str(msvc_file), "--progressive", "--min", "1M", "--max", "1K")
    assert result.returncode == 2 and result.stderr.count("\n") == 1


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


def _strip_timing(doc: dict) -> dict:
    doc = dict(doc)
    for key in ("elapsed_s", "command", "date"):
        doc.pop(key, None)
    doc["source"] = {k: v for k, v in doc["source"].items() if k != "name"}
    return doc


def test_file_cat_and_odd_pipe_writes_give_identical_json(tmp_path):
    data = np.random.default_rng(99).bytes(3 << 20)
    path = tmp_path / "stream.bin"
    path.write_bytes(data)
    randqa = [sys.executable, "-m", "randqa", "test"]

    from_file = subprocess.run([*randqa, str(path), "--json", "-"], capture_output=True, check=True)
    via_cat = subprocess.run(f"cat {path} | {sys.executable} -m randqa test - --json -", shell=True,
                             capture_output=True, check=True)
    # a writer that sends prime-sized pieces with flushes, so reads come back short
    writer_code = (
        "import sys,time\n"
        f"data=open({str(path)!r},'rb').read()\n"
        "i=0;sizes=[1,7,4093,65521,13,131071]\n"
        "k=0\n"
        "while i<len(data):\n"
        "    n=sizes[k%len(sizes)];k+=1\n"
        "    sys.stdout.buffer.write(data[i:i+n]);sys.stdout.buffer.flush();i+=n\n"
        "    if k%50==0: time.sleep(0.001)\n"
    )
    writer = subprocess.Popen([sys.executable, "-c", writer_code], stdout=subprocess.PIPE)
    in_pieces = subprocess.run([*randqa, "-", "--json", "-"], stdin=writer.stdout, capture_output=True, check=True)
    writer.wait()

    docs = [_strip_timing(json.loads(p.stdout)) for p in (from_file, via_cat, in_pieces)]
    assert docs[0]["bytes_tested"] == len(data)
    assert docs[0] == docs[1] == docs[2]


def test_jobs_do_not_change_results(tmp_path):
    path = tmp_path / "stream.bin"
    path.write_bytes(np.random.default_rng(8).bytes((5 << 20) + 12345))
    docs = []
    for jobs in ("1", "2", "3"):
        out = subprocess.run([sys.executable, "-m", "randqa", "test", str(path), "--jobs", jobs, "--json", "-"],
                             capture_output=True, check=True).stdout
        docs.append(_strip_timing(json.loads(out)))
    assert docs[0] == docs[1] == docs[2]


# ---- retests: a result below a threshold runs again on the next block ----------

def biased_bits(blocks: int, seed: int) -> bytes:
    """8 KiB blocks of bits that are 1 with probability 0.512 (frequency's
    exact tail near 1e-9 for one block), each followed by a fair one (seed 1
    of numpy's default generator: 3.0e-9, then 0.64)."""
    rng = np.random.default_rng(seed)
    out = b""
    for _ in range(blocks):
        out += np.packbits(rng.random(65536) < 0.512).tobytes() + np.packbits(rng.random(65536) < 0.5).tobytes()
    return out


def test_a_failure_that_does_not_repeat_on_the_next_block_is_suspicious():
    import randqa

    data = biased_bits(2, seed=1)  # biased 8 KiB, fair 8 KiB, biased, fair
    result = randqa.test(data, suite="quick", tests=["frequency"], progressive=True, min="8K", max="16K")
    first, second = result.to_json()["lengths"]
    test = first["tests"][0]
    assert test["p_value"] == pytest.approx(2.959e-9, rel=1e-3)
    assert test["verdict"] == "suspicious" and first["verdict"] == "suspicious"
    assert test["retest"] == {"from_bytes": 8192, "bytes": 8192, "tail": "upper", "p_value": pytest.approx(0.636, rel=1e-3),
                              "repeated": False}
    # the 16 KiB prefix is suspicious, and retested on the next 16 KiB: biased again, repeated
    assert second["tests"][0]["verdict"] == "suspicious" and second["tests"][0]["retest"]["repeated"] is True
    assert result.verdict == "suspicious" and result.first_failure_bytes is None and result.passed


def test_a_failure_that_repeats_fails_once_the_next_block_is_read():
    import randqa

    rng = np.random.default_rng(1)
    data = np.packbits(rng.random(8 * 65536) < 0.512).tobytes()  # biased throughout: 64 KiB
    result = randqa.test(data, suite="quick", tests=["frequency"], progressive=True, min="8K", max="64K")
    first = result.to_json()["lengths"][0]["tests"][0]
    assert 1e-20 < first["p_value"] < 1e-6 and first["verdict"] == "fail" and first["retest"]["repeated"] is True
    assert first["retest"]["p_value"] < 1e-3
    assert result.first_failure_bytes == 16384  # the failure was established when the next 8 KiB were read
    assert result.bytes_tested == 16384  # and the run stopped there


def test_a_plain_run_reads_on_past_its_end_for_the_retest():
    import randqa

    data = biased_bits(1, seed=1)
    stream = iter([data[:8192], data[8192:]])
    result = randqa.test(lambda k: next(stream, b""), 8192, suite="quick", tests=["frequency"])
    (test,) = result.results
    assert result.bytes_tested == 8192 and test.verdict == "suspicious"
    assert test.retest["from_bytes"] == 8192 and test.retest["repeated"] is False


def test_a_file_that_ends_leaves_the_failure_unconfirmed(cli, tmp_path):
    path = tmp_path / "biased.bin"
    path.write_bytes(biased_bits(1, seed=1)[:8192])
    run = cli("test", str(path), "--suite", "quick", "--tests", "frequency", "--json", "-")
    assert run.returncode == 1, run.stderr  # below the fail threshold, and nothing to repeat it on
    doc = run.json()
    assert doc["verdict"] == "unconfirmed" and doc["tests"][0]["verdict"] == "unconfirmed"
    assert doc["tests"][0]["retest"] == {"from_bytes": 8192, "bytes": 8192, "p_value": None, "repeated": None,
                                         "reason": "the data ended"}
    assert doc["false_fail_rate"]["tail_checks"] == 1


def test_a_suite_with_fail_at_once_at_fail_fails_at_once_and_retests_nothing(cli, tmp_path):
    """For runs too long to read twice: fail_at_once = fail."""
    path = tmp_path / "biased.bin"
    path.write_bytes(biased_bits(1, seed=1))  # 3.0e-9 on the first 8 KiB, fair after
    suite = tmp_path / "once.toml"
    suite.write_text('name = "once"\n[thresholds]\nfail_at_once = 1e-6\n[[tests]]\ntest = "frequency"\n')
    run = cli("test", str(path), "-n", "8K", "--suite", str(suite), "--json", "-")
    assert run.returncode == 1, run.stderr
    doc = run.json()
    assert doc["tests"][0]["verdict"] == "fail" and "retest" not in doc["tests"][0]
    assert doc["false_fail_rate"]["at_most"] == pytest.approx(1.1e-6)
