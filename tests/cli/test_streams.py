"""``--streams K --stream-seeds SCHEME [--interleave BYTES]`` on ``randqa
test``, ``compare`` and ``generate`` (cli/streams.py): nonsense is refused
with one line and exit 2; ``generate`` writes exactly the interleaved bytes
of the generator's seeded streams, which ``test`` reads; the JSON records
the streams, the scheme and the interleaving and fits the schema;
``compare`` tests each seeding scheme side by side.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import run_cli_inprocess
from schema_check import assert_valid_document


@pytest.mark.parametrize("args, problem", [
    (["test", "pcg64", "--streams", "1", "--stream-seeds", "spawn"], "'--streams': 1 is not in the range 2<=x<=256"),
    (["test", "pcg64", "--streams", "2", "--stream-seeds", "spawn", "--interleave", "0"], "--interleave: invalid size '0'"),
    (["test", "pcg64", "--streams", "2", "--stream-seeds", "spawn", "--interleave", "1M", "-n", "64K"],
     "the run's 64 KiB give stream 2 of 2 no bytes"),
    (["test", "pcg64", "--streams", "3", "--stream-seeds", "spawn", "--interleave", "1000", "-n", "2000"],
     "give stream 3 of 3 no bytes"),
    (["test", "pcg64", "--streams", "2", "--stream-seeds", "spawn", "--interleave", "1M", "--progressive",
      "--max", "1M"], "the run's 1 MiB give stream 2 of 2 no bytes"),
    (["compare", "pcg64", "--streams", "2", "--stream-seeds", "spawn", "--interleave", "1M", "-n", "64K"],
     "give stream 2 of 2 no bytes"),
    (["test", "-", "--streams", "2", "--stream-seeds", "consecutive"], "--streams needs a generator"),
    (["test", "java-random", "--streams", "4", "--stream-seeds", "jump"], "java-random cannot jump"),
    (["test", "minstd", "--streams", "4", "--stream-seeds", "spawn"], "minstd is not seeded through numpy's SeedSequence"),
    (["test", "pcg64", "--streams", "4"], "--streams needs --stream-seeds SCHEME"),
    (["test", "pcg64", "--interleave", "8"], "--stream-seeds and --interleave need --streams K"),
    (["test", "pcg64", "--streams", "2", "--stream-seeds", "spawn", "--word-bits", "8"], "it takes no --seed-sweep"),
    (["compare", "pcg64", "--streams", "2", "--stream-seeds", "spawn", "--stream-seeds", "spawn"], "each scheme once"),
    (["generate", "pcg64", "--streams", "2", "--stream-seeds", "cycle", "-n", "8"], "--stream-seeds 'cycle': use one of"),
])
def test_nonsense_is_refused_with_one_line(capsys, args, problem):
    code, _, err = run_cli_inprocess(capsys, *args)
    assert code == 2 and err.count("\n") == 1 and problem in err, err


def test_a_run_that_reaches_every_stream_is_taken(capsys):
    code, _, err = run_cli_inprocess(capsys, "test", "pcg64", "--streams", "3", "--stream-seeds", "spawn",
                                     "--interleave", "1000", "-n", "2001", "--jobs", "1")
    assert code == 0, err


def test_a_file_is_refused(capsys, random_file):
    code, _, err = run_cli_inprocess(capsys, "test", random_file, "--streams", "2", "--stream-seeds", "consecutive")
    assert code == 2 and "--streams needs a generator (randqa list), not stdin or a file" in err


def test_generate_writes_what_test_reads(capsys, tmp_path):
    for seed in (5, 6):
        assert run_cli_inprocess(capsys, "generate", "minstd", "--seed", str(seed), "-n", "4K",
                                 "-o", str(tmp_path / f"{seed}.bin"))[0] == 0
    code, _, err = run_cli_inprocess(capsys, "generate", "minstd", "--streams", "2", "--stream-seeds", "consecutive",
                                     "--seed", "5", "--interleave", "8", "-n", "8K", "-o", str(tmp_path / "both.bin"))
    assert code == 0 and "minstd[2 streams, consecutive] seed 5" in err
    parts = [np.fromfile(tmp_path / f"{seed}.bin", dtype=np.uint8).reshape(-1, 8) for seed in (5, 6)]
    assert np.array_equal(np.fromfile(tmp_path / "both.bin", dtype=np.uint8), np.stack(parts, axis=1).reshape(-1))
    report = tmp_path / "r.json"
    code, _, _ = run_cli_inprocess(capsys, "test", "minstd", "--streams", "2", "--stream-seeds", "consecutive",
                                   "--seed", "5", "--interleave", "8", "-n", "16K", "--suite", "quick", "-j", "1",
                                   "--json", str(report))
    doc = json.loads(report.read_text())
    assert code == 1 and assert_valid_document(doc) == "run"
    assert doc["source"]["streams"] == {"count": 2, "scheme": "consecutive", "interleave_bytes": 8,
                                        "members": [{"index": 0, "seed": 5}, {"index": 1, "seed": 6}]}
    # MINSTD fails alone, and its consecutive seeds' XOR too (8 KiB a stream: chi_square's 32 expected per bin)
    failed = {t["name"] for t in doc["tests"] if t["verdict"] == "fail"}
    assert {"chi_square[stream 0]", "chi_square[stream 1]", "chi_square[streams 0 xor 1]"} <= failed


def test_compare_puts_seeding_schemes_side_by_side(capsys, tmp_path):
    report = tmp_path / "c.json"
    code, out, _ = run_cli_inprocess(capsys, "compare", "mt19937", "--streams", "2", "--stream-seeds", "consecutive",
                                     "--stream-seeds", "jump", "-n", "64K", "--no-progressive", "--suite", "quick",
                                     "--seed", "3", "--speed-repeats", "1", "--no-predict", "--no-html", "-j", "1",
                                     "--json", str(report))
    doc = json.loads(report.read_text())
    assert code == 0 and assert_valid_document(doc) == "compare"
    assert [r["source"]["name"] for r in doc["runs"]] == ["mt19937[2 streams, consecutive]", "mt19937[2 streams, jump]"]
    assert doc["runs"][1]["source"]["streams"]["members"][1]["jumps"] == 1
    assert "mt19937[2 streams, jump]" in out
