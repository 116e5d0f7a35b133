"""Retests (engine/retests.py): a result below a threshold runs again on
the next block, read as a stream of its own, and is settled from both
readings."""

from __future__ import annotations

import numpy as np
import pytest


def biased_bits(blocks: int, seed: int) -> bytes:
    """8 KiB blocks of bits that are 1 with probability 0.512 (frequency's
    exact tail near 1e-9 for one block), each followed by a fair one (seed 1
    of numpy's default generator: 3.0e-9, then 0.64)."""
    rng = np.random.default_rng(seed)
    out = b""
    for _ in range(blocks):
        out += np.packbits(rng.random(65536) < 0.512).tobytes() + np.packbits(rng.random(65536) < 0.5).tobytes()
    return out


def test_a_failure_that_does_not_repeat_on_the_next_block_is_suspicious():
    import randqa

    data = biased_bits(2, seed=1)  # biased 8 KiB, fair 8 KiB, biased, fair
    result = randqa.test(data, suite="quick", tests=["frequency"], progressive=True, min="8K", max="16K")
    first, second = result.to_json()["lengths"]
    test = first["tests"][0]
    assert test["p_value"] == pytest.approx(2.959e-9, rel=1e-3)
    assert test["verdict"] == "suspicious" and first["verdict"] == "suspicious"
    assert test["retest"] == {"from_bytes": 8192, "bytes": 8192, "tail": "upper", "p_value": pytest.approx(0.636, rel=1e-3),
                              "repeated": False}
    # the 16 KiB prefix is suspicious, and retested on the next 16 KiB: biased again, repeated
    assert second["tests"][0]["verdict"] == "suspicious" and second["tests"][0]["retest"]["repeated"] is True
    assert result.verdict == "suspicious" and result.first_failure_bytes is None and result.passed


def test_a_failure_that_repeats_fails_once_the_next_block_is_read():
    import randqa

    rng = np.random.default_rng(1)
    data = np.packbits(rng.random(8 * 65536) < 0.512).tobytes()  # biased throughout: 64 KiB
    result = randqa.test(data, suite="quick", tests=["frequency"], progressive=True, min="8K", max="64K")
    first = result.to_json()["lengths"][0]["tests"][0]
    assert 1e-20 < first["p_value"] < 1e-6 and first["verdict"] == "fail" and first["retest"]["repeated"] is True
    assert first["retest"]["p_value"] < 1e-3
    assert result.first_failure_bytes == 16384  # the failure was established when the next 8 KiB were read
    assert result.bytes_tested == 16384  # and the run stopped there


def test_a_plain_run_reads_on_past_its_end_for_the_retest():
    import randqa

    data = biased_bits(1, seed=1)
    stream = iter([data[:8192], data[8192:]])
    result = randqa.test(lambda k: next(stream, b""), 8192, suite="quick", tests=["frequency"])
    (test,) = result.results
    assert result.bytes_tested == 8192 and test.verdict == "suspicious"
    assert test.retest["from_bytes"] == 8192 and test.retest["repeated"] is False


def test_a_file_that_ends_leaves_a_failure_below_fail_times_suspicious_unconfirmed(cli, tmp_path):
    path = tmp_path / "biased.bin"
    rng = np.random.default_rng(1)
    path.write_bytes(np.packbits(rng.random(65536) < 0.514).tobytes())  # 1.9e-12: below 1e-6 x 1e-3
    run = cli("test", str(path), "--suite", "quick", "--tests", "frequency", "--json", "-")
    assert run.returncode == 1, run.stderr  # as unlikely for a good source as a repeated failure
    doc = run.json()
    assert doc["verdict"] == "unconfirmed" and doc["tests"][0]["verdict"] == "unconfirmed"
    assert doc["tests"][0]["retest"] == {"from_bytes": 8192, "bytes": 8192, "p_value": None, "repeated": None,
                                         "reason": "the data ended"}
    assert doc["false_fail_rate"]["tail_checks"] == 1


