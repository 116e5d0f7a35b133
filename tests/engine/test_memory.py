"""What a run's memory check takes its length from (engine/memory.py)."""

from __future__ import annotations

import os
import sys

import pytest

from randqa.battery.suites import load_suite
from randqa.engine.memory import run_length
from randqa.engine.request import RunRequest, suite_to_json

PROC_FILE = "/proc/self/status"


def _request(source: str) -> RunRequest:
    return RunRequest(kind="test", source=source, suite=suite_to_json(load_suite("quick")))


def test_a_files_length_is_its_size(tmp_path):
    data = tmp_path / "d.bin"
    data.write_bytes(bytes(1000))
    assert run_length(_request(str(data))) == 1000


@pytest.mark.skipif(not sys.platform.startswith("linux") or not os.path.exists(PROC_FILE), reason="needs Linux's /proc")
def test_a_file_that_says_0_bytes_has_an_unknown_length():
    # its bytes are read to their end (sources/streams.py), so 0 would undercount a run cut into segments
    assert run_length(_request(PROC_FILE)) is None
