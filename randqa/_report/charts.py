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
import matplotlib.patches
# Figure without pyplot: no GUI backend is ever chosen, no global figure list
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from randqa._report.palette import VERDICT_STYLE
from randqa.results import Verdict
from randqa.run_result import RunResult
from randqa.sizes import format_size

_RC = {
    "svg.fonttype": "none",
    "svg.hashsalt": "randqa",
    "font.family": "sans-serif",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    # names come from users and files: a '$' in one is text, not mathtext to parse
    "text.parse_math": False,
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
    # matplotlib's <style> says `*{...}`, which inline would restyle the whole page: scope it to this figure
    svg = svg.replace("<svg ", f'<svg id="{id_prefix}" ', 1)
    svg = re.sub(r"(<style[^>]*>)\s*\*\s*\{", lambda m: f"{m.group(1)}#{id_prefix} *{{", svg)
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
    progressive = all(RunResult.from_json(r).is_progressive for r in points)
    with matplotlib.rc_context(_RC):
        fig = _new_figure(7.2, 4.2)
        ax = fig.add_subplot()
        ax.set_xscale("log")
        ax.set_xlabel("speed as applications call it, MB/s (log scale, median of repeats, apart from testing)")
        labelled = _length_axis(ax, points) if progressive else _verdict_axis(ax, points)
        ax.grid(True, which="major", color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)
        speeds = [r["speed_mb_s"] for r in points]
        ax.set_xlim(min(speeds) / 3, max(speeds) * 3)  # room for labels; at least a decade shown
        plain = FuncFormatter(lambda v, _: f"{v:g}")
        ax.xaxis.set_major_formatter(plain)
        ax.xaxis.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0)))
        ax.xaxis.set_minor_formatter(plain)
        corners = [
            ax.text(0.99, 0.99, "fast and good enough ↗", transform=ax.transAxes, ha="right", va="top",
                    color=VERDICT_STYLE[Verdict.PASS].colour, fontsize=9, fontweight="bold"),
            ax.text(0.01, 0.01, "↙ slow and weak", transform=ax.transAxes, ha="left", va="bottom",
                    color=VERDICT_STYLE[Verdict.FAIL].colour, fontsize=8),
        ]
        place_labels(fig, ax, labelled, corners)
    return figure_svg(fig, id_prefix)


#: where a point's name may go, in points from the point (the first free one
#: is taken): right, left, above, below, the diagonals, then twice as far
_LABEL_OFFSETS = [(6, 0, "left", "center"), (-6, 0, "right", "center"), (0, 6, "center", "bottom"),
                  (0, -6, "center", "top"), (5, 5, "left", "bottom"), (5, -5, "left", "top"),
                  (-5, 5, "right", "bottom"), (-5, -5, "right", "top")]
_LABEL_OFFSETS += [(2 * dx, 2 * dy, ha, va) for dx, dy, ha, va in _LABEL_OFFSETS]
#: pixels kept free around a label (the browser's sans-serif may be a little wider than matplotlib's)
_LABEL_PAD = 2.0


