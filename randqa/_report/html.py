"""The HTML report: one self-contained file rendered with jinja2 from the JSON.

The report is built only from JSON documents (``randqa test --json`` or
``randqa compare --json``), so ``randqa report saved.json`` rebuilds exactly
what ``--html`` wrote.  Everything is inline (CSS, SVG charts): the file opens
from disk with no network and prints readably.  Documents read from files
are validated first against randqa's JSON Schema (randqa._report.schema);
every problem is one InputError naming file and field.
"""

from __future__ import annotations

import json
import math
from importlib import resources
from typing import Any

from randqa.errors import InputError, UsageError
from randqa._report.extras import HTML_EXTRA_NEEDED

try:  # the html extra: a light install tests and writes JSON without it
    import jinja2
    from markupsafe import Markup

    from randqa._report import charts
except ImportError:
    raise UsageError(HTML_EXTRA_NEEDED) from None

from randqa._report.json_report import read_json_document, write_output_file
from randqa._report.terminal import (PREDICTABLE_NOTE, failure_causes, false_fail_statement, format_number, format_pvalue,
                                     predictable_from, retest_lines, retest_summary)
from randqa.results import Verdict, worst_verdict
from randqa.run_result import RunResult
from randqa.sizes import format_size
from randqa._report.speed_notes import (FEED_NOTE, feed_differs, headline, method_markers, nmap_answer,
                                       runtimes_answer, speed_of)


# ---------------------------------------------------------------- validation

def check_document(doc: Any, origin: str) -> None:
    """Validate ``doc`` against the JSON Schema of its kind (randqa/schema/);
    InputError naming ``origin`` (a file, "document 2") and the field otherwise."""
    from randqa._report.schema import DocumentError, validate

    try:
        validate(doc)
    except DocumentError as exc:
        raise InputError(f"{origin}: {exc}") from None


def load_document(path: str) -> dict[str, Any]:
    """Read and validate a saved result; InputError names the file and the problem."""
    doc = read_json_document(path)
    check_document(doc, path)
    return doc


# ---------------------------------------------------------------- rendering

