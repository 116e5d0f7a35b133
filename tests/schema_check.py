"""Check a JSON document randqa wrote against the shipped JSON Schemas
(randqa/schema/run.schema.json, compare.schema.json), with every problem
listed, not just the first one ``randqa report`` would name.

Call ``assert_valid_document(doc)`` on each document a test writes; the
kind (run or compare) is read from the document.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from randqa._report.schema import document_kind, validator


def assert_valid_document(doc: Any) -> str:
    """Raise AssertionError listing every schema violation of ``doc`` (a dict,
    or a path of a JSON file); return its kind."""
    if isinstance(doc, (str, Path)):
        doc = json.loads(Path(doc).read_text(encoding="utf-8"))
    kind = document_kind(doc)
    problems = sorted(validator(kind).iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
    if problems:
        lines = [f"  {'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:300]}" for e in problems[:20]]
        raise AssertionError(f"{kind} document violates its schema ({len(problems)} problems):\n" + "\n".join(lines))
    return kind
