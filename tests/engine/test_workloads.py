"""A stream's workload (engine/workloads.py): bit text's final 1-7 bits
are fed once, at the run's end (``finish``), up to the run's limit."""

from __future__ import annotations

import numpy as np
import pytest

from randqa.battery.base import Accumulator
from randqa.battery.suites import load_suite
from randqa.engine.feeding import Fed
from randqa.engine.workloads import StreamWorkload
from randqa.results import TestResult
from randqa.sources.streams import BitTextStream

BITS = "0110100111010011101"  # two bytes and 3 bits


class Recorder(Accumulator):
    """Keeps what it is fed: the bytes, and the final bits."""

    name = "recorder"

    def __init__(self) -> None:
        super().__init__()
        self.data = b""
        self.tail: list[int] = []

    def _update(self, chunk: np.ndarray) -> None:
        self.data += chunk.tobytes()

    def _merge(self, other: Accumulator) -> None:
        pass

    def update_tail_bits(self, bits: np.ndarray) -> None:
        self.tail += bits.tolist()

    def finalize(self) -> list[TestResult]:
        return []


@pytest.mark.parametrize("limit_bits, piece, tail", [(None, 10, [1, 0, 1]), (17, 2, [1]), (16, 2, [])])
def test_bit_texts_final_bits_are_fed_once_at_the_end(tmp_path, limit_bits, piece, tail):
    path = tmp_path / "bits.txt"
    path.write_text(BITS)
    recorder = Recorder()
    with BitTextStream(str(path)) as source:
        workload = StreamWorkload(source, load_suite("quick"), limit_bits=limit_bits)
        assert workload.feed([recorder], 0, piece, 1, None) == Fed(2)
        assert recorder.tail == []  # a piece feeds whole bytes only
        assert workload.finish([recorder], 2) == len(tail)
    assert recorder.data == np.packbits([int(b) for b in BITS[:16]]).tobytes()
    assert recorder.tail == tail