def runs_of(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The runs a document holds: a compare's list, or the single run itself."""
    return document["runs"] if document.get("kind") == "compare" else [document]


def _amount(run: dict[str, Any]) -> str:
    if "bits_requested" in run and run.get("bits_tested") is not None:
        return f"{run['bits_tested']:,} bits"
    return format_size(run["bytes_tested"])


def _first_failure(run: RunResult) -> str:
    if not run.is_progressive:
        return "—"  # a plain run has one length: nothing to locate a failure in
    at = run.first_failure_bytes
    return f"none up to {format_size(run.bytes_tested)}" if at is None else format_size(at)


def _test_rows(tests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    def order(test: dict[str, Any]) -> tuple[int, float]:
        p = charts.tail_probability(test)
        return list(Verdict).index(test["verdict"]), (math.inf if p is None else p)

    rows = []
    for test in sorted(tests, key=order):  # stable: suite order within a verdict
        details = test.get("details") or {}
        detail_text = ", ".join(f"{k}={_short(v)}" for k, v in details.items())
        rows.append({
            "name": test["name"],
            "statistic": format_number(test.get("statistic")),
            "p_value": format_pvalue(test.get("p_value"), test["verdict"]),
            "p_value_low": None if test.get("p_value_low") is None else format_pvalue(test["p_value_low"], test["verdict"]),
            "verdict": test["verdict"],
            "retest": retest_summary(test.get("retest")),
            "needs": test.get("needs"),
            "details": detail_text if len(detail_text) <= 160 else detail_text[:157] + "…",
            "details_full": ", ".join(f"{k}={v}" for k, v in details.items()),
        })
    return rows


def _short(value: Any) -> str:
    if isinstance(value, float):
        if value != value:
            return "nan"
        # trailing zeros go from the mantissa only: 5.31e-50 must not become 5.31e-5
        mantissa, e, exponent = format_number(value, 4).partition("e")
        return mantissa.rstrip("0").rstrip(".") + e + exponent
    text = json.dumps(value) if isinstance(value, (list, dict)) else str(value)
    return text if len(text) <= 40 else text[:37] + "…"


def _with_code(text: str) -> Markup:
    """Text with its `backticked` parts as <code>, the rest escaped."""
    parts = text.split("`")
    return Markup("").join(Markup("<code>{}</code>").format(p) if i % 2 else Markup.escape(p) for i, p in enumerate(parts))


def build_context(documents: list[dict[str, Any]]) -> dict[str, Any]:
    """Everything the template shows, computed from the documents alone."""
    runs = []
    metadata = []
    all_runs = [r for doc in documents for r in runs_of(doc)]
    typed_runs = [RunResult.from_json(r) for r in all_runs]
    markers = method_markers(typed_runs)
    for d, doc in enumerate(documents):
        doc_runs = runs_of(doc)
        metadata.append({
            "kind": doc.get("kind", "run"),
            "randqa_version": doc.get("randqa_version", "—"),
            "command": doc.get("command", "—"),
            "suite": doc.get("suite", "—"),
            "date": doc.get("date", "—"),
            "platform": doc.get("platform", "—"),
            "cpu": doc.get("cpu", "—"),
            "python": doc.get("python", "—"),
            "elapsed": "—" if doc.get("elapsed_s") is None else f"{doc['elapsed_s']:.1f} s",
            "speed_repeats": doc.get("speed_repeats"),
            "seeds": [(r["source"]["name"], r["source"].get("seed")) for r in doc_runs],
            "thresholds": doc_runs[0].get("thresholds") if doc_runs else None,
        })
        for run in doc_runs:
            i = len(runs)
            typed = typed_runs[i]
            speed = speed_of(typed)
            method = typed.speed.speed_method if typed.speed else None
            generation = typed.speed.generation_mb_s if typed.speed else None
            counts = {v: sum(1 for t in run["tests"] if t["verdict"] == v) for v in Verdict}
            overview = charts.run_overview_svg(run, f"h{i}")
            runs.append({
                "anchor": f"source-{i}",
                "name": run["source"]["name"],
                "seed": "—" if run["source"].get("seed") is None else str(run["source"]["seed"]),
                "verdict": run["verdict"],
                "speed": "—" if speed is None else f"{speed:,.1f}",
                "speed_marker": markers.get(method or "", ""),
                "speed_title": f"median MB/s as applications call it ({method}), measured apart from testing"
                if speed is not None and method else "median MB/s, measured apart from testing"
                if speed is not None else "no generation speed: not a generator, or not measured",
                "generation": "—" if generation is None else f"{generation:,.1f}",
                "tested": _amount(run),
                "first_failure": _first_failure(typed),
                "predictable": predictable_from(typed, "—"),
                "predictor": (typed.predictability and typed.predictability.predictor) or "",
                "suite": run["suite"],
                "elapsed": "—" if run.get("elapsed_s") is None else f"{run['elapsed_s']:.2f} s",
                "notes": list(run.get("notes", [])),
                "false_fail": false_fail_statement(run.get("false_fail_rate"), run.get("thresholds")),
                "retests": retest_lines(typed.progression.lengths if typed.progression else []),
                "counts": counts,
                "test_count": len(run["tests"]),
                # the tests with a verdict, failures first; those with too little data only named, apart
                "tests": _test_rows([t for t in run["tests"] if t["verdict"] != Verdict.INSUFFICIENT]),
                "insufficient": [{"name": t["name"], "needs": t.get("needs")} for t in run["tests"]
                                 if t["verdict"] == Verdict.INSUFFICIENT],
                "causes": failure_causes(typed.results),
                "overview_svg": None if overview is None else Markup(overview),
                "progressive": bool(typed.progression and typed.progression.lengths),
                "headline": headline(typed, typed_runs),
                "document": d + 1,
            })
    chart = charts.speed_quality_svg(all_runs)
    unplotted = [r.source["name"] for r in typed_runs if not speed_of(r)]
    verdicts = [r["verdict"] for r in all_runs]
    # the bound of the run most likely to FAIL a good generator holds for every run
    rated = [r for r in all_runs if r.get("false_fail_rate")]
    loosest = max(rated, key=lambda r: r["false_fail_rate"]["at_most"], default=None)
    bound = "" if loosest is None else false_fail_statement(
        loosest["false_fail_rate"], loosest.get("thresholds"), "this run" if len(all_runs) == 1 else "each of these runs")
    return {
        "title": "randqa report: " + ", ".join(r["name"] for r in runs[:6]) + (" …" if len(runs) > 6 else ""),
        "runs": runs,
        "metadata": metadata,
        "speed_chart": None if chart is None else Markup(chart),
        "speed_methods": [(marker, method) for method, marker in markers.items()],
        "feed_differs": feed_differs(typed_runs),
        "feed_note": FEED_NOTE,
        "answers": [[_with_code(line.strip()) for line in answer]
                    for answer in (nmap_answer(typed_runs), runtimes_answer(typed_runs)) if answer],
        "unplotted": unplotted,
        "totals": {v: verdicts.count(v) for v in Verdict if v in verdicts},
        "overall": worst_verdict(verdicts) if verdicts else Verdict.INSUFFICIENT,
        "false_fail": bound,
        "any_progressive": any(r.is_progressive for r in typed_runs),
        "any_predicted": any(r.predictability is not None for r in typed_runs),
        "predictable_note": PREDICTABLE_NOTE,
    }


def _environment() -> jinja2.Environment:
    templates = resources.files("randqa._templates")

    def load(name: str) -> str | None:
        entry = templates / name
        return entry.read_text(encoding="utf-8") if entry.is_file() else None

    return jinja2.Environment(loader=jinja2.FunctionLoader(load), autoescape=True,
                              trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)


def render_html(documents: list[dict[str, Any]]) -> str:
    """The report page for validated documents (single runs and/or compares)."""
    if not documents:
        raise InputError("nothing to report: no result documents")
    return _environment().get_template("report.html.j2").render(**build_context(documents))


def write_html_report(documents: list[dict[str, Any]], path: str, option: str = "--html") -> None:
    """Render ``documents`` (dicts as ``--json`` writes them) to an HTML file at
    ``path``, written whole or not at all (OutputError names ``option``)."""
    text = render_html(documents)
    write_output_file(path, text.encode("utf-8"), option)
