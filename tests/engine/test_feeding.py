"""Feeding (engine/feeding.py): the results are identical whatever the
reads (a file, cat, odd-sized pipe writes) and whatever the number of
--jobs threads; every feed says what it fed as a ``Fed``, in whole bytes."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from randqa.engine.feeding import ArrayReader, Fed, feed
from randqa.sources.streams import BitTextStream


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


def test_feed_gives_whole_bytes_and_leaves_bit_texts_final_bits(tmp_path):
    path = tmp_path / "bits.txt"
    path.write_text("0110100111010011101")  # 19 bits: two bytes and 3 bits
    with BitTextStream(str(path)) as source:
        assert feed(source, [], limit=None) == Fed(2, interrupted=False)
        assert source.read_bits(7).tolist() == [1, 0, 1]  # for the run's end (StreamWorkload.finish)


def test_an_array_reader_feeds_what_its_segment_holds():
    reader = ArrayReader(np.arange(10, dtype=np.uint8))
    assert reader.feed([], 6) == Fed(6)
    assert reader.feed([], 6) == Fed(4)
    assert reader.feed([], 6) == Fed(0)
