"""The HTML report: one self-contained file rendered with jinja2 from the JSON.

The report is built only from JSON documents (``randqa test --json`` or
``randqa compare --json``), so ``randqa report saved.json`` rebuilds exactly
what ``--html`` wrote.  Everything is inline (CSS, SVG charts): the file opens
from disk with no network and prints readably.  Documents read from files
are validated first; every problem is one InputError naming file and field.
"""

from __future__ import annotations

import json
import math
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup

from randqa.errors import InputError
from randqa.report.json_report import read_json_document, write_output_file
from randqa.report import charts
from randqa.report.terminal import format_number
from randqa.results import Verdict
from randqa.sizes import format_size
from randqa.report.speed_notes import FEED_NOTE, feed_differs, method_markers, nmap_answer



# ---------------------------------------------------------------- validation

class _Invalid(Exception):
    """A schema problem; the message says where (a JSON path) and what."""


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "array", dict: "object"}.get(
        type(value), type(value).__name__)


def _expect(value: Any, where: str, kinds: tuple[str, ...]) -> Any:
    """Check ``value`` is one of the JSON kinds named (``integer`` excludes booleans)."""
    ok = {
        "null": value is None,
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
    }
    if not any(ok[k] for k in kinds):
        raise _Invalid(f"{where}: expected {' or '.join(kinds)}, got {_type_name(value)}")
    return value


def _required(obj: dict[str, Any], key: str, where: str, *kinds: str) -> Any:
    if key not in obj:
        raise _Invalid(f"{where}: missing key {key!r}")
    return _expect(obj[key], _join(where, key), kinds)


def _optional(obj: dict[str, Any], key: str, where: str, *kinds: str) -> Any:
    if key in obj:
        return _expect(obj[key], _join(where, key), kinds)
    return None


def _check_verdict(value: Any, where: str) -> None:
    _expect(value, where, ("string",))
    if value not in list(Verdict):
        raise _Invalid(f"{where}: unknown verdict {value!r} (expected one of {', '.join(Verdict)})")


def _check_pvalue(obj: dict[str, Any], key: str, where: str, required: bool) -> None:
    p = (_required if required else _optional)(obj, key, where, "number", "null")
    if p is not None and not 0.0 <= p <= 1.0:
        raise _Invalid(f"{where}.{key}: p-value {p!r} is outside [0, 1]")


def _check_tests(tests: Any, where: str) -> None:
    _expect(tests, where, ("array",))
    for i, test in enumerate(tests):
        at = f"{where}[{i}]"
        _expect(test, at, ("object",))
        _required(test, "name", at, "string")
        _required(test, "statistic", at, "number", "null")
        _check_pvalue(test, "p_value", at, required=True)
        _check_pvalue(test, "p_value_low", at, required=False)
        _check_verdict(_required(test, "verdict", at, "string"), f"{at}.verdict")
        _optional(test, "needs", at, "string")
        _optional(test, "details", at, "object")


def _check_run(run: Any, where: str) -> None:
    _expect(run, where or "top level", ("object",))
    if "tests" not in run and "source" not in run:
        raise _Invalid(f"{where or 'top level'}: not a randqa result (no 'tests' or 'runs' key)")
    source = _required(run, "source", where, "object")
    _required(source, "name", _join(where, "source"), "string")
    _optional(source, "seed", _join(where, "source"), "integer", "null")
    _required(run, "suite", where, "string")
    bytes_tested = _required(run, "bytes_tested", where, "integer")
    if bytes_tested < 0:
        raise _Invalid(f"{_join(where, 'bytes_tested')}: must not be negative")
    _optional(run, "bits_tested", where, "integer")
    _check_verdict(_required(run, "verdict", where, "string"), _join(where, "verdict"))
    _check_tests(_required(run, "tests", where, "array"), _join(where, "tests"))
    _optional(run, "randqa_version", where, "string")
    _optional(run, "elapsed_s", where, "number")
    _optional(run, "speed_mb_s", where, "number", "null")
    _optional(run, "speed_method", where, "string", "null")
    _optional(run, "generation_mb_s", where, "number", "null")
    _optional(run, "command", where, "string")
    notes = _optional(run, "notes", where, "array") or []
    for i, note in enumerate(notes):
        _expect(note, f"{_join(where, 'notes')}[{i}]", ("string",))
    thresholds = _optional(run, "thresholds", where, "object")
    if thresholds is not None:
        for key in ("suspicious", "fail"):
            value = _required(thresholds, key, _join(where, "thresholds"), "number")
            if not 0.0 < value < 1.0:
                raise _Invalid(f"{_join(where, 'thresholds')}.{key}: {value!r} is not between 0 and 1")
    _optional(run, "first_failure_bytes", where, "integer", "null")
    lengths = _optional(run, "lengths", where, "array") or []
    for i, step in enumerate(lengths):
        at = f"{_join(where, 'lengths')}[{i}]"
        _expect(step, at, ("object",))
        _required(step, "bytes", at, "integer")
        _check_verdict(_required(step, "verdict", at, "string"), f"{at}.verdict")
        _check_tests(_required(step, "tests", at, "array"), f"{at}.tests")


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def validate_document(doc: Any) -> None:
    """Raise _Invalid unless ``doc`` is a single-run or compare document."""
    if not isinstance(doc, dict):
        raise _Invalid(f"expected a JSON object at the top level, got {_type_name(doc)}")
    kind = doc.get("kind", "run")
    if kind == "compare":
        runs = _required(doc, "runs", "", "array")
        if not runs:
            raise _Invalid("runs: a compare document needs at least one run")
        for key in ("randqa_version", "command", "date", "platform", "cpu", "suite", "python"):
            _optional(doc, key, "", "string")
        _optional(doc, "elapsed_s", "", "number")
        for i, run in enumerate(runs):
            _check_run(run, f"runs[{i}]")
    elif kind == "run":
        _check_run(doc, "")
    else:
        raise _Invalid(f"kind: unknown document kind {kind!r} (expected 'compare', or no kind for a single run)")


