"""How long a segment is: a multiple of every accumulator's alignment, near
a default that depends on who opens the source and on the run's length."""

from __future__ import annotations

import math

from randqa.battery.suites import Suite
from randqa.errors import UsageError
from randqa.sizes import format_size


#: the default segment when workers open the source themselves (a jump, a
#: pread, the OS's generator): long enough that what a segment costs besides
#: its test (a Dask task, its state sent and merged: about 30 ms of CPU for
#: the standard suite, benchmarks/bench_scaling.py) is about 1% of its test
OPENED_SEGMENT_BYTES = 1 << 30
#: the default segment of a seed sweep
DEFAULT_SEGMENT_BYTES = 256 << 20
#: the default segment of a stream this process reads and hands out (stdin,
#: a generator that only runs forward): the run holds the segments in
#: flight (two per worker; in threads, one per thread and one waiting) and
#: the one being read, so 32 MiB keeps a run in two threads near 130 MiB of
#: data, while a segment's state copy and merge (about 30 ms of CPU for the
#: standard suite) stay about a tenth of its test.  A suite whose state is
#: larger gets segments of half its state (rc4's 128 MiB of digraph counts
#: travel with every segment): the segments held then take at most about
#: half what the run's copies of the tests take.
PRODUCED_SEGMENT_BYTES = 32 << 20


def suite_alignment(suite: Suite, fold: tuple[int, int] | None = None) -> int:
    """The smallest segment every accumulator of the suite can be split at:
    the lcm of their ``alignment``s (and, for a folded source, the folded
    bytes that end on a whole word)."""
    alignment = math.lcm(*(acc.alignment for acc in suite.build()))
    if fold is not None:
        low_bits = fold[1]
        alignment = math.lcm(alignment, low_bits // math.gcd(low_bits, 8))
    return alignment


def segment_size(alignment: int, requested: int | None, *, unit: str = "bytes",
                 default: int = DEFAULT_SEGMENT_BYTES) -> int:
    """``--segment`` checked against the alignment, or the multiple of it nearest ``default``."""
    if requested is not None:
        if requested <= 0 or requested % alignment:
            nearest = max(1, round(requested / alignment)) * alignment
            raise UsageError(f"--segment {format_size(requested)} is not a multiple of {format_size(alignment)}, "
                             f"the {unit} at which every test of the suite can be split (try {format_size(nearest)})")
        return requested
    return max(1, round(default / alignment)) * alignment


def default_segment(remote_open: bool, limit: int | None = None, slots: int | None = None,
                    state_bytes: int = 0) -> int:
    """The segment a run gets without --segment.  Where workers open the
    source themselves, 1 GiB; but a run of ``limit`` units on ``slots``
    workers is cut finer (randqa.engine.run_mode.balanced_segment), so that
    what this process tests while the cluster starts and the last round of
    segments leave no worker idle long.  Where this process hands the data
    out, ``PRODUCED_SEGMENT_BYTES``, or half the ``state_bytes`` the
    suite's tests hold when that is more (at most 256 MiB)."""
    from randqa.engine.run_mode import balanced_segment

    if not remote_open:
        return min(DEFAULT_SEGMENT_BYTES, max(PRODUCED_SEGMENT_BYTES, state_bytes // 2))
    if limit is None or slots is None:
        return OPENED_SEGMENT_BYTES
    return min(OPENED_SEGMENT_BYTES, balanced_segment(limit, slots))
