"""`randqa predict` and the "predictable from" column of `randqa compare`,
run as a user runs them."""

from __future__ import annotations

import json

import pytest

from cli_harness import randqa_command, run
from conftest import run_cli


def test_predict_recovers_lfsr113_and_says_from_how_many_bytes():
    result = run_cli("predict", "lfsr113", "--seed", "1", "--json", "-")
    assert result.returncode == 0, result.stderr
    doc = result.json()
    assert doc["kind"] == "predict" and doc["source"]["name"] == "lfsr113"
    linear = {p["name"]: p for p in doc["predictors"]}["gf2-linear"]
    assert linear["succeeded"] and linear["exact_fraction"] == 1.0 and linear["checked_bytes"] >= 65536
    # LFSR113's four components have 113 bits of state: 2 x 113 outputs of 4 bytes
    assert doc["predictable_from_bytes"] == linear["observed_bytes"] == 904
    assert "predictable from 904 bytes (gf2-linear)" in result.stderr


def test_predict_claims_nothing_on_siprand():
    result = run_cli("predict", "siprand", "--seed", "1")
    assert result.returncode == 0, result.stderr
    assert "no predictor succeeded" in result.stdout and "not a proof" in result.stdout
    assert "unpredictable" not in result.stdout


@pytest.mark.parametrize("args, problem", [
    (["predict", "no-such-generator"], "unknown source"),
    (["predict", "-"], "empty"),
    (["predict", "pcg64", "--predictors", "crystal-ball"], "unknown predictor"),
    (["predict", "pcg64", "-n", "0"], "invalid size"),
])
def test_predict_refuses_bad_input_in_one_line(args, problem):
    result = run_cli(*args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and problem in lines[0] and "Traceback" not in result.stderr


def test_compare_shows_which_sources_are_predictable():
    result = run_cli("compare", "lfsr113", "siprand", "-n", "64K", "--seed", "3", "--no-html",
                     "--speed-repeats", "1", "--json", "-")
    assert result.returncode == 0, result.stderr
    runs = {r["source"]["name"]: r for r in result.json()["runs"]}
    assert runs["lfsr113"]["predictable_from_bytes"] == 904 and runs["lfsr113"]["predictor"] == "gf2-linear"
    assert runs["siprand"]["predictable_from_bytes"] is None
    assert "predictable from" in result.stderr


def test_predict_memory_grows_with_what_arrives_not_with_n(tmp_path):
    # before: `-n 2G` allocated 2 GiB up front, whatever came (2.1 GB peak for 100 bytes)
    short = tmp_path / "short.bin"
    short.write_bytes(bytes(range(100)))
    with open(short, "rb") as stdin:
        result = run(randqa_command("predict", "-", "-n", "2G", "--json", "-"), stdin=stdin.fileno())
    assert result.code == 0, result.err
    assert json.loads(result.out)["bytes_read"] == 100
    assert result.max_rss < 400 << 20, f"peak {result.max_rss >> 20} MiB for 100 bytes"