def load_document(path: str) -> dict[str, Any]:
    """Read and validate a saved result; InputError names the file and the problem."""
    doc = read_json_document(path)
    try:
        validate_document(doc)
    except _Invalid as exc:
        raise InputError(f"{path}: {exc}") from None
    return doc


# ---------------------------------------------------------------- rendering

def runs_of(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The runs a document holds: a compare's list, or the single run itself."""
    return document["runs"] if document.get("kind") == "compare" else [document]


def _amount(run: dict[str, Any]) -> str:
    if "bits_requested" in run and run.get("bits_tested") is not None:
        return f"{run['bits_tested']:,} bits"
    return format_size(run["bytes_tested"])


def _first_failure(run: dict[str, Any]) -> str:
    if "first_failure_bytes" not in run:
        return "—"  # a plain run has one length: nothing to locate a failure in
    at = run["first_failure_bytes"]
    return f"none up to {format_size(run['bytes_tested'])}" if at is None else format_size(at)


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
            "p_value": format_number(test.get("p_value")),
            "p_value_low": None if test.get("p_value_low") is None else format_number(test["p_value_low"]),
            "verdict": test["verdict"],
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
    markers = method_markers(all_runs)
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
            speed = run.get("speed_mb_s")
            counts = {v: sum(1 for t in run["tests"] if t["verdict"] == v) for v in Verdict}
            history = charts.pvalue_history_svg(run, f"h{i}")
            runs.append({
                "anchor": f"source-{i}",
                "name": run["source"]["name"],
                "seed": "—" if run["source"].get("seed") is None else str(run["source"]["seed"]),
                "verdict": run["verdict"],
                "speed": "—" if speed is None else f"{speed:,.1f}",
                "speed_marker": markers.get(run.get("speed_method") or "", ""),
                "speed_title": f"median MB/s as applications call it ({run['speed_method']}), measured apart from testing"
                if speed is not None and run.get("speed_method") else "median MB/s, measured apart from testing"
                if speed is not None else "no generation speed: not a generator, or not measured",
                "generation": "—" if run.get("generation_mb_s") is None else f"{run['generation_mb_s']:,.1f}",
                "tested": _amount(run),
                "first_failure": _first_failure(run),
                "suite": run["suite"],
                "elapsed": "—" if run.get("elapsed_s") is None else f"{run['elapsed_s']:.2f} s",
                "notes": list(run.get("notes", [])),
                "counts": counts,
                "tests": _test_rows(run["tests"]),
                "history_svg": None if history is None else Markup(history),
                "document": d + 1,
            })
    chart = charts.speed_quality_svg(all_runs)
    unplotted = [r["source"]["name"] for r in all_runs if not r.get("speed_mb_s")]
    verdicts = [r["verdict"] for r in all_runs]
    return {
        "title": "randqa report: " + ", ".join(r["name"] for r in runs[:6]) + (" …" if len(runs) > 6 else ""),
        "runs": runs,
        "metadata": metadata,
        "speed_chart": None if chart is None else Markup(chart),
        "speed_methods": [(marker, method) for method, marker in markers.items()],
        "feed_differs": feed_differs(all_runs),
        "feed_note": FEED_NOTE,
        "answer": [_with_code(line.strip()) for line in nmap_answer(all_runs)],
        "unplotted": unplotted,
        "totals": {v: verdicts.count(v) for v in Verdict if v in verdicts},
        "any_progressive": any("first_failure_bytes" in r for r in all_runs),
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
    import matplotlib

    # names come from users and files: a '$' in one is text, not mathtext to parse
    with matplotlib.rc_context({"text.parse_math": False}):
        text = render_html(documents)
    write_output_file(path, text.encode("utf-8"), option)
