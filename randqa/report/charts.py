"""Charts of the HTML report, drawn by matplotlib and inlined as SVG.

The figures are built on matplotlib's object API (no pyplot, no global
state) and saved as SVG text that needs nothing outside the page: text stays
text (``svg.fonttype = none``, so the browser's own sans-serif draws it and
nothing is fetched), the date metadata is dropped and element ids are salted
with a fixed string, so the same JSON always renders the same bytes.
"""

from __future__ import annotations

import io
import math
import re
from typing import Any

import matplotlib
# Figure without pyplot: no GUI backend is ever chosen, no global figure list
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from randqa.results import Verdict
from randqa.sizes import format_size

#: verdict -> (colour, marker); the marker tells verdicts apart in grey print
VERDICT_STYLE = {
    Verdict.PASS: ("#2e7d32", "o"),
    Verdict.SUSPICIOUS: ("#e08a00", "D"),
    Verdict.FAIL: ("#c62828", "X"),
    Verdict.INSUFFICIENT: ("#757575", "s"),
}
#: -log10 p is drawn up to here; smaller p-values (down to 0, whose -log10 is
#: infinite) sit on this line, far past any threshold
Y_CAP = 40.0

_RC = {
    "svg.fonttype": "none",
    "svg.hashsalt": "randqa",
    "font.family": "sans-serif",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def figure_svg(fig: Figure, id_prefix: str) -> str:
    """The figure as an inline ``<svg>`` element with ids unique to ``id_prefix``."""
    buffer = io.StringIO()
    with matplotlib.rc_context(_RC):
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg"):]  # drop the XML prolog and DOCTYPE (it names a DTD URL)
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    # several figures share one page: salt every id so no two collide
    ids = set(re.findall(r'\bid="([^"]+)"', svg))
    if ids:
        pattern = re.compile(r'(\bid="|url\(#|href="#)(' + "|".join(map(re.escape, sorted(ids, key=len, reverse=True))) + r')(?=["\)])')
        svg = pattern.sub(lambda m: f"{m.group(1)}{id_prefix}-{m.group(2)}", svg)
    return svg


def _new_figure(width: float, height: float) -> Figure:
    """A figure for the report (call inside the callers' rc_context(_RC))."""
    return Figure(figsize=(width, height), layout="constrained")


def tail_probability(test: dict[str, Any]) -> float | None:
    """The smaller of a test's tail p-values (what its verdict looks at)."""
    tails = [p for p in (test.get("p_value"), test.get("p_value_low")) if p is not None]
    return min(tails) if tails else None


def speed_quality_svg(runs: list[dict[str, Any]], id_prefix: str = "sq") -> str | None:
    """Speed (x) against quality (y) for every run that has a measured speed.

    Quality is the stream length at first failure when every plotted run is
    progressive (survivors are drawn at the length they survived, as ▲), and
    the verdict otherwise.  None when no run has a speed.
    """
    points = [r for r in runs if r.get("speed_mb_s")]
    if not points:
        return None
    progressive = all("first_failure_bytes" in r for r in points)
    with matplotlib.rc_context(_RC):
        fig = _new_figure(7.2, 4.2)
        ax = fig.add_subplot()
        ax.set_xscale("log")
        ax.set_xlabel("speed as applications call it, MB/s (log scale, median of repeats, apart from testing)")
        if progressive:
            _length_axis(ax, points)
        else:
            _verdict_axis(ax, points)
        ax.grid(True, which="major", color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)
        speeds = [r["speed_mb_s"] for r in points]
        ax.set_xlim(min(speeds) / 3, max(speeds) * 3)  # room for labels; at least a decade shown
        plain = FuncFormatter(lambda v, _: f"{v:g}")
        ax.xaxis.set_major_formatter(plain)
        ax.xaxis.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0)))
        ax.xaxis.set_minor_formatter(plain)
        ax.text(0.99, 0.99, "fast and good enough ↗", transform=ax.transAxes, ha="right", va="top",
                color="#2e7d32", fontsize=9, fontweight="bold")
        ax.text(0.01, 0.01, "↙ slow and weak", transform=ax.transAxes, ha="left", va="bottom",
                color="#c62828", fontsize=8)
    return figure_svg(fig, id_prefix)


def _label(ax: Any, x: float, y: float, text: str, dy: float = 0.0) -> None:
    ax.annotate(text, (x, y), xytext=(5, dy), textcoords="offset points", fontsize=8, color="#222222", va="center")