def place_labels(fig: Figure, ax: Any, points: list[tuple[float, float, str]], fixed: list[Any]) -> list[Any]:
    """Name each point (x, y, name) beside it, where the name overlaps no
    other name, no point and none of the ``fixed`` texts and stays inside the
    axes; a name moved twice as far gets a thin line to its point.  The
    layout is drawn once and then kept, so that what was measured is what
    the SVG shows."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.transforms import Bbox

    FigureCanvasAgg(fig)
    fig.canvas.draw()
    fig.set_layout_engine("none")  # keep the measured layout: the labels are placed in it
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    # each point's marker, as a box of about its size (scatter s=60: ~8 pt across)
    radius = 4.0 * fig.dpi / 72
    taken = [Bbox.from_extents(px - radius, py - radius, px + radius, py + radius)
             for px, py in (ax.transData.transform((x, y)) for x, y, _ in points)]
    taken += [t.get_window_extent(renderer) for t in fixed]

    def clash(box: Any) -> float:
        grown = box.expanded(1.0, 1.0).padded(_LABEL_PAD)
        inside = (frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1)
        overlap = sum(max(0.0, min(grown.x1, t.x1) - max(grown.x0, t.x0)) * max(0.0, min(grown.y1, t.y1) - max(grown.y0, t.y0))
                      for t in taken)
        return overlap + (0.0 if inside else 1e9)

    labels = []
    for x, y, name in points:
        best = None
        for k, (dx, dy, ha, va) in enumerate(_LABEL_OFFSETS):
            label = ax.annotate(name, (x, y), xytext=(dx, dy), textcoords="offset points", fontsize=8,
                                color="#222222", ha=ha, va=va, annotation_clip=False)
            label.set_in_layout(False)
            box = label.get_window_extent(renderer)
            cost = clash(box)
            if best is None or cost < best[0]:
                if best is not None:
                    best[1].remove()
                best = (cost, label, box, k)
            else:
                label.remove()
            if cost == 0:
                break
        assert best is not None
        _, label, box, k = best
        if k >= len(_LABEL_OFFSETS) // 2:  # moved away: a line says whose name it is
            label.remove()
            dx, dy, ha, va = _LABEL_OFFSETS[k]
            label = ax.annotate(name, (x, y), xytext=(dx, dy), textcoords="offset points", fontsize=8, color="#222222",
                                ha=ha, va=va, annotation_clip=False,
                                arrowprops={"arrowstyle": "-", "color": "#999999", "linewidth": 0.5, "shrinkA": 0,
                                            "shrinkB": 4})
            label.set_in_layout(False)
        taken.append(box)
        labels.append(label)
    return labels


def _verdict_axis(ax: Any, points: list[dict[str, Any]]) -> list[tuple[float, float, str]]:
    levels = [Verdict.FAIL, Verdict.SUSPICIOUS, Verdict.PASS]
    if any(r["verdict"] == Verdict.UNCONFIRMED for r in points):
        levels.insert(1, Verdict.UNCONFIRMED)
    if any(r["verdict"] == Verdict.INSUFFICIENT for r in points):
        levels.insert(0, Verdict.INSUFFICIENT)
    level = {v: i for i, v in enumerate(levels)}
    ax.axhspan(level[Verdict.PASS] - 0.45, level[Verdict.PASS] + 0.45, color=VERDICT_STYLE[Verdict.PASS].colour,
               alpha=0.07, linewidth=0)
    # points of one verdict, in speed order, step through five heights so
    # that neighbours on the speed axis never share a line
    steps = (-0.32, -0.16, 0.0, 0.16, 0.32)
    labelled = []
    for verdict in levels:
        group = sorted((r for r in points if r["verdict"] == verdict), key=lambda r: r["speed_mb_s"])
        for rank, run in enumerate(group):
            y = level[verdict] + (steps[rank % len(steps)] if len(group) > 1 else 0.0)
            style = VERDICT_STYLE[verdict]
            ax.scatter([run["speed_mb_s"]], [y], s=55, color=style.colour, marker=style.marker, zorder=3,
                       edgecolors="white", linewidths=0.6)
            labelled.append((run["speed_mb_s"], y, run["source"]["name"]))
    ax.set_yticks(range(len(levels)), [str(v) if v != Verdict.INSUFFICIENT else "no verdict" for v in levels])
    ax.set_ylim(-0.55, len(levels) - 0.45)
    ax.set_ylabel("suite verdict")
    return labelled


def _length_axis(ax: Any, points: list[dict[str, Any]]) -> list[tuple[float, float, str]]:
    lengths = []
    labelled = []
    for run in sorted(points, key=lambda r: r["speed_mb_s"]):
        failed_at = RunResult.from_json(run).first_failure_bytes
        y = failed_at if failed_at is not None else max(run["bytes_tested"], 1)
        lengths.append(y)
        verdict = Verdict.FAIL if failed_at is not None else run["verdict"]
        style = VERDICT_STYLE[verdict]
        marker = "^" if failed_at is None else style.marker
        ax.scatter([run["speed_mb_s"]], [y], s=60, color=style.colour, marker=marker, zorder=3,
                   edgecolors="white", linewidths=0.6)
        labelled.append((run["speed_mb_s"], y, run["source"]["name"]))
    ax.set_yscale("log", base=2)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: format_size(v, compact=True)))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_ylim(min(lengths) / 2, max(lengths) * 2.5)
    ax.set_ylabel("bytes at first failure (▲ survived all)")
    return labelled


#: more rows than this and a heatmap shows one row per test family (the part
#: of the name before '['), coloured by the family's smallest p-value
MAX_HEATMAP_ROWS = 48
#: -log10 p at the top of the heatmap's colour scale (smaller p-values share its colour)
HEAT_CAP = 12.0


def _row_keys(tests: list[dict[str, Any]]) -> list[str]:
    """Each test's row name: its name, with " #k" on the k-th repeat of a name."""
    counts: dict[str, int] = {}
    keys = []
    for test in tests:
        name = test["name"]
        counts[name] = counts.get(name, 0) + 1
        keys.append(name if counts[name] == 1 else f"{name} #{counts[name]}")
    return keys


