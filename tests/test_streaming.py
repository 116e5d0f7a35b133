"""Chunk boundaries never change a result; merge equals concatenation;
the same bytes as a file, through cat, or in odd-sized pipe writes give
identical JSON."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from conftest import feed_in_pieces
from randqa.battery import available_tests, accumulator_class

DATA = np.random.default_rng(2024).bytes(300_007)  # odd length on purpose


def results_of(acc) -> list[dict]:
    return [r.to_json() for r in acc.finalize()]


@pytest.mark.parametrize("name", available_tests())
def test_chunking_does_not_change_results(name):
    cls = accumulator_class(name)
    whole = cls()
    whole.update(np.frombuffer(DATA, dtype=np.uint8))
    rng = np.random.default_rng(5)
    pieces = cls()
    cuts = [1, 2, 3, 7, 4095, 4097, 65536, 100_001] + rng.integers(0, len(DATA), size=20).tolist()
    feed_in_pieces(pieces, DATA, cuts)
    assert results_of(pieces) == results_of(whole)


@pytest.mark.parametrize("name", available_tests())
def test_merge_equals_one_pass(name):
    cls = accumulator_class(name)
    whole = cls()
    whole.update(np.frombuffer(DATA, dtype=np.uint8))
    left, right = cls(), cls()
    split = (len(DATA) // 3) // left.alignment * left.alignment
    feed_in_pieces(left, DATA[:split], [split // 2 + 1])
    feed_in_pieces(right, DATA[split:], [11])
    left.merge(right)
    assert results_of(left) == results_of(whole)


@pytest.mark.parametrize("name", available_tests())
def test_update_tasks_in_any_order_equal_update(name):
    # what --jobs runs in parallel threads: the tasks of one chunk, in any order
    cls = accumulator_class(name)
    whole = cls()
    whole.update(np.frombuffer(DATA, dtype=np.uint8))
    tasked = cls()
    for lo, hi in [(0, 70_001), (70_001, 300_007)]:
        for task in reversed(tasked.update_tasks(np.frombuffer(DATA[lo:hi], dtype=np.uint8), 3)):
            task()
    assert results_of(tasked) == results_of(whole)


def test_merge_refuses_a_misaligned_left_part():
    cls = accumulator_class("birthday_spacings")
    left, right = cls(), cls()
    left.update(np.zeros(100, dtype=np.uint8))
    with pytest.raises(ValueError, match="boundary"):
        left.merge(right)


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
