"""The Python API and the CLI are one program: same documents, same errors.

Source: the promise that ``randqa.test(np.random.PCG64(7),
"16M").to_json()`` equal, apart from timings, ``randqa test pcg64``'s JSON for
the same bytes, and that bad arguments raise the lines the CLI prints.  The
CLI runs in-process (``randqa.cli.main``); 16 MiB with the standard suite
for the equality, no data for the errors.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import randqa
from randqa.cli import main

from schema_check import assert_valid_document

#: what differs between two runs of the same bytes: when and how long, and the command typed
TIMING_KEYS = {"elapsed_s", "date", "command"}


def without_timings(doc: dict) -> dict:
    doc = {k: v for k, v in doc.items() if k not in TIMING_KEYS}
    if "lengths" in doc:
        doc["lengths"] = [{k: v for k, v in step.items() if k != "elapsed_s"} for step in doc["lengths"]]
    return doc


def cli_document(tmp_path: Path, *args: str) -> dict:
    out = tmp_path / "cli.json"
    with pytest.raises(SystemExit):
        main(["test", *args, "--json", str(out)])
    return json.loads(out.read_text())


def test_a_pcg64_instance_gives_the_document_of_randqa_test_pcg64(tmp_path):
    api = randqa.test(np.random.PCG64(7), "16M").to_json()
    cli = cli_document(tmp_path, "pcg64", "--seed", "7", "-n", "16M")
    assert without_timings(api) == without_timings(cli)
    assert api["bytes_tested"] == 16 << 20 and len(api["tests"]) > 30
    assert api["command"] == "randqa.test(<numpy.random.PCG64 instance>, n='16M')"
    assert_valid_document(api)
    assert_valid_document(cli)


@pytest.mark.parametrize("api_call, cli_args", [
    (lambda: randqa.test("lfsr113", seed=1, progressive=True, max="64K"),
     ["lfsr113", "--seed", "1", "--progressive", "--max", "64K"]),
    (lambda: randqa.test("glibc-rand-short", "64K", seed=2, word_bits=16, low_bits=1, suite="quick"),
     ["glibc-rand-short", "-n", "64K", "--seed", "2", "--word-bits", "16", "--low-bits", "1", "--suite", "quick"]),
    (lambda: randqa.test("arc4", seed_sweep=2000, positions=16),
     ["arc4", "--seed-sweep", "2000", "--positions", "16"]),
], ids=["progressive", "folded", "seed sweep"])
def test_every_mode_gives_the_cli_document(api_call, cli_args, tmp_path):
    api = api_call().to_json()
    assert without_timings(api) == without_timings(cli_document(tmp_path, *cli_args))
    assert_valid_document(api)


def test_a_seed_sweep_of_your_own_generator_runs_from_the_cli_as_from_the_api(tmp_path, monkeypatch):
    # RC4's first bytes lean on its key: a make(seed) of the arc4 backend, swept
    (tmp_path / "own_rc4.py").write_text(
        "from randqa.sources import open_source\n\n"
        "def make(seed):\n    return open_source('arc4', seed=seed)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import own_rc4

    cli = cli_document(tmp_path, "own_rc4:make", "--seed-sweep", "65536", "--positions", "16")
    api = randqa.test(own_rc4.make, seed_sweep=65536, positions=16).to_json()
    assert cli["verdict"] == api["verdict"] == "fail"
    assert [(t["name"], t["p_value"]) for t in cli["tests"]] == [(t["name"], t["p_value"]) for t in api["tests"]]


def test_json_and_html_keywords_write_what_the_cli_writes(tmp_path):
    json_path, html_path = tmp_path / "r.json", tmp_path / "r.html"
    result = randqa.test("pcg64", "64K", seed=1, suite="quick", json=json_path, html=html_path)
    assert json.loads(json_path.read_text()) == result.to_json()
    page = html_path.read_text()
    assert page.startswith("<!DOCTYPE html>") and "pcg64" in page and "<svg" in page


def cli_error(capsys, *args: str) -> str:
    with pytest.raises(SystemExit) as info:
        main(["test", *args])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("randqa: error: ")
    return err[len("randqa: error: "):].rstrip("\n")


def named_as_the_api_does(line: str, api_kwargs: dict) -> str:
    """The CLI's ``line`` as the API words it: its ``threads`` has --jobs's
    range (and the same place among the checks) under its own name."""
    return line.replace("'-j' / '--jobs'", "threads") if "threads" in api_kwargs else line


@pytest.mark.parametrize("cli_args, api_kwargs", [
    (["pcg64", "--low-bits", "2"], {"low_bits": 2}),
    (["pcg64", "--sequences", "2"], {"sequences": 2}),
    (["pcg64", "--suite", "nist-sp800-22", "--sequences", "2", "-n", "1M"], {"suite": "nist-sp800-22", "sequences": 2, "n": "1M"}),
    (["pcg64", "--seed-sweep", "100", "-n", "1K"], {"seed_sweep": 100, "n": "1K"}),
    (["pcg64", "--seed-sweep", "100", "--progressive"], {"seed_sweep": 100, "progressive": True}),
    (["pcg64", "--seed", "-1"], {"seed": -1}),
    (["pcg64", "--word-bits", "12"], {"word_bits": 12}),
    (["pcg64", "--word-bits", "16", "--low-bits", "64"], {"word_bits": 16, "low_bits": 64}),
    (["pcg64", "--word-bits", "8", "--low-bits", "9"], {"word_bits": 8, "low_bits": 9}),
    (["pcg64", "-j", "0"], {"threads": 0}),
    (["pcg64", "-j", "0"], {"jobs": 0}),  # the deprecated name of threads
    (["pcg64", "--positions", "5000", "--seed-sweep", "10"], {"positions": 5000, "seed_sweep": 10}),
    (["pcg64", "-n", "12Q"], {"n": "12Q"}),
    (["pcg64", "-n", "0"], {"n": 0}),
    (["pcg64", "--min", "0", "--progressive"], {"min": 0, "progressive": True}),
    (["pcg64", "--progressive", "--min", "4K", "--max", "1K"], {"progressive": True, "min": "4K", "max": "1K"}),
    (["pcg64", "--suite", "no-such-suite"], {"suite": "no-such-suite"}),
    (["pcg64", "--tests", "chi_square,nope"], {"tests": "chi_square,nope"}),
    (["pcg64", "--tests", ","], {"tests": ","}),
    (["pcg64", "--format", "bits"], {"format": "bits"}),
    (["pcg64", "--json", "/no/such/folder/r.json"], {"json": "/no/such/folder/r.json"}),
    (["pcg64", "--html", "/no/such/folder/r.html"], {"html": "/no/such/folder/r.html"}),
    (["pcg64", "-j", "0", "--json", "/no/such/folder/r.json"], {"threads": 0, "json": "/no/such/folder/r.json"}),
    (["pcg64", "--json", "/no/such/folder/r.json", "--suite", "nope"], {"json": "/no/such/folder/r.json", "suite": "nope"}),
    (["pcgg64"], {}),
    (["arc4-drop:x"], {}),
    (["pcg64:5"], {}),
    (["no_such_module:Gen"], {}),
])
@pytest.mark.filterwarnings(r"ignore:randqa\.test\(jobs=:DeprecationWarning")  # its deprecated cases
def test_bad_arguments_raise_the_line_the_cli_prints(capsys, cli_args, api_kwargs):
    expected = named_as_the_api_does(cli_error(capsys, *cli_args), api_kwargs)
    with pytest.raises(ValueError) as info:
        randqa.test(cli_args[0], **api_kwargs)
    assert str(info.value) == expected


def test_a_file_refuses_a_seed_as_the_cli_does(capsys, tmp_path):
    data = tmp_path / "d.bin"
    data.write_bytes(bytes(1000))
    expected = cli_error(capsys, str(data), "--seed", "1")
    with pytest.raises(ValueError) as info:
        randqa.test(data, seed=1)
    assert str(info.value) == expected
    expected = cli_error(capsys, str(data), "--seed-sweep", "10")
    with pytest.raises(ValueError) as info:
        randqa.test(str(data), seed_sweep=10)
    assert str(info.value) == expected


@pytest.mark.parametrize("cli_args, api_kwargs", [
    (["--no-progressive", "--min", "1M"], {"progressive": False, "min": "1M"}),
    (["--progressive", "--min", "1M", "--max", "64K"], {"progressive": True, "min": "1M", "max": "64K"}),
    (["--speed-repeats", "0"], {"speed_repeats": 0}),
    (["--suite", "nope"], {"suite": "nope"}),
    (["-j", "0", "--no-progressive", "--min", "1M"], {"threads": 0, "progressive": False, "min": "1M"}),
    (["--json", "/no/such/folder/c.json", "--suite", "nope"], {"json": "/no/such/folder/c.json", "suite": "nope"}),
    (["--preset", "runtimes"], {"preset": "runtimes"}),
])
def test_compare_raises_the_line_the_cli_prints(capsys, cli_args, api_kwargs):
    with pytest.raises(SystemExit):
        main(["compare", "pcg64", *cli_args, "--no-html"])
    expected = named_as_the_api_does(capsys.readouterr().err[len("randqa: error: "):].rstrip("\n"), api_kwargs)
    with pytest.raises(ValueError) as info:
        randqa.compare(["pcg64"], **api_kwargs)
    assert str(info.value) == expected
