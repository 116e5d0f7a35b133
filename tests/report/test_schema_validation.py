"""The JSON Schemas (randqa/schema/) against the documents randqa writes,
and ``randqa report``'s one-line errors built from them.

Source: JSON Schema 2020-12 (https://json-schema.org/draft/2020-12), checked
with the ``jsonschema`` package's Draft202012Validator.  Every mode of
``randqa test`` (plain, progressive, seed sweep, bit text, folding, NIST
sequences) and every kind of backend (compiled C, numpy, Python's random,
the OS, a parameter, ``module:attr``) writes one document, each validated;
so do ``randqa compare`` and the Python API.  Data: 4-64 KiB per run, the
quick suite where the mode allows.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from jsonschema import Draft202012Validator
from conftest import assert_report_refuses, run_main
from schema_check import assert_valid_document

from randqa._report.html import load_document
from randqa._report.schema import schema, schema_text
from randqa.errors import InputError


@pytest.fixture(scope="module")
def data_file(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("data") / "random.bin"
    path.write_bytes(np.random.Generator(np.random.PCG64(11)).bytes(1 << 16))
    return str(path)


@pytest.fixture(scope="module")
def bit_text(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("data") / "bits.txt"
    bits = np.random.Generator(np.random.PCG64(12)).integers(0, 2, 20_003)
    path.write_text("".join(map(str, bits)) + "\n")
    return str(path)


def test_the_schemas_are_valid_2020_12_schemas():
    for kind in ("run", "compare"):
        Draft202012Validator.check_schema(schema(kind))
        assert schema(kind)["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert json.loads(schema_text(kind)) == schema(kind)


RUNS = {
    "plain, numpy backend": ["pcg64", "-n", "64K", "--seed", "1", "--suite", "quick"],
    "plain, compiled backend that fails": ["msvc-rand-byte", "-n", "64K", "--seed", "1", "--suite", "quick"],
    "python-random": ["python-random", "-n", "16K", "--seed", "1", "--suite", "quick"],
    "OS source, seed ignored": ["urandom", "-n", "16K", "--seed", "3", "--suite", "quick"],
    "getrandom": ["getrandom", "-n", "16K", "--suite", "quick"],
    "backend parameter": ["arc4-drop:768", "-n", "16K", "--seed", "2", "--suite", "quick"],
    "module:attr": ["numpy.random:SFC64", "-n", "16K", "--seed", "2", "--suite", "quick"],
    "progressive standard": ["lfsr113", "--progressive", "--max", "8K", "--seed", "1"],
    "progressive keep going": ["randu", "--progressive", "--max", "4K", "--keep-going", "--seed", "1", "--suite", "quick"],
    "folded": ["glibc-rand-short", "--word-bits", "16", "--low-bits", "1", "-n", "16K", "--seed", "1", "--suite", "quick"],
    "seed sweep": ["arc4", "--seed-sweep", "300", "--positions", "8"],
    "nist sequences": ["pcg64", "--suite", "nist-sp800-22", "--sequences", "1", "--seed", "1", "--tests", "frequency,runs"],
}


@pytest.mark.parametrize("args", RUNS.values(), ids=RUNS.keys())
def test_every_mode_and_backend_writes_a_valid_run_document(args, tmp_path):
    out = tmp_path / "run.json"
    assert run_main("test", *args, "--json", str(out)) in (0, 1)
    assert assert_valid_document(out) == "run"
    assert load_document(str(out))["source"]["name"]  # and `randqa report` reads it


@pytest.mark.parametrize("args", [["--suite", "quick"], ["--format", "bits", "--suite", "quick"],
                                  ["--progressive", "--min", "4K", "--suite", "quick"]], ids=["bytes", "bits", "progressive"])
def test_data_sources_write_valid_run_documents(args, data_file, bit_text, tmp_path):
    out = tmp_path / "run.json"
    source = bit_text if "bits" in args else data_file
    assert run_main("test", source, *args, "--json", str(out)) in (0, 1)
    doc = json.loads(out.read_text())
    assert assert_valid_document(doc) == "run"
    assert ("bits_requested" in doc) == ("bits" in args)


@pytest.mark.parametrize("progressive", [["--progressive", "--min", "8K", "--max", "32K"], ["--no-progressive", "-n", "32K"]])
def test_compare_writes_a_valid_compare_document(progressive, data_file, tmp_path):
    out = tmp_path / "compare.json"
    assert run_main("compare", "pcg64", "minstd", "openssl", data_file, *progressive, "--suite", "quick",
                    "--speed-repeats", "1", "--json", str(out), "--no-html") == 0
    doc = json.loads(out.read_text())
    assert assert_valid_document(doc) == "compare"
    assert [r["speed_mb_s"] is None for r in doc["runs"]] == [False, False, False, True]


def test_the_schema_check_lists_every_problem(tmp_path):
    out = tmp_path / "run.json"
    run_main("test", "pcg64", "-n", "16K", "--seed", "1", "--suite", "quick", "--json", str(out))
    doc = json.loads(out.read_text())
    doc["tests"][0]["verdict"] = "great"
    doc["bytes_tested"] = -1
    del doc["notes"]
    with pytest.raises(AssertionError) as info:
        assert_valid_document(doc)
    text = str(info.value)
    assert "3 problems" in text and "tests/0/verdict" in text and "bytes_tested" in text and "notes" in text


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("saved") / "p.json"
    run_main("test", "pcg64", "--progressive", "--max", "4K", "--seed", "1", "--suite", "quick", "--json", str(out))
    return json.loads(out.read_text())


_DROPPED = object()


def _changed(path: tuple, value: object = _DROPPED):
    """An edit of a saved document: the field at ``path`` set to ``value``, or dropped."""
    def edit(doc: dict) -> dict:
        *parents, last = path
        inner = doc
        for key in parents:
            inner = inner[key]
        if value is _DROPPED:
            del inner[last]
        else:
            inner[last] = value
        return doc
    return edit


def _compare_of(run: dict) -> dict:
    """A compare document whose one run is ``run`` (a test run's document, which has no speed)."""
    return {"randqa_version": "0", "kind": "compare", "command": "c", "date": "d", "platform": "p", "python": "3",
            "cpu": "c", "suite": "quick", "bytes_requested": 1024, "progressive": True, "speed_repeats": 1,
            "elapsed_s": 1.0, "interrupted": False, "runs": [run]}


#: how a saved document is broken, and the problem its refusal names
BROKEN = {
    "no first failure": (_changed(("first_failure_bytes",)), "missing key 'first_failure_bytes' (it goes with 'lengths')"),
    "no requested": (_changed(("bytes_requested",)), "missing key 'bytes_requested' or 'bits_requested'"),
    "negative bytes": (_changed(("bytes_tested",), -5), "bytes_tested: -5 must not be negative"),
    "threshold": (_changed(("thresholds", "fail"), 1.5), "thresholds.fail: 1.5 is not between 0 and 1"),
    "length verdict": (_changed(("lengths", 1, "verdict"), "ok"), "lengths[1].verdict: unknown verdict 'ok'"),
    "seed text": (_changed(("source", "seed"), "7"), "source.seed: expected integer or null, got string"),
    "note number": (_changed(("notes",), [3]), "notes[0]: expected string, got integer"),
    "compare without speed": (_compare_of, "runs[0]: missing key 'speed_mb_s'"),
}


def _broken(doc: dict, how: str) -> dict:
    """A copy of ``doc`` broken as BROKEN[how] says."""
    return BROKEN[how][0](json.loads(json.dumps(doc)))


@pytest.mark.parametrize("how", BROKEN)
def test_report_names_the_file_and_the_field_in_one_line(saved, tmp_path, capsys, how):
    problem = BROKEN[how][1]
    path = assert_report_refuses(tmp_path, capsys, json.dumps(_broken(saved, how)).encode(), problem)
    with pytest.raises(InputError) as info:
        load_document(str(path))
    assert str(info.value) .startswith(f"{path}: ") and problem in str(info.value), str(info.value)
    assert "\n" not in str(info.value)
    with pytest.raises(AssertionError):
        assert_valid_document(_broken(saved, how))
