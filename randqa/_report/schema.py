"""The JSON Schemas of randqa's documents, and validation with one-line errors.

``randqa/schema/run.schema.json`` describes what ``randqa test --json``
writes, ``randqa/schema/compare.schema.json`` what ``randqa compare --json``
writes (JSON Schema 2020-12; the compare schema refers to the run schema's
``$defs/run`` for its runs).  :func:`validate` checks a document against the
schema of its ``kind`` with the ``jsonschema`` package and turns the first
problem into one line that names the field (``tests[0].p_value: expected
number or null, got string``).

Which problem comes first when there are several: a value that is present
but wrong (a type, a verdict, a p-value out of range) before a missing key,
and a missing key the report cannot be drawn without (``source``,
``tests``...) before one that only says where and how a run happened.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from randqa.errors import UsageError
from randqa.results import Verdict

#: document kind -> schema file in randqa/schema/
SCHEMA_FILES = {"run": "run.schema.json", "compare": "compare.schema.json"}

#: keys without which no report can be drawn; missing ones are named before others
_ESSENTIAL_KEYS = {"source", "suite", "bytes_tested", "verdict", "tests", "runs", "name", "p_value", "statistic", "bytes"}


class DocumentError(Exception):
    """A document that does not match its schema; the message says where and what."""


def schema_text(kind: str) -> str:
    """The text of the shipped schema for ``kind`` ("run" or "compare")."""
    return (resources.files("randqa") / "schema" / SCHEMA_FILES[kind]).read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def schema(kind: str) -> dict[str, Any]:
    """The shipped schema for ``kind`` as a dict."""
    loaded: dict[str, Any] = json.loads(schema_text(kind))
    return loaded


@lru_cache(maxsize=None)
def validator(kind: str) -> Any:
    """A jsonschema Draft 2020-12 validator for ``kind``, with both schemas registered
    so the compare schema's reference to the run schema resolves offline."""
    try:  # the html extra
        from jsonschema import Draft202012Validator
        from referencing import Registry, Resource
    except ImportError:
        raise UsageError("reading saved results back needs the html extra: pip install 'randqa[html]'") from None

    registry: Any = Registry().with_resources(
        (schema(k)["$id"], Resource.from_contents(schema(k))) for k in SCHEMA_FILES)
    return Draft202012Validator(schema(kind), registry=registry)


def document_kind(doc: Any) -> str:
    """"run" or "compare" for a JSON value that claims to be a randqa document;
    DocumentError for anything else."""
    if not isinstance(doc, dict):
        raise DocumentError(f"expected a JSON object at the top level, got {type_name(doc)}")
    kind = doc.get("kind", "run")
    if kind == "compare":
        return "compare"
    if kind != "run":
        raise DocumentError(f"kind: unknown document kind {kind!r} (expected 'compare', or no kind for a single run)")
    if "tests" not in doc and "source" not in doc:
        raise DocumentError("not a randqa result (no 'tests' or 'runs' key)")
    return "run"


def validate(doc: Any) -> str:
    """Check ``doc`` against the schema of its kind; return the kind, or raise
    DocumentError with the first problem on one line."""
    kind = document_kind(doc)
    errors = list(validator(kind).iter_errors(doc))
    if errors:
        raise DocumentError(describe_error(min(errors, key=_rank)))
    return kind


def type_name(value: Any) -> str:
    """The JSON name of a Python value's type."""
    if value is None:
        return "null"
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "array", dict: "object"}.get(
        type(value), type(value).__name__)


def _where(path: Any) -> str:
    """A JSON path as ``runs[1].tests[0].p_value``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _missing(error: Any) -> list[str]:
    """The keys a ``required``-like error (or an anyOf of them) says are missing."""
    if error.validator == "required":
        return [key for key in error.validator_value if key not in error.instance]
    if error.validator == "dependentRequired":
        return [key for keys in error.validator_value.values() for key in keys if key not in error.instance]
    if error.validator in ("anyOf", "oneOf") and error.context and all(e.validator == "required" for e in error.context):
        return [key for e in error.context for key in _missing(e)]
    return []


def _essential(error: Any) -> list[str]:
    """The missing keys of ``error`` that a report cannot be drawn without
    (a compare document's own metadata is not: only its runs are)."""
    instance = error.instance if isinstance(error.instance, dict) else {}
    essential = {"runs"} if instance.get("kind") == "compare" else _ESSENTIAL_KEYS
    return [key for key in _missing(error) if key in essential]


def _rank(error: Any) -> int:
    if not _missing(error):
        return 0
    return 1 if _essential(error) else 2


def describe_error(error: Any) -> str:
    """One line for a jsonschema error: where (a JSON path) and what is wrong."""
    where = _where(error.absolute_path)
    field = next((p for p in reversed(error.absolute_path) if isinstance(p, str)), "")
    value = error.instance
    kind = error.validator
    missing = _missing(error)
    if missing and kind in ("anyOf", "oneOf"):
        problem = "missing key " + " or ".join(map(repr, missing))
    elif missing:
        problem = f"missing key {(_essential(error) or missing)[0]!r}"
        if kind == "dependentRequired":
            problem += f" (it goes with {', '.join(map(repr, error.validator_value))})"
    elif kind == "type":
        expected = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        problem = f"expected {' or '.join(expected)}, got {type_name(value)}"
    elif kind in ("enum", "const") and field == "verdict":
        problem = f"unknown verdict {value!r} (expected one of {', '.join(Verdict)})"
    elif kind in ("enum", "const"):
        allowed = error.validator_value if kind == "enum" else [error.validator_value]
        problem = f"unexpected value {value!r} (expected {' or '.join(map(repr, allowed))})"
    elif kind in ("minimum", "maximum") and field.startswith("p_value"):
        problem = f"p-value {value!r} is outside [0, 1]"
    elif kind in ("exclusiveMinimum", "exclusiveMaximum"):
        problem = f"{value!r} is not between 0 and 1"
    elif kind == "minimum" and error.validator_value == 0:
        problem = f"{value!r} must not be negative"
    elif kind == "minItems" and field == "runs":
        problem = "a compare document needs at least one run"
    else:
        problem = error.message
    return f"{where}: {problem}" if where else problem
