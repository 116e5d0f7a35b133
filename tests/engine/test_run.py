"""Running a stream through a suite (engine/run.py): its options and
what its RunResult counts."""

from __future__ import annotations

import pytest

from randqa.battery.suites import load_suite
from randqa.engine import run
from randqa.sources.streams import BitTextStream


def test_progressive_min_above_max_is_refused(cli, tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(4096))
    result = cli("test", str(path), "--progressive", "--min", "1M", "--max", "1K")
    assert result.returncode == 2 and result.stderr.count("\n") == 1


@pytest.mark.parametrize("limit, bits, ended_early", [(None, 19, False), (17, 17, False), (24, 19, True)])
def test_a_bit_text_run_counts_its_final_bits(tmp_path, limit, bits, ended_early):
    path = tmp_path / "bits.txt"
    path.write_text("0110100111010011101")  # 19 bits: two bytes and 3 bits
    with BitTextStream(str(path)) as source:
        result = run(source, load_suite("quick"), limit=limit)
    assert (result.bytes_tested, result.bits_tested, result.input_ended_early) == (2, bits, ended_early)
