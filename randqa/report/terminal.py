"""Plain-text rendering of a run for the terminal."""

from __future__ import annotations

from randqa.engine import RunResult
from randqa.sizes import format_size


def format_number(x: float | None, digits: int = 6) -> str:
    if x is None:
        return "-"
    if x != 0 and (abs(x) < 1e-4 or abs(x) >= 1e7):
        return f"{x:.{digits - 2}e}"
    return f"{x:.{digits}f}"


def render_run(run: RunResult) -> str:
    """The table of tests with a header and the overall verdict."""
    seed = "-" if run.source.get("seed") is None else str(run.source["seed"])
    rate = run.bytes_tested / run.elapsed_s / 1e6 if run.elapsed_s > 0 else float("inf")
    amount = f"{run.bits_tested} bits" if run.unit == "bits" else format_size(run.bytes_tested)
    lines = [
        f"source {run.source['name']}  seed {seed}  suite {run.suite}",
        f"tested {amount} in {run.elapsed_s:.2f} s ({rate:.0f} MB/s)",
        "",
    ]
    width = max([len("test")] + [len(r.name) for r in run.results])
    lines.append(f"{'test':<{width}}  {'statistic':>14}  {'p-value':>12}  verdict")
    for r in run.results:
        verdict = r.verdict if r.needs is None else f"{r.verdict} (needs {r.needs})"
        lines.append(f"{r.name:<{width}}  {format_number(r.statistic):>14}  {format_number(r.pvalue):>12}  {verdict}")
    lines.append("")
    lengths = run.extra.get("lengths")
    if lengths:
        lines.append("progressive: verdict after each length (worst test)")
        for entry in lengths:
            worst = [t for t in entry["tests"] if t["verdict"] == entry["verdict"]]
            which = ", ".join(t["name"] for t in worst[:3]) if entry["verdict"] in ("fail", "suspicious") else ""
            lines.append(f"  {format_size(entry['bytes']):>10}  {entry['verdict']:<12} {which}")
        first = run.extra.get("first_failure_bytes")
        lines.append(f"first failure at {format_size(first)}" if first else "no failure up to " + format_size(run.bytes_tested))
        lines.append("")
    lines.extend(f"note: {n}" for n in run.notes)
    lines.append(f"verdict: {run.verdict.upper()}")
    return "\n".join(lines)
