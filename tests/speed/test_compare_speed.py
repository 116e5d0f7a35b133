"""compare reports speed as applications call each generator; a runtime's
generator is timed in the runtime itself, and compare answers per runtime.

``randqa compare glibc-rand-byte dnet-arc4 -n 1M --json c.json``: each run's
``speed_mb_s`` is its as-called speed and ``speed_method`` names how it was
called; glibc-rand-byte's speed is timed through the libc shim (counted
here), while randqa's reimplementation appears only as ``generation_mb_s``.
"""

from __future__ import annotations

import json
import shutil

import pytest

from randqa.cli import main
from randqa.errors import InputError
from randqa._report.html import load_document
from randqa.speed import as_called as as_called_module
from randqa.speed.as_called import COMPILED_METHOD


@pytest.fixture
def shim_calls(monkeypatch):
    """Bytes each call of the libc shim wrote, with the shim still doing its work."""
    calls: list[int] = []
    real = as_called_module._as_called.libc_rand_fill

    def counting(buffer, mode, seed=None):
        calls.append(len(buffer))
        return real(buffer, mode, seed=seed)

    monkeypatch.setattr(as_called_module._as_called, "libc_rand_fill", counting)
    return calls


def test_compare_json_has_as_called_speed_and_method(tmp_path, monkeypatch, capsys, shim_calls):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(["compare", "glibc-rand-byte", "dnet-arc4", "-n", "1M", "--json", "c.json"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    doc = json.loads((tmp_path / "c.json").read_text())
    runs = {r["source"]["name"]: r for r in doc["runs"]}
    rand, arc4 = runs["glibc-rand-byte"], runs["dnet-arc4"]
    assert rand["speed_method"] == "libc rand(), one call per byte"
    assert arc4["speed_method"] == COMPILED_METHOD
    # the speed runs went through libc's rand(): warm-up, sizing probe, then the repeats
    repeats = doc["speed_repeats"]
    assert sum(shim_calls) == (1 << 16) + (1 << 20) + repeats * rand["speed_bytes"]
    assert rand["speed_mb_s"] > 0 and rand["generation_mb_s"] > 0
    assert rand["generation_mb_s"] != rand["speed_mb_s"]  # the reimplementation, timed apart
    assert arc4["generation_mb_s"] == arc4["speed_mb_s"]  # one path: what is tested is what is called
    # the table: speed with a footnote marker per method, the feed column, nmap's answer
    row = next(line for line in out.splitlines() if line.startswith("glibc-rand-byte"))
    assert f"{rand['speed_mb_s']:.1f} a" in row and f"{rand['generation_mb_s']:.1f}" in row
    assert "a: libc rand(), one call per byte" in out and f"b: {COMPILED_METHOD}" in out
    assert "feed MB/s" in out and "nmap's question" in out and "fastest:" in out
    page = (tmp_path / "randqa-report.html").read_text()
    assert '<section id="answer" class="answer-block">' in page and '<sup class="marker">a</sup>' in page
    assert "libc rand(), one call per byte" in page


def test_report_refuses_a_speed_method_that_is_not_text(tmp_path):
    doc = {"source": {"name": "x", "seed": None}, "suite": "quick", "bytes_tested": 1, "verdict": "pass",
           "tests": [], "speed_mb_s": 1.0, "speed_method": 5}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match="speed_method: expected string or null"):
        load_document(str(path))


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_compare_times_runtimes_in_the_runtime_and_answers_per_runtime(tmp_path, monkeypatch, capsys):
    # NAME and NAME-live: the same bytes, both timed in node itself, and the runtimes' answer
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(["compare", "v8-math-random", "v8-math-random-live", "-n", "64K", "--seed", "5", "--speed-repeats", "1",
              "--no-predict", "--no-html", "--json", "c.json"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    runs = {r["source"]["name"]: r for r in json.loads((tmp_path / "c.json").read_text())["runs"]}
    c, live = runs["v8-math-random"], runs["v8-math-random-live"]
    assert c["speed_method"] == live["speed_method"] == "Math.random() in node's own loop, timed by node itself"
    assert c["speed_mb_s"] > 0 and c["generation_mb_s"] != c["speed_mb_s"]  # randqa's C feeds the tests
    assert c["runtime"]["live_equal"] and c["runtime"]["version"].startswith("node v")
    assert "live_equal" not in live["runtime"]  # the live twin is the runtime itself
    assert [t["statistic"] for t in c["tests"]] == [t["statistic"] for t in live["tests"]]
    sentence = next(line.strip() for line in out.splitlines() if line.strip().startswith("v8-math-random:"))
    assert sentence.endswith("no failure up to 64 KiB, predictability not checked")
    assert "live here" in out and "node 20" in out
