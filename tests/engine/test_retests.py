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


def test_a_file_that_ends_leaves_the_failure_unconfirmed(cli, tmp_path):
    path = tmp_path / "biased.bin"
    path.write_bytes(biased_bits(1, seed=1)[:8192])
    run = cli("test", str(path), "--suite", "quick", "--tests", "frequency", "--json", "-")
    assert run.returncode == 1, run.stderr  # below the fail threshold, and nothing to repeat it on
    doc = run.json()
    assert doc["verdict"] == "unconfirmed" and doc["tests"][0]["verdict"] == "unconfirmed"
    assert doc["tests"][0]["retest"] == {"from_bytes": 8192, "bytes": 8192, "p_value": None, "repeated": None,
                                         "reason": "the data ended"}
    assert doc["false_fail_rate"]["tail_checks"] == 1


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
