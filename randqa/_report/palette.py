"""How a verdict looks: its colours and marker in the charts, and its badge's
colours in notebook summaries.  The HTML report's stylesheet
(templates/report.css) names the badge colours again for its own classes."""

from __future__ import annotations

from dataclasses import dataclass

from randqa.results import Verdict


@dataclass(frozen=True)
class VerdictStyle:
    #: the colour of a verdict's points in the charts
    colour: str
    #: the marker of its points, which tells verdicts apart in grey print
    marker: str
    #: a badge's text and border (some darker than ``colour``, to read on the background)
    badge_colour: str
    #: a badge's background
    badge_background: str


VERDICT_STYLE: dict[Verdict, VerdictStyle] = {
    Verdict.PASS: VerdictStyle("#2e7d32", "o", "#2e7d32", "#e8f5e9"),
    Verdict.SUSPICIOUS: VerdictStyle("#e08a00", "D", "#8a5300", "#fff3e0"),
    Verdict.FAIL: VerdictStyle("#c62828", "X", "#b71c1c", "#fdecea"),
    Verdict.UNCONFIRMED: VerdictStyle("#ad1457", "P", "#8e244d", "#fce4ec"),
    Verdict.INSUFFICIENT: VerdictStyle("#757575", "s", "#555555", "#eeeeee"),
}
