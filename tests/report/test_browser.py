"""The HTML report of a real `randqa compare`, opened in headless Chromium.

Debian's `chromium` driven by Playwright for Python (never `playwright
install`: the browser comes from apt).  The page must load from disk with no
console error and no request leaving the file, show every source of the JSON
in its summary table with its verdict, draw its charts, and print.  A
screenshot goes to $RANDQA_SCREENSHOT (or the test's tmp folder) for review.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from randqa.cli import main

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

#: a good generator and a bad one (IBM's RANDU), real backends of `randqa list`,
#: so the speed chart shows a pass and a fail
GENERATORS = ["pcg64", "randu"]


def _chromium() -> str:
    path = os.environ.get("RANDQA_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not os.path.exists(path):
        pytest.skip("Debian chromium is not installed (apt-get install chromium), so the report cannot be opened in a browser")
    return path


@pytest.fixture
def compare_sources(tmp_path) -> list[str]:
    """Two generators and a file that fails."""
    counter = tmp_path / "counter.bin"
    counter.write_bytes(np.arange(1 << 20, dtype=np.uint32).astype(np.uint8).tobytes())
    return GENERATORS + [str(counter)]


def test_compare_report_in_headless_chromium(compare_sources, tmp_path, capsys):
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install playwright)")
    chromium = _chromium()
    json_path, html_path = tmp_path / "compare.json", tmp_path / "report.html"
    progressive = ["--progressive", "--min", "256K", "--max", "2M"]
    with pytest.raises(SystemExit) as exit_info:
        main(["compare", *compare_sources, *progressive, "--speed-repeats", "2",
              "--json", str(json_path), "--html", str(html_path)])
    assert exit_info.value.code == 0
    doc = json.loads(json_path.read_text())
    assert [r["source"]["name"] for r in doc["runs"]] == compare_sources

    screenshot = Path(os.environ.get("RANDQA_SCREENSHOT") or tmp_path / "report.png")
    screenshot.parent.mkdir(parents=True, exist_ok=True)
    page_url = html_path.resolve().as_uri()
    console_errors: list[str] = []
    requests: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: console_errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(page_url, wait_until="load")
            page.wait_for_load_state("networkidle")

            rows = page.eval_on_selector_all(
                "#summary tbody tr",
                "rows => rows.map(r => [r.querySelector('td.source').innerText.trim(),"
                " r.querySelector('td.verdict').innerText.trim().toLowerCase()])")
            charts = page.eval_on_selector_all(
                "figure svg", "svgs => svgs.map(s => { const b = s.getBoundingClientRect(); return [b.width, b.height]; })")
            page.screenshot(path=str(screenshot), full_page=True)
            page.emulate_media(media="print")
            printed = page.pdf(format="A4", print_background=True)
            print_rows = page.eval_on_selector_all("#summary tbody tr", "rows => rows.filter(r => r.offsetHeight > 0).length")
        finally:
            browser.close()

    assert console_errors == []
    assert requests == [page_url], "requests left the file"
    assert rows == [[r["source"]["name"], r["verdict"]] for r in doc["runs"]]
    generators = sum(1 for r in doc["runs"] if r["speed_mb_s"] is not None)
    progressive_runs = sum(1 for r in doc["runs"] if r.get("lengths"))
    assert len(charts) == 1 + progressive_runs and generators >= 1
    assert all(w > 200 and h > 100 for w, h in charts), charts
    assert all(isinstance(r["source"]["seed"], int) for r in doc["runs"][:len(GENERATORS)])  # drawn and recorded
    assert printed.startswith(b"%PDF") and print_rows == len(doc["runs"])
    assert screenshot.stat().st_size > 10_000
    with capsys.disabled():
        print(f"\nreport screenshot: {screenshot}", file=sys.stderr)
