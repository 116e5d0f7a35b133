"""The compare report of the quick start's nine sources, laid out by headless
Chromium at a desktop's width and a phone's: no two pieces of text overlap
(the page's own and the charts' SVG text), the page never scrolls sideways,
the run's verdict and its false-FAIL bound come before the first chart, and
the page is at most a third of the 37,961 px it took at 1,400 px before the
report was folded (the quick start's `randqa compare`, issue 34).

The nine sources are `randqa compare`'s default set, tested on 256 KiB at
doubling lengths, so the report has the quick start's rows and charts in a
few seconds.  Debian's `chromium` is driven by Playwright (never `playwright
install`); without either the test is skipped, saying which is missing.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from randqa._report.html import render_html
from randqa.cli import main

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

#: the quick start's report at 1,400 px before it was folded (issue 34)
QUICK_START_HEIGHT_BEFORE = 37_961

#: every piece of text on the page with its boxes, as [label, [[x0, y0, x1, y1], ...]]:
#: the page's text nodes (one box per line they take) and each SVG <text>; then
#: the charts' marks: each scatter point and heatmap cell.  What is folded
#: away or hidden has no box
TEXT_BOXES = """() => {
  const out = [];
  // a closed <details> shows its summary only
  const folded = el => { for (let d = el.closest("details"); d; d = d.parentElement.closest("details"))
                           if (!d.open && !(d.querySelector(":scope > summary") || d).contains(el)) return true;
                         return false; };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!node.textContent.trim() || parent.closest("svg, style, title") || folded(parent)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const boxes = [...range.getClientRects()].filter(r => r.width > 0 && r.height > 0)
      .map(r => [r.left + scrollX, r.top + scrollY, r.right + scrollX, r.bottom + scrollY]);
    if (boxes.length) out.push([node.textContent.trim().slice(0, 40), boxes]);
  }
  for (const text of document.querySelectorAll("svg text")) {
    if (folded(text)) continue;
    const r = text.getBoundingClientRect();
    if (r.width > 0 && r.height > 0 && text.textContent.trim())
      out.push([text.textContent.trim().slice(0, 40), [[r.left + scrollX, r.top + scrollY, r.right + scrollX, r.bottom + scrollY]]]);
  }
  const marks = [];
  for (const mark of document.querySelectorAll('svg [id*="PathCollection"] use, svg [id*="QuadMesh"] path')) {
    const r = mark.getBoundingClientRect();
    if (r.width > 0 && r.height > 0 && !folded(mark))
      marks.push([r.left + scrollX, r.top + scrollY, r.right + scrollX, r.bottom + scrollY]);
  }
  return [out, marks];
}"""

#: how far two boxes may run into each other (px, each way): glyph boxes are
#: taller than the ink, so lines set close touch without the letters meeting
TOLERANCE = 1.5


def overlapping_text(texts: list) -> list[tuple[str, str]]:
    """Pairs of different texts whose boxes overlap by more than TOLERANCE both ways."""
    boxes = [(label, i, box) for i, (label, rects) in enumerate(texts) for box in rects]
    boxes.sort(key=lambda b: b[2][0])
    pairs = []
    for k, (label, i, (x0, y0, x1, y1)) in enumerate(boxes):
        for other, j, (u0, v0, u1, v1) in boxes[k + 1:]:
            if u0 >= x1 - TOLERANCE:
                break  # sorted by left edge: nothing further right can overlap this one
            if i != j and min(x1, u1) - max(x0, u0) > TOLERANCE and min(y1, v1) - max(y0, v0) > TOLERANCE:
                pairs.append((label, other))
    return pairs


def text_over_marks(texts: list, marks: list) -> list[str]:
    """The texts whose box runs into a chart's mark by more than TOLERANCE both ways."""
    covered = []
    for label, rects in texts:
        if any(min(x1, u1) - max(x0, u0) > TOLERANCE and min(y1, v1) - max(y0, v0) > TOLERANCE
               for x0, y0, x1, y1 in rects for u0, v0, u1, v1 in marks):
            covered.append(label)
    return covered


