"""Memory: a run is refused before it starts when its suite, its buffers
and what it keeps per length would pass --max-memory (default: half of
physical memory)."""

from __future__ import annotations

import os

from randqa.battery.suites import Suite, check_memory
from randqa.engine.feeding import CHUNK_BYTES
from randqa.engine.request import RunRequest


def physical_memory() -> int | None:
    """Bytes of memory this process may use: the machine's, or its cgroup's limit when lower."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None
    try:
        with open("/sys/fs/cgroup/memory.max", encoding="ascii") as f:
            limit = f.read().strip()
        if limit.isdigit():
            total = min(total, int(limit))
    except OSError:
        pass
    return total


def default_max_memory() -> int:
    """--max-memory's default: half of physical memory (4 GiB when unknown)."""
    total = physical_memory()
    return total // 2 if total else 4 << 30


def check_run_memory(suite: Suite, limit: int, *, jobs: int = 1, fmt: str = "bytes", lengths: int = 1) -> int:
    """Refuse a run of ``suite`` that would take more than ``limit`` bytes:
    the tests' stated needs (randqa.battery.suites.check_memory), the read
    buffers and the source's own (a bit-text reader holds 8 bytes per bit)."""
    buffers = CHUNK_BYTES * (2 if jobs > 1 else 1) + (17 * CHUNK_BYTES if fmt == "bits" else 4 << 20)
    return check_memory(suite, limit, chunk_bytes=CHUNK_BYTES, other_bytes=buffers, jobs=jobs, lengths=lengths)


def check_request_memory(request: RunRequest, suite: Suite, max_memory: int, jobs: int) -> None:
    """Refuse a run before it starts when its suite, its buffers and the
    results a progressive run keeps per length would pass ``max_memory``."""
    check_run_memory(suite, max_memory, jobs=jobs, fmt=request.fmt, lengths=request.lengths_judged)
