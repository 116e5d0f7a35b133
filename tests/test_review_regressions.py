"""Regressions found in review: each of these once gave a wrong result, a
traceback or lost output."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

from conftest import pcg64_bytes
from randqa.battery.base import Accumulator
from randqa.engine import run, run_progressive
from randqa.results import TestResult
from randqa.sources import open_backend
from randqa.battery.suites import Suite, TestSpec, load_suite, parse_suite
from randqa.results import Thresholds


def write_suite(tmp_path, body: str):
    path = tmp_path / "s.toml"
    path.write_text(body)
    return str(path)


def test_sequences_of_bit_text_count_bits(cli, tmp_path):
    suite = write_suite(tmp_path, "[[tests]]\ntest = 'frequency'\nsequence_bits = 8000\n")
    bits = np.unpackbits(np.frombuffer(pcg64_bytes(4000, 1), dtype=np.uint8))
    text = "".join(map(str, bits.tolist())).encode()
    doc = cli("test", "-", "--format", "bits", "--suite", suite, "--sequences", "3", "--json", "-", input=text).json()
    assert doc["bits_tested"] == 24000
    assert doc["tests"][0]["details"]["sequences"] == 3


def test_short_sequences_do_not_fail_a_good_generator_on_uniformity(cli, tmp_path):
    # 800-bit sequences give frequency p-values on a coarse lattice: no uniformity check then
    suite = write_suite(tmp_path, "[[tests]]\ntest = 'frequency'\nsequence_bits = 800\n")
    result = cli("test", "pcg64", "--seed", "1", "-n", "1M", "--suite", suite, "--json", "-")
    assert result.returncode == 0, result.stdout
    assert "uniformity_chi2" not in result.json()["tests"][0]["details"]


class InterruptOnFinalize(Accumulator):
    """Sends itself SIGINT while its results are being judged, once."""

    name = "interrupter"

    def __init__(self) -> None:
        super().__init__()
        self.sent = False

    def _update(self, chunk: np.ndarray) -> None:
        pass

    def _merge(self, other: Accumulator) -> None:
        pass

    def finalize(self) -> list[TestResult]:
        if self.bytes_seen >= 4096 and not self.sent:
            self.sent = True
            os.kill(os.getpid(), signal.SIGINT)
        return [TestResult(self.name, 0.0, 0.5)]


def test_ctrl_c_while_judging_keeps_the_lengths_judged(monkeypatch):
    suite = load_suite("quick")
    acc = InterruptOnFinalize()
    monkeypatch.setattr(suite, "build", lambda: [acc])
    with open_backend("pcg64", 1) as source:
        result = run_progressive(source, suite, 1024, 1 << 20)
    assert result.interrupted
    assert [e["bytes"] for e in result.extra["lengths"]] == [1024, 2048, 4096]


def test_ctrl_c_while_judging_a_plain_run_keeps_the_results(monkeypatch):
    suite = load_suite("quick")
    acc = InterruptOnFinalize()
    monkeypatch.setattr(suite, "build", lambda: [acc])
    with open_backend("pcg64", 1) as source:
        result = run(source, suite, limit=8192)
    assert result.interrupted and result.results[0].pvalue == 0.5


@pytest.mark.parametrize("entry, problem", [
    ("test = 'serial_correlation'\nlags = [1, 1]", "distinct"),
    ("test = 'birthday_spacings'\nword_bytes = 4.0", "whole number"),
    ("test = 'birthday_spacings'\nbits_per_word = 31.5", "whole number"),
    ("test = 'frequency'\nfold_word_bits = 8.0\nfold_low_bits = 1", "folding"),
    ("test = 'frequency'\nfold_word_bits = 8\nfold_low_bits = true", "folding"),
    ("test = 'frequency'\nfold_low_bits = 1", "folding"),
])
def test_suite_values_of_the_wrong_kind_are_refused(entry, problem):
    from randqa.errors import SuiteError

    with pytest.raises(SuiteError, match=problem):
        parse_suite(f"[[tests]]\n{entry}\n".encode(), "s.toml")


def test_folding_keys_do_not_take_a_tests_own_word_bits():
    suite = parse_suite(b"[[tests]]\ntest = 'bit_linear_complexity'\nword_bits = 16\nbits = [0]\nlength = 64\n"
                        b"fold_word_bits = 32\nfold_low_bits = 8\n", "s.toml")
    acc = suite.build()[0]
    assert acc.inner.word_bits == 16 and acc.word_bits == 32


def test_folded_per_sequence_results_keep_their_name():
    spec = TestSpec("frequency", {}, sequence_bits=80_000, fold=(32, 1))
    acc = Suite("x", "", Thresholds(), [spec], "x").build()[0]
    acc.update(np.zeros(1000, dtype=np.uint8))
    assert acc.finalize()[0].name == "frequency[low1/32]"


def test_nearly_constant_input_writes_valid_json(cli, tmp_path):
    path = tmp_path / "one.bin"
    path.write_bytes(bytes(1000) + b"\xff")
    result = cli("test", str(path), "--suite", "quick", "--json", str(tmp_path / "o.json"))
    assert result.returncode in (0, 1) and "Traceback" not in result.stderr
    assert (tmp_path / "o.json").read_text().startswith("{")


def test_unwritable_json_path_is_refused_before_the_run(cli):
    result = cli("test", "pcg64", "-n", "1M", "--json", "/nonexistent-folder/x.json")
    assert result.returncode == 2 and result.stderr.count("\n") == 1


def test_option_mistakes_are_refused(cli):
    for args in (["--tests", ","], ["--low-bits", "2"], ["--seed-sweep", "2000", "-n", "1M"]):
        result = cli("test", "pcg64", *args)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, args