def _chromium() -> str:
    path = os.environ.get("RANDQA_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not os.path.exists(path):
        pytest.skip("Debian chromium is not installed (apt-get install chromium), so the report cannot be laid out")
    return path


@pytest.fixture(scope="module")
def quick_start_report(tmp_path_factory) -> tuple[dict, str]:
    """The quick start's compare (its nine default sources) on 256 KiB each, and its report page."""
    folder = tmp_path_factory.mktemp("quick-start")
    json_path = folder / "compare.json"
    with pytest.raises(SystemExit) as exit_info:
        main(["compare", "-n", "256K", "--seed", "1", "--speed-repeats", "1", "--json", str(json_path), "--no-html"])
    assert exit_info.value.code == 0
    doc = json.loads(json_path.read_text())
    html_path = folder / "report.html"
    html_path.write_text(render_html([doc]), encoding="utf-8")
    return doc, html_path.resolve().as_uri()


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install playwright)")
    executable = _chromium()
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


def _layout(browser, url: str, width: int) -> dict:
    page = browser.new_page(viewport={"width": width, "height": 900})
    try:
        page.goto(url, wait_until="load")
        return page.evaluate("""(textBoxes) => {
          const top = el => el ? el.getBoundingClientRect().top + scrollY : null;
          const [texts, marks] = eval(textBoxes)();
          return {
            texts: texts,
            marks: marks,
            scrollWidth: document.documentElement.scrollWidth,
            innerWidth: innerWidth,
            height: document.documentElement.scrollHeight,
            verdictTop: top(document.querySelector("#verdict")),
            boundTop: top(document.querySelector("#verdict .bound")),
            bound: (document.querySelector("#verdict .bound") || {}).textContent || "",
            firstChartTop: top(document.querySelector("figure svg")),
            charts: document.querySelectorAll("figure svg").length,
          };
        }""", TEXT_BOXES)
    finally:
        page.close()


def test_the_quick_start_report_reads_at_a_desktop_width(quick_start_report, browser):
    doc, url = quick_start_report
    assert len(doc["runs"]) == 9
    layout = _layout(browser, url, 1400)
    assert layout["charts"] >= 1 + len(doc["runs"])  # speed against quality, and each source's overview
    assert overlapping_text(layout["texts"]) == []
    assert text_over_marks(layout["texts"], layout["marks"]) == []
    assert layout["scrollWidth"] <= layout["innerWidth"]
    # the run's verdict and the bound on false FAILs, before any chart
    assert layout["verdictTop"] is not None and layout["boundTop"] is not None
    assert layout["boundTop"] < layout["firstChartTop"]
    loosest = max(r["false_fail_rate"]["at_most"] for r in doc["runs"])
    assert f"probability at most {loosest:.2g}" in layout["bound"]
    assert layout["height"] <= QUICK_START_HEIGHT_BEFORE / 3, layout["height"]


def test_the_quick_start_report_reads_on_a_phone(quick_start_report, browser):
    _, url = quick_start_report
    layout = _layout(browser, url, 420)
    # wide tables and charts scroll inside their own boxes; the page does not
    assert layout["scrollWidth"] <= layout["innerWidth"], (layout["scrollWidth"], layout["innerWidth"])
    assert overlapping_text(layout["texts"]) == []
    assert text_over_marks(layout["texts"], layout["marks"]) == []
    assert layout["boundTop"] < layout["firstChartTop"]


def test_overlapping_text_is_found():
    """The check itself: boxes that overlap are reported, boxes that touch are not."""
    texts = [["a", [[0, 0, 50, 10]]], ["b", [[40, 5, 90, 15]]], ["c", [[90, 0, 120, 10]]], ["d", [[0, 12, 30, 22]]]]
    assert overlapping_text(texts) == [("a", "b")]
    assert text_over_marks(texts, [[45, 12, 55, 18]]) == ["b"]
