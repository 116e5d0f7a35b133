"""Bytes from files and stdin (sources/streams.py): what a file's size says
and when it is not trusted."""

from __future__ import annotations

import json
import os
import sys

import pytest

from conftest import run_main
from randqa.sources.streams import ByteStream

PROC_FILE = "/proc/self/status"  # a regular file that says 0 bytes and holds about 1 KiB


@pytest.mark.skipif(not sys.platform.startswith("linux") or not os.path.exists(PROC_FILE), reason="needs Linux's /proc")
def test_a_file_that_says_0_bytes_is_read_to_its_end(tmp_path, capsys):
    # before: /proc's files were refused as "no data (empty input)", from the size they state
    assert os.path.getsize(PROC_FILE) == 0
    stream = ByteStream(PROC_FILE)
    assert stream.size is None and stream.split_method == "sequential"
    stream.close()
    out = tmp_path / "r.json"
    assert run_main("test", PROC_FILE, "--suite", "quick", "--json", str(out)) == 1  # text fails, as it should
    document = json.loads(out.read_text())
    assert document["bytes_tested"] > 256 and not document["input_ended_early"]


def test_an_empty_file_is_still_no_data(tmp_path, capsys):
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    assert run_main("test", str(empty), "--suite", "quick") == 2
    assert "no data (empty input)" in capsys.readouterr().err
