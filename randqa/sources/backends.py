"""Named generator backends (``randqa list``).  Each is a Source that never ends."""

from __future__ import annotations

from randqa.sources.base import Source


def backend_names() -> list[str]:
    """Every backend name ``randqa test NAME`` accepts."""
    return []


def open_backend(name: str, seed: int | None = None) -> Source:
    """A fresh generator source; KeyError when ``name`` is not a backend."""
    raise KeyError(name)
