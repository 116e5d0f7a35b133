"""The runtimes' answer (report/speed_notes.py): "NAME: N times slower than
the fastest here, fails at L, predictable from P bytes" per source, from
the numbers of a compare document alone, and which runtimes were live."""

from __future__ import annotations

from randqa._report.html import render_html
from randqa._report.speed_notes import runtime_sentence, runtimes_answer
from randqa.run_result import RunResult


def run(name: str, speed: float | None, failure: int | None, predictable: int | None, runtime: dict | None,
        tested: int = 256 << 20) -> dict:
    doc = {"source": {"name": name, "seed": 1}, "suite": "standard", "bytes_tested": tested,
           "verdict": "pass" if failure is None else "fail", "speed_mb_s": speed,
           "tests": [{"name": "t", "statistic": 1.0, "p_value": 0.5 if failure is None else 1e-30,
                      "verdict": "pass" if failure is None else "fail"}],
           "progressive": {"min_bytes": 1 << 10, "max_bytes": tested, "keep_going": False}, "lengths": [],
           "first_failure_bytes": failure, "predictable_from_bytes": predictable, "predictor": None,
           "predict_bytes_read": 1 << 20}
    if runtime is not None:
        doc["runtime"] = runtime
    return doc


def typed(runs: list[dict]) -> list[RunResult]:
    return [RunResult.from_json(r) for r in runs]


NODE = {"name": "node", "installed": True, "version": "node v20.20.2", "live_checked_bytes": 1 << 20,
        "live_equal": True}
JAVA = {"name": "java", "installed": True, "version": 'openjdk version "17.0.15" 2025-04-15', "live_checked_bytes": 1 << 20,
        "live_equal": True}
GO_ABSENT = {"name": "go", "installed": False}

RUNS = [run("v8-math-random", 200.0, 256 << 10, 26, NODE), run("java-random", 50.0, 1024, 8, JAVA),
        run("go-math-rand", None, None, 4970, GO_ABSENT), run("urandom", 400.0, None, None, None)]


def test_one_sentence_per_source_from_measured_numbers():
    lines = runtimes_answer(typed(RUNS))
    assert lines[1:5] == [
        "  v8-math-random: 2.0 times slower than the fastest here (200.0 MB/s), fails at 256 KiB, "
        "predictable from 26 bytes",
        "  java-random: 8.0 times slower than the fastest here (50.0 MB/s), fails at 1 KiB, predictable from 8 bytes",
        "  go-math-rand: no speed (go is not installed), no failure up to 256 MiB, predictable from 4,970 bytes",
        "  urandom: the fastest here (400.0 MB/s), no failure up to 256 MiB, no predictor succeeded",
    ]


def test_says_which_runtimes_were_live():
    lines = runtimes_answer(typed(RUNS))
    assert lines[5].endswith("for the same seed): node 20.20.2, java 17.0.15")
    assert lines[6].endswith("no speed): go")
    mismatch = dict(JAVA, live_equal=False, first_difference=12)
    assert runtimes_answer(typed([RUNS[0], run("java-random", 50.0, 1024, 8, mismatch)]))[-1].endswith(
        "node 20.20.2, java 17.0.15 (its bytes not confirmed)")


def test_nothing_to_say_without_two_runtimes():
    assert runtimes_answer(typed(RUNS[:1] + RUNS[3:])) == []
    unpredicted = run("pcg64", 10.0, None, None, None)
    del unpredicted["predictable_from_bytes"]  # compare --no-predict
    assert runtime_sentence(RunResult.from_json(unpredicted), typed(RUNS)) == ("pcg64: 40 times slower than the fastest here (10.0 MB/s), "
                                                   "no failure up to 256 MiB, predictability not checked")


def test_the_html_report_states_the_same_answer():
    doc = {"kind": "compare", "suite": "standard", "speed_repeats": 5, "elapsed_s": 1.0, "runs": RUNS}
    page = render_html([doc])
    assert '<section id="answer" class="answer-block">' in page
    assert "java-random: 8.0 times slower than the fastest here (50.0 MB/s), fails at 1 KiB" in page
