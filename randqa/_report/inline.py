"""Compact HTML for notebooks (Jupyter's ``_repr_html_``): a run's verdict,
the tests that need attention and its chart; a comparison's headlines,
table and speed chart.

Self-contained like the report (inline styles and SVG, nothing fetched), and
small: a notebook shows many of these.  Built from the JSON documents only.
"""

from __future__ import annotations

import math
from typing import Any

from randqa.errors import UsageError

try:  # the html extra
    from markupsafe import Markup

    from randqa._report import charts
except ImportError:
    raise UsageError("HTML summaries need the html extra: pip install 'randqa[html]'") from None

from randqa._report.palette import VERDICT_STYLE
from randqa._report.speed_notes import headline
from randqa._report.terminal import format_pvalue
from randqa.results import Verdict
from randqa.run_result import RunResult
from randqa.sizes import format_size

#: rows of a run's table at most; the tests that need attention come first
MAX_ROWS = 12

_CELL = "padding:2px 8px;border-bottom:1px solid #ddd;text-align:{align}"


def badge(verdict: str) -> Markup:
    style = VERDICT_STYLE[Verdict(verdict)]
    return Markup('<span style="color:{};background:{};border:1px solid {};border-radius:8px;padding:0 6px;'
                  'font-weight:bold;font-size:85%;text-transform:uppercase">{}</span>').format(
        style.badge_colour, style.badge_background, style.badge_colour, verdict)


def _cell(text: Any, align: str = "left") -> Markup:
    return Markup('<td style="{}">{}</td>').format(_CELL.format(align=align), text)


def _head(*names: str) -> Markup:
    cells = Markup("").join(Markup('<th style="{}">{}</th>').format(
        _CELL.format(align="left") + ";border-bottom:2px solid #999", n) for n in names)
    return Markup("<thead><tr>{}</tr></thead>").format(cells)


def _amount(run: dict[str, Any]) -> str:
    if "bits_requested" in run:
        return f"{run.get('bits_tested', 0):,} bits"
    return format_size(run["bytes_tested"])


def run_summary_html(run: dict[str, Any], id_prefix: str) -> str:
    """A run at a glance: source, verdict, amount, first failure, the tests
    that need attention (then the smallest p-values) and the heatmap."""
    tests = run.get("tests", [])

    def order(test: dict[str, Any]) -> tuple[int, float]:
        p = charts.tail_probability(test)
        return list(Verdict).index(test["verdict"]), (math.inf if p is None else p)

    shown = sorted(tests, key=order)[:MAX_ROWS]
    counts = {v: sum(1 for t in tests if t["verdict"] == v) for v in Verdict}
    seed = run["source"].get("seed")
    facts = [f"suite {run['suite']}", _amount(run)]
    if seed is not None:
        facts.insert(0, f"seed {seed}")
    typed = RunResult.from_json(run)
    if typed.is_progressive:
        at = typed.first_failure_bytes
        facts.append("no failure" if at is None else f"first failure at {format_size(at)}")
    if run.get("elapsed_s") is not None:
        facts.append(f"{run['elapsed_s']:.2f} s")
    rows = Markup("").join(
        Markup("<tr>{}{}{}{}</tr>").format(
            _cell(Markup("<code>{}</code>").format(t["name"])),
            _cell(format_pvalue(t.get("p_value"), t["verdict"]), "right"),
            _cell("" if t.get("p_value_low") is None else format_pvalue(t["p_value_low"], t["verdict"]), "right"),
            _cell(badge(t["verdict"]) + (Markup(" needs {}").format(t["needs"]) if t.get("needs") else "")))
        for t in shown)
    hidden = len(tests) - len(shown)
    tally = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
    svg = charts.run_overview_svg(run, id_prefix)
    parts = [
        Markup('<div class="randqa-result" style="font-family:sans-serif;font-size:13px;max-width:1000px">'),
        Markup("<p style='margin:4px 0'><strong>{}</strong> {} · {}</p>").format(
            run["source"]["name"], badge(run["verdict"]), " · ".join(facts)),
        Markup("<p style='margin:4px 0;color:#555'>{} tests: {}{}</p>").format(
            len(tests), tally, f"; below, {len(shown)} of them: failures and suspicious results first, "
                               f"then the smallest p-values" if hidden else ""),
        Markup('<table style="border-collapse:collapse;margin:4px 0">{}<tbody>{}</tbody></table>').format(
            _head("test", "p-value", "lower-tail p", "verdict"), rows),
    ]
    if hidden:
        parts.append(Markup("<p style='margin:4px 0;color:#555'>… and {} more; <code>result.results</code> has them all.</p>").format(hidden))
    for note in run.get("notes", []):
        parts.append(Markup("<p style='margin:4px 0;color:#8a5300'>note: {}</p>").format(note))
    if svg is not None:
        parts.append(Markup(svg))
    parts.append(Markup("</div>"))
    return str(Markup("").join(parts))


def _first_failure(run: RunResult) -> str:
    if not run.is_progressive:
        return "—"
    at = run.first_failure_bytes
    return "none" if at is None else format_size(at)


def compare_summary_html(doc: dict[str, Any], id_prefix: str) -> str:
    """A comparison at a glance: a headline per source, the table of speed
    and first failure, and the speed-quality chart."""
    runs = doc["runs"]
    rows = Markup("").join(
        Markup("<tr>{}{}{}{}{}</tr>").format(
            _cell(run["source"]["name"]), _cell(badge(run["verdict"])),
            _cell("—" if run.get("speed_mb_s") is None else f"{run['speed_mb_s']:,.1f}", "right"),
            _cell(_amount(run), "right"),
            _cell(_first_failure(RunResult.from_json(run)), "right"))
        for run in runs)
    typed = [RunResult.from_json(run) for run in runs]
    lines = Markup("").join(Markup("<li>{} {}</li>").format(badge(run["verdict"]), headline(parsed, typed))
                            for run, parsed in zip(runs, typed))
    svg = charts.speed_quality_svg(runs, id_prefix)
    parts = [
        Markup('<div class="randqa-comparison" style="font-family:sans-serif;font-size:13px;max-width:1000px">'),
        Markup("<p style='margin:4px 0'>suite {} · {} sources</p>").format(doc.get("suite", "?"), len(runs)),
        Markup("<ul style='list-style:none;padding:0;margin:4px 0'>{}</ul>").format(lines),
        Markup('<table style="border-collapse:collapse;margin:4px 0">{}<tbody>{}</tbody></table>').format(
            _head("source", "verdict", "MB/s", "tested", "first failure"), rows),
    ]
    if svg is not None:
        parts.append(Markup(svg))
    parts.append(Markup("</div>"))
    return str(Markup("").join(parts))


__all__ = ["badge", "compare_summary_html", "run_summary_html"]
