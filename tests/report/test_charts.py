"""The speed-quality chart (report/charts.py) plots each generator's speed
against its suite verdict, or against the bytes at its first failure after
--progressive; a run without a speed is not plotted, and two renderings of
the same documents are identical (no dates, no random ids).
"""

from __future__ import annotations

import json

from randqa._report import charts
from randqa._report.html import render_html


GOOD = "pcg64"


def test_speed_chart_uses_verdicts_or_first_failure():
    base = {"source": {"name": GOOD, "seed": 1}, "suite": "quick", "tests": [], "bytes_tested": 1 << 20}
    plain = [dict(base, verdict="pass", speed_mb_s=900.0), dict(base, source={"name": "slowbad"}, verdict="fail", speed_mb_s=3.0)]
    svg = charts.speed_quality_svg(plain)
    assert "suite verdict" in svg and "slowbad" in svg
    bounds = {"min_bytes": 1 << 10, "max_bytes": 1 << 20, "keep_going": False}
    progressive = [dict(r, progressive=bounds, lengths=[], first_failure_bytes=None if r["verdict"] == "pass" else 1 << 16)
                   for r in plain]
    svg = charts.speed_quality_svg(progressive)
    assert "bytes at first failure" in svg and "64K" in svg
    assert charts.speed_quality_svg([dict(base, verdict="pass", speed_mb_s=None)]) is None
    # two renderings of the same documents are identical: no dates or random ids
    doc = {"kind": "compare", "suite": "quick", "runs": plain}
    assert render_html([doc]) == render_html([json.loads(json.dumps(doc))])
