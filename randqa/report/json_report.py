"""JSON output: the interchange format that HTML reports are built from."""

from __future__ import annotations

import json
import sys
from typing import Any

from randqa.errors import UsageError


def write_json(data: dict[str, Any], destination: str) -> None:
    """Write ``data`` to a path, or to stdout when destination is '-'."""
    text = json.dumps(data, indent=2, allow_nan=False) + "\n"
    if destination == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        try:
            with open(destination, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:
            raise UsageError(f"--json {destination}: cannot write ({exc.strerror})") from None