def heatmap_grid(run: dict[str, Any]) -> tuple[list[str], list[int], list[list[float | None]]]:
    """Rows (tests, or test families when there are more than
    MAX_HEATMAP_ROWS), columns (the doubling lengths of a progressive run, or
    the one length of a plain run) and each cell's smallest tail p-value
    (None: no p-value, too little data)."""
    steps = RunResult.from_json(run).judged_lengths()
    columns = [int(step["bytes"]) for step in steps]
    cells: dict[str, list[float | None]] = {}
    order: list[str] = []
    for c, step in enumerate(steps):
        for key, test in zip(_row_keys(step.get("tests", [])), step.get("tests", [])):
            if key not in cells:
                cells[key] = [None] * len(columns)
                order.append(key)
            cells[key][c] = tail_probability(test)
    if len(order) <= MAX_HEATMAP_ROWS:
        return order, columns, [cells[k] for k in order]
    families: dict[str, list[str]] = {}
    for key in order:
        families.setdefault(key.split("[")[0].split(" #")[0], []).append(key)
    rows, grid = [], []
    for family, members in families.items():
        rows.append(family if len(members) == 1 else f"{family} (smallest of {len(members)})")
        grid.append([min((p for p in (cells[m][c] for m in members) if p is not None), default=None)
                     for c in range(len(columns))])
    return rows, columns, grid


def _heat_colours(suspicious_y: float, fail_y: float, top: float) -> Any:
    """A colour scale on -log10 p: pale green to green below the suspicious
    level, orange between it and the fail level, red to dark red above."""
    from matplotlib.colors import LinearSegmentedColormap

    s, f = suspicious_y / top, fail_y / top
    eps = 1e-6
    nodes = [(0.0, "#f4faf3"), (s - eps, "#9fd49a"), (s, "#fdd49e"), (f - eps, "#f08a24"),
             (f, "#e0402f"), (1.0, "#5c0010")]
    return LinearSegmentedColormap.from_list("randqa_p", nodes)


def uniformity_pvalues(run: dict[str, Any]) -> tuple[list[float], list[float]]:
    """The final p-values a uniformity check can take (continuous, one per
    statistic: the upper tail, and no result that shares an earlier one's
    counts), and apart from them the discrete ones and conservative bounds,
    which a good generator puts on or above the diagonal by construction."""
    continuous, apart = [], []
    for t in run.get("tests", []):
        if t.get("p_value") is None or t.get("verdict") == Verdict.INSUFFICIENT:
            continue
        kind = t.get("p_value_kind")
        if kind == "dependent":
            continue
        (apart if kind else continuous).append(t["p_value"])
    return sorted(continuous), sorted(apart)


def _uniformity_panel(ax: Any, run: dict[str, Any]) -> None:
    """Final p-values against U(0,1): a QQ plot of the continuous ones with
    the KS test's p-value and its 95% band (a good generator's stay inside
    it, about); the discrete ones and bounds drawn apart, not in the test."""
    from scipy import stats

    pvalues, apart = uniformity_pvalues(run)
    n = len(pvalues)
    ax.set_box_aspect(1)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.plot([0, 1], [0, 1], color="#888888", linewidth=0.8)
    ax.set_xlabel("U(0,1) quantile", fontsize=8)
    ax.set_ylabel("p-value (sorted)", fontsize=8)
    ax.tick_params(labelsize=7)
    if apart:
        ax.scatter([(i + 0.5) / len(apart) for i in range(len(apart))], apart, s=10, facecolors="none",
                   edgecolors="#9e9e9e", linewidths=0.7, zorder=2)
    # short lines: a title wider than this narrow panel would run over the heatmap beside it
    extra = f"\n{len(apart)} hollow: discrete or bounds" if apart else ""
    if n < 2:
        ax.set_title(f"p-value uniformity:\ntoo few continuous p-values{extra}", fontsize=8)
        return
    band = float(stats.kstwo.ppf(0.95, n))
    ax.fill_between([0, 1], [-band, 1 - band], [band, 1 + band], color=VERDICT_STYLE[Verdict.PASS].colour,
                    alpha=0.10, linewidth=0)
    expected = [(i + 0.5) / n for i in range(n)]
    ks = float(stats.kstest(pvalues, "uniform").pvalue)
    colour = VERDICT_STYLE[Verdict.PASS if ks >= 1e-3 else Verdict.SUSPICIOUS].colour
    ax.scatter(expected, pvalues, s=9 if n <= 60 else 4, color=colour, zorder=3, linewidths=0)
    ax.set_title(f"p-value uniformity: KS p = {ks:.3g}\n{n} continuous p-values{extra}", fontsize=8)


