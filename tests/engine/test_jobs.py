"""What workers run (engine/jobs.py): a segment's job tests what its data
holds, with the state at each snapshot asked for, and a segment's states
load only into as many tests."""

from __future__ import annotations

import numpy as np
import pytest

from randqa.battery._state import StateError
from randqa.battery.suites import load_suite
from randqa.engine.jobs import StreamJob, loaded
from randqa.engine.judging import judge


def _judged(job: StreamJob, accumulators: list) -> list[dict]:
    return [r.to_json() for r in judge(accumulators, job.suite.thresholds)]


def test_a_segment_ends_where_its_data_ends_with_the_snapshots_inside():
    job = StreamJob(load_suite("quick"))
    data = np.random.default_rng(5).integers(0, 256, 60000, dtype=np.uint8)
    result = job.compute(0, 100000, (32768, 80000), data)
    assert result["count"] == 60000
    assert list(result["snapshots"]) == [32768]  # 80000 is past the data
    for end, states in ((32768, result["snapshots"][32768]), (60000, result["states"])):
        direct = job.build(0)
        for acc in direct:
            acc.update(data[:end])
        assert _judged(job, loaded(job, 0, states)) == _judged(job, direct)


def test_states_of_another_number_of_tests_are_refused():
    job = StreamJob(load_suite("quick"))
    with pytest.raises(StateError, match="a segment's result holds another number of tests"):
        loaded(job, 0, [])
