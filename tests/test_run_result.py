"""RunResult: typed parts, one to_json and its inverse from_json."""

from __future__ import annotations

import json

import randqa
from randqa.results import TestResult, Verdict
from randqa.run_result import CompareResult, Predictability, Progression, Provenance, RunResult, Speed, SweptSeeds


def _test(name: str, p: float, verdict: Verdict) -> TestResult:
    return TestResult(name=name, statistic=1.0, pvalue=p, verdict=verdict)


def _run(verdict: Verdict = Verdict.PASS, **parts: object) -> RunResult:
    return RunResult(source={"name": "g", "seed": 3}, suite="quick", results=[_test("a", 0.5, Verdict.PASS),
                     _test("b", 1e-30 if verdict == Verdict.FAIL else 0.4, verdict)], bytes_tested=4096,
                     bits_tested=8 * 4096, elapsed_s=0.25, requested=4096, **parts)  # type: ignore[arg-type]


def _plain(document: dict) -> dict:
    return json.loads(json.dumps(document))


def test_every_part_survives_to_json_then_from_json_in_the_order_written():
    lengths = [{"bytes": 2048, "verdict": "pass", "elapsed_s": 0.1,
                "tests": [_test("a", 0.5, Verdict.PASS).to_json()]}]
    run = _run(progression=Progression(2048, 4096, False, lengths, None), execution={"mode": "in-process"},
               provenance=Provenance("randqa test g", "2026-01-01T00:00:00+00:00", "Linux", "3.11", "cpu"),
               speed=Speed(900.0, 1 << 20, "numpy", 1000.0),
               predictability=Predictability(None, None, 1 << 16), runtime={"name": "node", "installed": False},
               remarks=["a note of the comparison"])
    document = _plain(run.to_json())
    back = RunResult.from_json(document)
    assert back.progression == run.progression and back.provenance == run.provenance
    assert back.speed == run.speed and back.predictability == run.predictability and back.runtime == run.runtime
    assert back.notes == ["a note of the comparison"] and back.remarks == run.remarks
    assert _plain(back.to_json()) == document
    keys = list(document)
    assert keys[keys.index("tests") + 1:] == ["progressive", "lengths", "first_failure_bytes", "execution", "command",
                                               "date", "platform", "python", "cpu", "false_fail_rate", "speed_mb_s",
                                               "speed_bytes", "speed_method", "generation_mb_s",
                                               "predictable_from_bytes", "predictor", "predict_bytes_read", "runtime"]
    assert document["false_fail_rate"]["tail_checks"] == 1  # over the progressive lengths, not the final results


def test_a_plain_run_has_no_parts_and_reads_back_as_one():
    document = _plain(_run(interrupted=True).to_json())
    back = RunResult.from_json(document)
    assert (back.progression, back.seed_sweep, back.speed, back.predictability, back.provenance) == (None,) * 5
    assert back.notes == document["notes"] and back.remarks == []
    assert _plain(back.to_json()) == document


def test_a_seed_sweep_reads_back():
    run = _run(seed_sweep=SweptSeeds(seeds=10, seeds_requested=12, positions=4, base_seed=5))
    document = _plain(run.to_json())
    assert document["seed_sweep"] == {"seeds": 10, "seeds_requested": 12, "positions": 4, "base_seed": 5}
    assert RunResult.from_json(document).seed_sweep == run.seed_sweep


def test_first_failure_is_the_recorded_length_when_progressive_else_the_failed_length():
    assert _run(Verdict.FAIL).first_failure_bytes == 4096 and not _run(Verdict.FAIL).is_progressive
    assert _run(Verdict.SUSPICIOUS).first_failure_bytes is None
    progressive = _run(Verdict.FAIL, progression=Progression(1024, 4096, True, [], 1024))
    assert progressive.is_progressive and progressive.first_failure_bytes == 1024
    survived = _run(progression=Progression(1024, 4096, False, [], None))
    assert survived.is_progressive and survived.first_failure_bytes is None


def test_a_bits_run_and_a_real_progressive_run_read_back_unchanged():
    for result in (randqa.test("pcg64", "4K", seed=1, suite="quick", progressive=True, min="1K"),
                   randqa.test(b"01" * 600, suite="quick", format="bits")):
        document = result.to_json()
        assert _plain(RunResult.from_json(document).to_json()) == document


def test_a_comparison_reads_back_with_its_environment_and_runs_in_the_order_written():
    environment = {"date": "2026-01-01T00:00:00+00:00", "platform": "Linux", "python": "3.11", "cpu": "cpu"}
    comparison = CompareResult(command="randqa compare g", environment=environment, suite="quick",
                               bytes_requested=4096, progressive=False, speed_repeats=5, elapsed_s=1.23456,
                               interrupted=True, runs=[_run(speed=Speed(900.0, 1 << 20, "numpy", 1000.0)),
                                                       _run(Verdict.FAIL)])
    document = _plain(comparison.to_json())
    assert list(document) == ["randqa_version", "kind", "command", "date", "platform", "python", "cpu", "suite",
                              "bytes_requested", "progressive", "speed_repeats", "elapsed_s", "interrupted", "runs"]
    assert document["kind"] == "compare" and document["elapsed_s"] == 1.235
    back = CompareResult.from_json(document)
    assert back.environment == environment and back.interrupted and back.suite == "quick"
    assert [run.verdict for run in back.runs] == [Verdict.PASS, Verdict.FAIL] and back.runs[0].speed == Speed(
        900.0, 1 << 20, "numpy", 1000.0)
    assert _plain(back.to_json()) == document


def test_the_false_fail_bound_counts_the_checks_a_cut_retest_may_end():
    # a check whose retest may be cut short (its block, up to 8 times its length, ending past the bytes
    # tested) also fails below fail x suspicious: the last four doubling lengths, a plain run's one
    from randqa.results import false_fail_bound

    progressive = RunResult.from_json(randqa.test("pcg64", "64K", seed=1, suite="quick", progressive=True,
                                                  min="1K").to_json())
    checks = {entry["bytes"]: sum(TestResult.from_json(t).tail_checks() for t in entry["tests"])
              for entry in progressive.judged_lengths()}
    assert sorted(checks) == [1024 << k for k in range(7)]
    cut = sum(n for length, n in checks.items() if length >= 8192)
    rate = progressive.false_fail_rate()
    assert 0 < cut < rate["tail_checks"] == sum(checks.values())
    assert rate == {"at_most": false_fail_bound(sum(checks.values()), progressive.thresholds, cut),
                    "tail_checks": sum(checks.values()), "cut_checks": cut}
    plain = _run()
    assert plain.false_fail_rate()["cut_checks"] == plain.tail_checks() > 0
