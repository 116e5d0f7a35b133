"""The run mode (randqa/engine/run_mode.py): one process, a chunk's tests
in threads, segments side by side in threads, or a cluster, picked from the
suite's cost per byte, the run's length, --jobs, the cores, --segment and
--scheduler; the suite's cost measured once and cached; the memory of the
copies of the tests that segments side by side hold counted against
--max-memory before the run."""

from __future__ import annotations


import pytest

from cli_harness import assert_one_error_line, randqa
from randqa.battery.suites import load_suite
from randqa.engine import run_mode
from randqa.engine.memory import check_run_memory
from randqa.engine.run_mode import CLUSTER, ONE_PROCESS, SEGMENT_THREADS, THREADS, pick_run_mode
from randqa.errors import SuiteError

MIB, GIB = 1 << 20, 1 << 30
#: about the standard suite's cost in one process on this kind of machine
STANDARD_S_PER_BYTE = 4.5e-9


def pick(length, jobs=2, **kwargs):
    kwargs.setdefault("seconds_per_byte", STANDARD_S_PER_BYTE)
    kwargs.setdefault("segment", 256 * MIB)
    kwargs.setdefault("cores", 2)
    return pick_run_mode(length, jobs=jobs, **kwargs)


@pytest.mark.parametrize("length, kwargs, kind, threads, start_at", [
    # a long run: segments side by side in threads, from the start
    (4 * GIB, {}, SEGMENT_THREADS, 2, 0),
    (512 * MIB, {}, SEGMENT_THREADS, 2, 0),
    # a short one: in one piece, its tests spread over --jobs threads
    (64 * MIB, {}, THREADS, 2, 0),
    (128 * MIB, {"seconds_per_byte": 1e-9}, THREADS, 2, 0),
    # a slow suite is cut sooner, but never at 64 MiB or less
    (128 * MIB, {"seconds_per_byte": 2e-8}, SEGMENT_THREADS, 2, 0),
    (64 * MIB, {"seconds_per_byte": 1e-6}, THREADS, 2, 0),
    # --jobs 1 is one process; so is one core
    (4 * GIB, {"jobs": 1}, ONE_PROCESS, 1, 0),
    (4 * GIB, {"cores": 1, "jobs": 4}, ONE_PROCESS, 1, 0),
    # --jobs is a ceiling on threads too
    (64 * MIB, {"jobs": 3, "cores": 8}, THREADS, 3, 0),
    # stdin: once its first segment is tested here
    (None, {}, SEGMENT_THREADS, 2, 256 * MIB),
    # a scheduler always means its cluster, even for a short run
    (1 * MIB, {"scheduler": True}, CLUSTER, 2, 0),
    (None, {"jobs": 1, "scheduler": True}, CLUSTER, 1, 0),
    # --segment: longer than one segment goes to a local cluster, whatever the cost
    (3 * MIB, {"segment": MIB, "segment_given": True}, CLUSTER, 1, 0),
    (MIB, {"segment": MIB, "segment_given": True}, THREADS, 2, 0),
    (None, {"segment": MIB, "segment_given": True}, CLUSTER, 1, MIB),
    # a cost not measured (a seed sweep's seeds): the segment decides
    (3 * MIB, {"segment": MIB, "seconds_per_byte": None, "unit": "seeds"}, CLUSTER, 1, 0),
    (MIB, {"segment": MIB, "seconds_per_byte": None, "unit": "seeds"}, THREADS, 2, 0),
])
def test_the_picker(length, kwargs, kind, threads, start_at):
    mode = pick(length, **kwargs)
    assert (mode.kind, mode.threads, mode.start_at) == (kind, threads, start_at)
    assert mode.reason and mode.to_json() == {"run_mode": kind, "run_mode_reason": mode.reason}
    assert mode.side_by_side == (min(kwargs.get("jobs", 2), kwargs.get("cores", 2)) if kind == SEGMENT_THREADS else 0)


def test_segment_threads_are_no_more_than_the_cores():
    mode = pick(4 * GIB, jobs=8, cores=2)
    assert (mode.kind, mode.side_by_side) == (SEGMENT_THREADS, 2)


def test_the_threshold_is_the_estimated_time():
    cost = run_mode.SEGMENTS_MIN_S / GIB
    assert pick(GIB - MIB, seconds_per_byte=cost).kind == THREADS
    assert pick(GIB, seconds_per_byte=cost).kind == SEGMENT_THREADS


def test_the_suite_cost_is_measured_once_and_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(run_mode, "_measured", {})
    measured = []

    def measure(suite, probe_bytes=run_mode.PROBE_BYTES):
        measured.append(suite.name)
        return 3e-9

    monkeypatch.setattr(run_mode, "measure_seconds_per_byte", measure)
    quick = load_suite("quick")
    assert run_mode.suite_seconds_per_byte(quick) == 3e-9
    monkeypatch.setattr(run_mode, "_measured", {})  # another process: from the cache file
    assert run_mode.suite_seconds_per_byte(quick) == 3e-9
    assert measured == ["quick"]
    assert (tmp_path / "randqa" / run_mode.COST_CACHE).exists()
    run_mode.suite_seconds_per_byte(load_suite("quick", tests="frequency"))  # another suite, another key
    assert measured == ["quick", "quick"]


def test_a_measured_cost_is_plausible():
    cost = run_mode.measure_seconds_per_byte(load_suite("quick", tests="frequency"), probe_bytes=4 * MIB)
    assert 1e-12 < cost < 1e-6


def test_balanced_segments():
    assert run_mode.balanced_segment(4 * GIB, 2) == 512 * MIB
    assert run_mode.balanced_segment(256 * MIB, 2) == run_mode.MIN_SEGMENT_BYTES


# ---- memory: every worker testing segments side by side holds a copy of the tests


def test_segments_side_by_side_count_their_copies_of_the_tests():
    suite = load_suite("standard")
    short = check_run_memory(suite, 1 << 62, jobs=2, length=MIB)  # never cut into segments: one piece, its tests in 2 threads
    long = check_run_memory(suite, 1 << 62, jobs=2, length=4 * GIB)
    alone = check_run_memory(suite, 1 << 62, jobs=1, length=4 * GIB)
    assert short < long and alone < short
    copy = long - short
    assert check_run_memory(suite, 1 << 62, jobs=4, length=4 * GIB) - check_run_memory(
        suite, 1 << 62, jobs=4, length=MIB) > copy  # more workers, more copies
    with pytest.raises(SuiteError) as refused:
        check_run_memory(suite, (short + long) // 2, jobs=2, length=4 * GIB)
    message = str(refused.value)
    assert "on 2 workers side by side" in message and "pass --jobs 1" in message and "\n" not in message
    assert check_run_memory(suite, (short + long) // 2, jobs=1, length=4 * GIB) == alone


def test_segments_side_by_side_over_max_memory_are_refused_before_the_run():
    suite = load_suite("standard")
    short = check_run_memory(suite, 1 << 62, jobs=2, length=MIB)
    long = check_run_memory(suite, 1 << 62, jobs=2, length=4 * GIB)
    limit = str((short + long) // 2)
    over = randqa("test", "pcg64", "-n", "4G", "--max-memory", limit, "-j", "2")
    assert over.code == 2
    assert_one_error_line(over, "suite file standard.toml: the run on 2 workers side by side needs",
                          "pass --jobs 1 to test in one process")
    fits = randqa("test", "pcg64", "-n", "1M", "--max-memory", limit, "-j", "2", "--seed", "1")
    assert fits.code in (0, 1), fits.err