def run_overview_svg(run: dict[str, Any], id_prefix: str) -> str | None:
    """One source at a glance: a heatmap of -log10 p, tests as rows and the
    doubling lengths as columns, with the suspicious and fail levels marked
    on its colour scale; beside it the final p-values against U(0,1).
    None when the run has no tests."""
    rows, columns, grid = heatmap_grid(run)
    if not rows:
        return None
    # rows with too little data at every length are all grey: the report names them apart
    drawn = [k for k, row in enumerate(grid) if any(p is not None for p in row)] or list(range(len(rows)))
    rows, grid = [rows[k] for k in drawn], [grid[k] for k in drawn]
    import numpy as np

    thresholds = run.get("thresholds") or {"suspicious": 1e-3, "fail": 1e-6}
    suspicious_y = -math.log10(thresholds["suspicious"])
    fail_y = -math.log10(thresholds["fail"])
    top = max(HEAT_CAP, 2 * fail_y)
    values = np.array([[np.nan if p is None else min(top, -math.log10(p) if p > 0 else top) for p in row]
                       for row in grid], dtype=float)
    height = max(3.3, 0.125 * len(rows) + 1.6)
    # inches: 0.32 a column (1.6 at least, 4.8 at most) and 2.6 for the labels; the QQ panel 2.8
    heat = min(4.8, max(1.6, 0.32 * len(columns))) + 2.6
    with matplotlib.rc_context(_RC):
        fig = _new_figure(heat + 3.0, height)
        if height > 4.0:
            grid_spec = fig.add_gridspec(2, 2, width_ratios=[heat, 2.8], height_ratios=[3.2, height - 3.2])
        else:
            grid_spec = fig.add_gridspec(1, 2, width_ratios=[heat, 2.8])
        qq = fig.add_subplot(grid_spec[0, 1])
        ax = fig.add_subplot(grid_spec[:, 0])
        cmap = _heat_colours(suspicious_y, fail_y, top)
        cmap = cmap.with_extremes(bad="#e6e6e6")
        # vector cells (pcolormesh), not imshow's embedded PNG: the page fetches and embeds no image
        image = ax.pcolormesh(np.arange(len(columns) + 1) - 0.5, np.arange(len(rows) + 1) - 0.5,
                              np.ma.masked_invalid(values), cmap=cmap, vmin=0, vmax=top,
                              edgecolors="white", linewidth=0.6)
        ax.set_xlim(-0.5, len(columns) - 0.5)
        ax.set_ylim(len(rows) - 0.5, -0.5)  # first test on top
        ax.set_yticks(range(len(rows)), rows, fontsize=7 if len(rows) > 20 else 8)
        ax.set_xticks(range(len(columns)), [format_size(c, compact=True) for c in columns],
                      fontsize=7, rotation=90 if len(columns) > 8 else 0)
        ax.set_xlabel("stream length (doubling)" if len(columns) > 1 else "stream length")
        ax.tick_params(length=0)
        for side in ("top", "right", "left", "bottom"):
            ax.spines[side].set_visible(False)
        typed = RunResult.from_json(run)
        failed_at = typed.first_failure_bytes if typed.is_progressive else None  # a plain run has no length to frame
        if failed_at is not None and failed_at in columns:
            c = columns.index(failed_at)
            ax.add_patch(matplotlib.patches.Rectangle((c - 0.5, -0.5), 1, len(rows), fill=False,
                                                      edgecolor="#222222", linewidth=1.2))
            ax.set_title(f"first failure at {format_size(failed_at)}", fontsize=8, loc="left", color="#b71c1c")
        bar = fig.colorbar(image, ax=ax, location="top", shrink=0.7, aspect=40, pad=0.02)
        bar.set_ticks([0, suspicious_y, fail_y, top],
                      labels=["p = 1", f"suspicious\n{thresholds['suspicious']:g}", f"fail\n{thresholds['fail']:g}",
                              f"≤ 1e-{top:.0f}"])
        if bar.solids is not None:
            # matplotlib rasterizes long colour bars: keep it vector (no embedded PNG), without seams
            bar.solids.set_rasterized(False)
            bar.solids.set_edgecolor("face")
        bar.ax.tick_params(labelsize=7)
        bar.ax.set_xlabel("−log10 p of each test (grey: too little data)", fontsize=7)
        bar.ax.xaxis.set_label_position("top")
        for level in (suspicious_y, fail_y):
            bar.ax.axvline(level, color="#222222", linewidth=1.0)
        _uniformity_panel(qq, run)
    return figure_svg(fig, id_prefix)