def test_a_file_that_ends_leaves_a_tail_below_fail_only_suspicious(cli, tmp_path):
    # before: unconfirmed, exit 1: a good file failed with probability 1.1e-6 a check, not the stated 1.2e-9
    path = tmp_path / "biased.bin"
    path.write_bytes(biased_bits(1, seed=1)[:8192])  # 3.0e-9: below fail, not below fail x suspicious
    run = cli("test", str(path), "--suite", "quick", "--tests", "frequency", "--json", "-")
    assert run.returncode == 0, run.stderr
    doc = run.json()
    assert doc["verdict"] == "suspicious" and doc["tests"][0]["verdict"] == "suspicious"
    assert doc["tests"][0]["retest"] == {"from_bytes": 8192, "bytes": 8192, "p_value": None, "repeated": None,
                                         "reason": "the data ended"}
    # the same from stdin, which cannot be read again
    run = cli("test", "-", "--suite", "quick", "--tests", "frequency", "--json", "-", input=path.read_bytes())
    assert run.returncode == 0, run.stderr
    assert run.json()["tests"][0]["verdict"] == "suspicious"


def test_a_suite_with_fail_at_once_at_fail_fails_at_once_and_retests_nothing(cli, tmp_path):
    """For runs too long to read twice: fail_at_once = fail."""
    path = tmp_path / "biased.bin"
    path.write_bytes(biased_bits(1, seed=1))  # 3.0e-9 on the first 8 KiB, fair after
    suite = tmp_path / "once.toml"
    suite.write_text('name = "once"\n[thresholds]\nfail_at_once = 1e-6\n[[tests]]\ntest = "frequency"\n')
    run = cli("test", str(path), "-n", "8K", "--suite", str(suite), "--json", "-")
    assert run.returncode == 1, run.stderr
    doc = run.json()
    assert doc["tests"][0]["verdict"] == "fail" and "retest" not in doc["tests"][0]
    assert doc["false_fail_rate"]["at_most"] == pytest.approx(1.1e-6)


