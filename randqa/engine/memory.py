"""Memory: a run is refused before it starts when its suite, its buffers
and what it keeps per length would pass --max-memory (default: half of
physical memory)."""

from __future__ import annotations

import os

from randqa.battery.suites import Suite, check_memory
from randqa.engine.feeding import CHUNK_BYTES
from randqa.engine.request import RunRequest
from randqa.errors import SuiteError
from randqa.sources.streams import file_size
from randqa.sizes import format_size


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


def check_run_memory(suite: Suite, limit: int, *, jobs: int = 1, fmt: str = "bytes", lengths: int = 1,
                     length: int | None = None) -> int:
    """Refuse a run of ``suite`` that would take more than ``limit`` bytes:
    the tests' stated needs (randqa.battery.suites.check_memory), the read
    buffers and the source's own (a bit-text reader holds 8 bytes per bit);
    and when the run of ``length`` bytes (None: unknown; 0: this process
    only) may be cut into segments tested side by side by ``jobs`` workers
    (randqa.engine.run_mode), the copies of the tests they hold."""
    from randqa.engine.run_mode import copies_of_tests, may_use_segments

    buffers = CHUNK_BYTES * (2 if jobs > 1 else 1) + (17 * CHUNK_BYTES if fmt == "bits" else 4 << 20)
    here = check_memory(suite, limit, chunk_bytes=CHUNK_BYTES, other_bytes=buffers, jobs=jobs, lengths=lengths)
    if length == 0 or not may_use_segments(length, jobs, suite):
        return here
    copy = check_memory(suite, 1 << 62, chunk_bytes=CHUNK_BYTES, other_bytes=CHUNK_BYTES, lengths=lengths)

    def side_by_side(workers: int) -> int:
        return here + (copies_of_tests(workers) - 1) * copy

    total = side_by_side(jobs)
    if total <= limit:
        return total
    fewer = next((k for k in range(jobs - 1, 1, -1) if side_by_side(k) <= limit), None)
    instead = f"--jobs {fewer} (or --jobs 1 to test in one process)" if fewer else "--jobs 1 to test in one process"
    raise SuiteError(f"suite file {suite.path}: the run on {jobs} workers side by side needs "
                     f"{format_size(total, approximate=True)} of memory (a copy of the tests in each), over "
                     f"--max-memory {format_size(limit, approximate=True)}; pass {instead}, or a larger --max-memory")


def run_length(request: RunRequest) -> int | None:
    """Bytes the run of ``request`` reads, when known before it starts
    (None: until the data ends); a file's run ends at its size."""
    length = request.progress_total()  # the last length or the limit (bits of bit text)
    if length is not None and request.fmt == "bits":
        length //= 8
    size = file_size(request.source) if request.source != "-" else None  # as the source will read it
    if size is not None:
        size //= 8 if request.fmt == "bits" else 1
        length = size if length is None else min(length, size)
    return length


def check_request_memory(request: RunRequest, suite: Suite, max_memory: int, jobs: int, *,
                         in_process: bool = False) -> None:
    """Refuse a run before it starts when its suite, its buffers and the
    results a progressive run keeps per length would pass ``max_memory``,
    with a cluster's copies of the tests where one may be chosen
    (``in_process``: ``jobs`` are threads of this process, as in the API)."""
    check_run_memory(suite, max_memory, jobs=jobs, fmt=request.fmt, lengths=request.lengths_judged,
                     length=0 if in_process else run_length(request))