def _verdict_axis(ax: Any, points: list[dict[str, Any]]) -> None:
    levels = [Verdict.FAIL, Verdict.SUSPICIOUS, Verdict.PASS]
    if any(r["verdict"] == Verdict.INSUFFICIENT for r in points):
        levels.insert(0, Verdict.INSUFFICIENT)
    level = {v: i for i, v in enumerate(levels)}
    ax.axhspan(level[Verdict.PASS] - 0.45, level[Verdict.PASS] + 0.45, color="#2e7d32", alpha=0.07, linewidth=0)
    # points of one verdict, in speed order, step through five heights so
    # that neighbours on the speed axis never share a line (nor a label line)
    steps = (-0.32, -0.16, 0.0, 0.16, 0.32)
    for verdict in levels:
        group = sorted((r for r in points if r["verdict"] == verdict), key=lambda r: r["speed_mb_s"])
        for rank, run in enumerate(group):
            y = level[verdict] + (steps[rank % len(steps)] if len(group) > 1 else 0.0)
            colour, marker = VERDICT_STYLE[verdict]
            ax.scatter([run["speed_mb_s"]], [y], s=55, color=colour, marker=marker, zorder=3,
                       edgecolors="white", linewidths=0.6)
            _label(ax, run["speed_mb_s"], y, run["source"]["name"])
    ax.set_yticks(range(len(levels)), [str(v) if v != Verdict.INSUFFICIENT else "no verdict" for v in levels])
    ax.set_ylim(-0.55, len(levels) - 0.45)
    ax.set_ylabel("suite verdict")


def _length_axis(ax: Any, points: list[dict[str, Any]]) -> None:
    lengths = []
    # labels of points at one height (all survivors, say), in speed order,
    # step through five offsets so that neighbours' names do not overlap
    rank_at: dict[float, int] = {}
    offsets = (0.0, 9.0, -9.0, 18.0, -18.0)
    for run in sorted(points, key=lambda r: r["speed_mb_s"]):
        failed_at = run.get("first_failure_bytes")
        y = failed_at if failed_at is not None else max(run["bytes_tested"], 1)
        lengths.append(y)
        verdict = Verdict.FAIL if failed_at is not None else run["verdict"]
        colour, marker = VERDICT_STYLE[verdict]
        if failed_at is None:
            marker = "^"
        ax.scatter([run["speed_mb_s"]], [y], s=60, color=colour, marker=marker, zorder=3,
                   edgecolors="white", linewidths=0.6)
        rank = rank_at.get(y, 0)
        rank_at[y] = rank + 1
        _label(ax, run["speed_mb_s"], y, run["source"]["name"], offsets[rank % len(offsets)])
    ax.set_yscale("log", base=2)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: format_size(v, compact=True)))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_ylim(min(lengths) / 2, max(lengths) * 2.5)
    ax.set_ylabel("bytes at first failure (▲ survived all)")


def pvalue_history_svg(run: dict[str, Any], id_prefix: str) -> str | None:
    """−log10 p against stream length for each test of a progressive run."""
    lengths = run.get("lengths") or []
    if not lengths:
        return None
    series: dict[str, list[tuple[float, float]]] = {}
    for step in lengths:
        counts: dict[str, int] = {}
        for test in step.get("tests", []):
            name = test["name"]
            counts[name] = counts.get(name, 0) + 1
            key = name if counts[name] == 1 else f"{name} #{counts[name]}"
            p = tail_probability(test)
            y = math.nan if p is None else min(Y_CAP, -math.log10(p) if p > 0 else Y_CAP)
            series.setdefault(key, []).append((float(step["bytes"]), y))
    thresholds = run.get("thresholds") or {"suspicious": 1e-3, "fail": 1e-6}
    suspicious_y = -math.log10(thresholds["suspicious"])
    fail_y = -math.log10(thresholds["fail"])
    with matplotlib.rc_context(_RC):
        fig = _new_figure(7.2, 3.4)
        ax = fig.add_subplot()
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(LogLocator(base=2))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: format_size(v, compact=True)))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.axhspan(fail_y, 10**6, color="#c62828", alpha=0.06, linewidth=0)
        ax.axhline(suspicious_y, color="#e08a00", linestyle="--", linewidth=0.9)
        ax.axhline(fail_y, color="#c62828", linestyle="--", linewidth=0.9)
        ax.text(1.0, suspicious_y, " suspicious", transform=ax.get_yaxis_transform(), va="center", fontsize=7, color="#e08a00")
        ax.text(1.0, fail_y, " fail", transform=ax.get_yaxis_transform(), va="center", fontsize=7, color="#c62828")
        top = fail_y
        for key, pts in series.items():
            xs, ys = zip(*pts)
            ax.plot(xs, ys, marker="o", markersize=3.5, linewidth=1.2, label=key)
            finite = [y for y in ys if not math.isnan(y)]
            if finite:
                top = max(top, max(finite))
        failed_at = run.get("first_failure_bytes")
        if failed_at is not None:
            ax.axvline(failed_at, color="#c62828", linewidth=0.8, linestyle=":")
        ax.set_ylim(0, top * 1.1 + 0.5)
        ax.set_xlabel("stream length (bytes, log scale)")
        ax.set_ylabel("−log10 p (higher = worse)" + (f"; p < 1e-{Y_CAP:.0f} drawn at {Y_CAP:.0f}" if top >= Y_CAP else ""))
        ax.grid(True, which="major", color="#e5e5e5", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.08, 1.0), frameon=False,
                  ncol=1 if len(series) <= 14 else 2)
    return figure_svg(fig, id_prefix)