def gap_words_file(forced: float = 0.3, seed: int = 5) -> bytes:
    """32-bit words for gap[word_bytes=4] (hits: words below 2^28, p = 1/16):
    8 KiB whose gaps of 7 come too often (every 8th word made a hit with
    probability ``forced``: p = 1.5e-13 at 0.3), then 8 KiB with 100 hits,
    too few for the test's law (it needs 126 gaps), then 240 KiB of random words."""
    rng = np.random.default_rng(seed)
    low = 1 << 28
    first = rng.integers(0, 1 << 32, 2048, dtype=np.uint64).astype(np.uint32)
    places = np.arange(0, 2048, 8)
    chosen = places[rng.random(places.size) < forced]
    first[chosen] = rng.integers(0, low, chosen.size).astype(np.uint32)
    second = rng.integers(low, 1 << 32, 2048, dtype=np.uint64).astype(np.uint32)
    second[rng.choice(2048, 100, replace=False)] = rng.integers(0, low, 100).astype(np.uint32)
    rest = rng.integers(0, 1 << 32, 2048 * 30, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([first, second, rest]).astype("<u4").tobytes()


def _gap4(doc: dict) -> dict:
    return next(t for t in doc["tests"] if t["name"].endswith("word_bytes=4]"))


@pytest.mark.parametrize("source", ["file", "stdin"])
def test_a_retest_short_of_data_reads_on_while_there_is_fresh_data(cli, tmp_path, source):
    # before: "too little data in the retest", unconfirmed, exit 1, though the file went on
    path = tmp_path / "gaps.bin"
    path.write_bytes(gap_words_file())
    if source == "file":
        run = cli("test", str(path), "-n", "8K", "--tests", "gap", "--json", "-")
    else:
        run = cli("test", "-", "-n", "8K", "--tests", "gap", "--json", "-", input=path.read_bytes())
    assert run.returncode == 0, run.stderr
    test = _gap4(run.json())
    assert test["p_value"] < 1e-9 and test["verdict"] == "suspicious"
    assert test["retest"]["from_bytes"] == 8192 and test["retest"]["bytes"] == 16384
    assert test["retest"]["repeated"] is False and test["retest"]["p_value"] > 1e-3


def test_a_progressive_runs_retest_short_of_data_reads_on_and_is_settled(cli, tmp_path):
    # before: the 8 KiB length kept its unconfirmed result, and the run passed on the later lengths' results
    path = tmp_path / "gaps.bin"
    path.write_bytes(gap_words_file())
    run = cli("test", str(path), "--progressive", "--min", "8K", "--max", "32K", "--tests", "gap", "--json", "-")
    assert run.returncode == 0, run.stderr
    first = _gap4(run.json()["lengths"][0])
    assert first["verdict"] == "suspicious" and first["retest"]["bytes"] == 16384 and first["retest"]["repeated"] is False


def test_a_progressive_runs_failure_at_an_earlier_length_fails_the_run(cli, tmp_path):
    # before: the 8 KiB length's unconfirmed result was dropped; the run passed on the 12 KiB results
    rng, fair = np.random.default_rng(1), np.random.default_rng(2)
    data = np.packbits(rng.random(65536) < 0.514).tobytes() + np.packbits(fair.random(32768) < 0.47).tobytes()
    path = tmp_path / "ends.bin"
    path.write_bytes(data)  # 1.9e-12 at 8 KiB; the file ends at 12 KiB, half-way through the next 8 KiB
    run = cli("test", str(path), "--progressive", "--min", "8K", "--suite", "quick", "--tests", "frequency",
              "--json", "-")
    assert run.returncode == 1, run.stderr
    doc = run.json()
    assert [length["bytes"] for length in doc["lengths"]] == [8192, 12288]
    assert doc["lengths"][1]["verdict"] == "pass"
    # the 4 KiB the retest had (biased the other way, which frequency's two-sided tail sees) repeat it
    assert doc["verdict"] == "fail" and doc["first_failure_bytes"] == 12288
    assert doc["tests"][0]["p_value"] == pytest.approx(1.876e-12, rel=1e-3)
    retest = doc["tests"][0]["retest"]
    assert retest["cut_short"] is True and retest["bytes"] == 4096 and retest["repeated"] is True


@pytest.mark.parametrize("how", ["the file ends", "Ctrl-C"])
def test_a_retest_cut_short_confirms_a_failure_but_does_not_clear_it(how, tmp_path):
    """A failure below fail x suspicious whose retest block is cut short
    half-way, by the end of a file or by a stop signal, and does not repeat
    it on the half it had, stays unconfirmed (fails the run), as with no
    fresh data at all: a stretch too short to see the bias again is no
    evidence against it.  Both ways of stopping there give one verdict."""
    # before: Ctrl-C settled it suspicious on the half block (the run passed); a file's end ignored the half
    import randqa
    from process_checks import StopsAfter
    from randqa.battery.suites import load_suite
    from randqa.engine import run_progressive

    rng, fair = np.random.default_rng(1), np.random.default_rng(3)
    data = np.packbits(rng.random(65536) < 0.514).tobytes() + np.packbits(fair.random(32768) < 0.5).tobytes()
    if how == "Ctrl-C":
        result = run_progressive(StopsAfter(data + bytes(8192), 12288), load_suite("quick").select(["frequency"]),
                                 8192, 1 << 16)
        assert result.interrupted
    else:
        path = tmp_path / "ends.bin"
        path.write_bytes(data)
        result = randqa.test(str(path), suite="quick", tests=["frequency"], progressive=True, min="8K")
    doc = result.to_json()
    first = doc["lengths"][0]["tests"][0]
    assert first["p_value"] == pytest.approx(1.876e-12, rel=1e-3) and first["verdict"] == "unconfirmed"
    assert first["retest"]["cut_short"] is True and first["retest"]["bytes"] == 4096
    assert first["retest"]["repeated"] is False and first["retest"]["p_value"] > 1e-3
    assert doc["first_failure_bytes"] == 8192 and doc["verdict"] == "unconfirmed"
    # the bound counts the checks such a cut retest may end: here every length's
    rate = doc["false_fail_rate"]
    assert rate["cut_checks"] == rate["tail_checks"] > 0


@pytest.mark.parametrize("stop_at, verdict", [(12288, "fail"), (8192 + 8, "suspicious")],
                         ids=["half-the-block", "too-little"])
def test_a_run_stopped_while_a_failure_is_retested_settles_it_on_the_fresh_data_read(stop_at, verdict):
    """A progressive run stopped (Ctrl-C, a CPU budget) while a failure waits
    for its repeat judges the repeat on the part of the next block it read:
    fresh data all the same.  Too little of it for the test settles the
    failure as a run whose data ended: suspicious, above fail_unrepeated."""
    from process_checks import StopsAfter
    from randqa.battery.suites import load_suite
    from randqa.engine import run_progressive

    rng = np.random.default_rng(1)
    data = np.packbits(rng.random(8 * 65536) < 0.512).tobytes()  # biased throughout: 64 KiB
    suite = load_suite("quick").select(["frequency"])
    result = run_progressive(StopsAfter(data, stop_at), suite, 8192, 1 << 16)
    assert result.interrupted and result.bytes_tested == stop_at
    first = result.progression.lengths[0]
    test = first["tests"][0]
    assert 1e-9 < test["p_value"] < 1e-6 and test["verdict"] == verdict
    if verdict == "fail":
        assert test["retest"]["from_bytes"] == 8192 and test["retest"]["bytes"] == stop_at - 8192
        assert test["retest"]["repeated"] is True and test["retest"]["p_value"] < 1e-3
        assert result.first_failure_bytes == stop_at and result.results[0].verdict == "fail"
    else:
        assert test["retest"]["reason"] == "too little data in the retest"
        assert result.first_failure_bytes is None


@pytest.mark.parametrize("progressive", [False, True], ids=["plain", "progressive"])
@pytest.mark.parametrize("bias, verdict", [(0.512, "suspicious"), (0.514, "unconfirmed")])
def test_a_run_stopped_before_its_retest_read_a_byte_settles_it_as_one_without_fresh_data(progressive, bias, verdict):
    """Stopped at the very end of a length (or a plain run's one), a result
    to retest has no fresh data: it fails only below fail x suspicious."""
    # before: it stayed unconfirmed whatever its p-value (2.96e-9 here): the run exited 1, above the stated bound
    from process_checks import StopsAfter
    from randqa.battery.suites import load_suite
    from randqa.engine import run, run_progressive

    rng = np.random.default_rng(1)
    data = np.packbits(rng.random(65536) < bias).tobytes() + bytes(8192)
    suite = load_suite("quick").select(["frequency"])
    source = StopsAfter(data, 8192)
    result = run_progressive(source, suite, 8192, 1 << 16) if progressive else run(source, suite, limit=1 << 16)
    assert result.interrupted and result.bytes_tested == 8192
    test = result.to_json()["tests"][0]
    assert (test["p_value"] < 1e-9) == (verdict == "unconfirmed") and 1e-12 < test["p_value"] < 1e-6
    assert test["verdict"] == result.verdict == verdict
    assert test["retest"]["reason"] == "the run was stopped" and test["retest"]["repeated"] is None
    if progressive:
        assert result.first_failure_bytes == (8192 if verdict == "unconfirmed" else None)


def test_a_checkpoint_saved_as_a_run_stops_does_not_hold_the_failure_judged_where_it_stopped():
    """A run stopped at 12 KiB fails there (p about 1e-10, no fresh data),
    and says so; its checkpoint, which a resumed run goes on from, does not:
    the resumed run judges that point anew, with the data after it."""
    # a first failure saved there would stop a resumed run at a length its record does not hold
    from process_checks import StopsAfter
    from randqa.battery.suites import load_suite
    from randqa.engine.records import Saver
    from randqa.engine.run import Progressive, run_stream

    class Recorder(Saver):
        def __init__(self) -> None:
            self.saved: list[dict] = []

        def save(self, progress, accumulators) -> None:
            self.saved.append(progress.to_json())

    fair, biased = np.random.default_rng(4), np.random.default_rng(5)
    data = np.packbits(fair.random(65536) < 0.5).tobytes() + np.packbits(biased.random(32768) < 0.535).tobytes()
    recorder = Recorder()
    result = run_stream(StopsAfter(data + bytes(8192), 12288), load_suite("quick").select(["frequency"]),
                        progressive=Progressive(8192, 1 << 16, False), saver=recorder)
    assert result.interrupted and result.verdict == "unconfirmed" and result.first_failure_bytes == 12288
    assert result.to_json()["tests"][0]["p_value"] < 1e-9
    assert recorder.saved and recorder.saved[-1]["position"] == 12288 and recorder.saved[-1]["first_failure"] is None
