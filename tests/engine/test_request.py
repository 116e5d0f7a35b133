"""randqa.engine.request: a run as data, checked when read back, and the
rules every path shares computed in one place."""

from __future__ import annotations

import dataclasses

import pytest

from randqa.battery.suites import load_suite
from randqa.engine.lengths import UNTIL_END, check_first_length, last_length
from randqa.engine.request import RunRequest, stream_request, suite_to_json
from randqa.errors import UsageError


def _request(**change):
    request, _suite = stream_request("pcg64", load_suite("quick"), seed=3, endless_size=1 << 20,
                                     endless_last=1 << 30, **change)
    return request


def test_a_request_survives_its_json_and_is_frozen():
    request = _request(progressive=(1024, None, True))
    assert RunRequest.from_json(request.to_json()) == request
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.seed = 4  # type: ignore[misc]


@pytest.mark.parametrize("change", [{"kind": "other"}, {"limit": 0}, {"seed": -1}, {"extra": 1},
                                    {"progressive": {"min_bytes": 8, "max_bytes": 4, "keep_going": False}}])
def test_a_request_read_back_is_checked(change):
    data = dict(_request().to_json(), **change)
    with pytest.raises((ValueError, TypeError)):
        RunRequest.from_json(data)


def test_lengths_of_generators_and_data(tmp_path):
    data = tmp_path / "d.bin"
    data.write_bytes(b"x" * 100)
    suite = load_suite("quick")
    assert _request().limit == 1 << 20 and _request(size=5000).limit == 5000
    assert _request(progressive=(1024, None, False)).progressive["max_bytes"] == 1 << 30
    from_file, _ = stream_request(str(data), suite, endless_size=1, endless_last=1, progressive=(1024, None, False))
    assert from_file.progressive["max_bytes"] == UNTIL_END and from_file.identity["size"] == 100
    assert last_length(None, 7, 9) == 7 and last_length(None, None, None) == UNTIL_END


def test_the_progress_total_is_the_last_length_or_the_limit():
    assert _request(size=5000).progress_total() == 5000 and _request(size=5000).progress_total(1) is None
    assert _request(progressive=(1024, 4096, False)).progress_total() == 4096
    sweep = RunRequest(kind="seed-sweep", source="pcg64", suite=suite_to_json(load_suite("quick")), seed=0,
                       seed_sweep={"seeds": 10, "positions": 4, "base_seed": 0})
    assert sweep.progress_total() == 40


def test_the_first_length_past_the_last_is_refused_once_worded():
    check_first_length(1024, None)
    with pytest.raises(UsageError, match=r"^--min \(4096\) is larger than --max \(1024\)$"):
        _request(progressive=(4096, 1024, False))
    with pytest.raises(UsageError, match=r"larger than the last length \(10\)"):
        check_first_length(11, 10, "the last length")
