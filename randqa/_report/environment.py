"""Where and when a run happened, for every report's metadata."""

from __future__ import annotations

import datetime
import os
import platform
from typing import Any


def environment() -> dict[str, Any]:
    """Where and when a run happened, for the report's metadata."""
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu": cpu_model(),
    }


def cpu_model() -> str:
    """The CPU's marketing name (Linux /proc/cpuinfo), else what platform knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Hardware", "cpu model") and value.strip():
                    return f"{value.strip()} ({os.cpu_count()} logical CPUs)"
    except OSError:
        pass
    return f"{platform.processor() or platform.machine() or 'unknown'} ({os.cpu_count()} logical CPUs)"
