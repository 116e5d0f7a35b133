"""A suite entry that tests part of the stream (``sample_every``):
``SampledTest`` runs any accumulator on the whole of the stream's first
``dense_bytes`` and on one segment of ``SEGMENT_BYTES`` in every ``every``
after that, for speed where an entry's failures come early or by a wide
margin.

Why it keeps the law: the segments are fixed stream positions, chosen
before any byte is read, so the bytes the test sees are a concatenation of
stretches of an iid stream, which is an iid stream; every statistic keeps
its null distribution (the tuples that span a seam mix two stretches,
which a good generator cannot tell apart either).  What it costs is power
after the dense head: a failure the full entry shows at L bytes shows at
about dense_bytes + every * (L - dense_bytes).  The failures within the
dense head are the full entry's, at the same lengths.
"""

from __future__ import annotations

import math
import numpy as np

from randqa.battery.base import Accumulator
from randqa.results import TestResult

#: the stretch a sampled entry tests in every ``every``: whole blocks of
#: any test whose block is at most 1 MiB, and long enough that the tuples
#: spanning a seam are a negligible share
SEGMENT_BYTES = 1 << 20
#: the largest ``every``: beyond it an entry costs too little to matter
MAX_EVERY = 1024
#: the longest dense head (in MiB, as a suite file gives it)
MAX_DENSE_MIB = 1 << 20


def check_sampling(every: object, dense_mib: object) -> None:
    """Raise ValueError unless ``every`` (2 to MAX_EVERY) and ``dense_mib``
    (0 to MAX_DENSE_MIB) make a sampling."""
    if not isinstance(every, int) or isinstance(every, bool) or not 2 <= every <= MAX_EVERY:
        raise ValueError(f"sample_every must be a whole number from 2 to {MAX_EVERY}, not {every!r}")
    if not isinstance(dense_mib, int) or isinstance(dense_mib, bool) or not 0 <= dense_mib <= MAX_DENSE_MIB:
        raise ValueError(f"sample_dense_mib must be a whole number from 0 to {MAX_DENSE_MIB}, not {dense_mib!r}")


def sampled_bytes_before(position: int, every: int, dense_bytes: int) -> int:
    """How many of the stream's first ``position`` bytes a sampled entry tests."""
    if position <= dense_bytes:
        return position
    periods, into = divmod(position - dense_bytes, every * SEGMENT_BYTES)
    return dense_bytes + periods * SEGMENT_BYTES + min(into, SEGMENT_BYTES)


class SampledTest(Accumulator):
    """Runs ``inner`` on the stream's first ``dense_bytes`` and, after them,
    on the first SEGMENT_BYTES of every ``every * SEGMENT_BYTES``.

    Result names are the inner test's: a sampled entry judges the same
    statistic on fewer bytes (the details say how many it tested).
    """

    name = "sampled"

    def __init__(self, inner: Accumulator, *, every: int, dense_bytes: int) -> None:
        super().__init__()
        check_sampling(every, dense_bytes >> 20)
        if dense_bytes % SEGMENT_BYTES:
            raise ValueError(f"the dense head must be whole MiB, not {dense_bytes} bytes")
        if SEGMENT_BYTES % inner.alignment or SEGMENT_BYTES % inner.phase:
            raise ValueError(f"sample_every needs a test whose blocks divide 1 MiB; {inner.name}'s are "
                             f"{max(inner.alignment, inner.phase)} bytes")
        self.inner = inner
        self.every = every
        self.dense_bytes = dense_bytes
        self.name = inner.name

    def parameters(self) -> dict:
        return {"inner": repr(self.inner), "every": self.every, "dense_bytes": self.dense_bytes}

    @property
    def alignment(self) -> int:
        return self.inner.alignment

    @property
    def phase(self) -> int:
        # a right part not placed with begin_at starts its own dense head:
        # it may follow only where this one's stream starts (nowhere but 0)
        if self.dense_bytes:
            return 1 << 62
        return math.lcm(self.every * SEGMENT_BYTES, self.inner.phase)

    def _begin_at(self, position: int) -> None:
        self.inner.begin_at(sampled_bytes_before(position, self.every, self.dense_bytes))

    def _update(self, chunk: np.ndarray) -> None:
        position = self.start + self.bytes_seen
        end = position + len(chunk)
        if position < self.dense_bytes:
            take = min(end, self.dense_bytes) - position
            self.inner.update(chunk[:take])
            position += take
        period = self.every * SEGMENT_BYTES
        while position < end:
            into = (position - self.dense_bytes) % period
            if into < SEGMENT_BYTES:
                take = min(SEGMENT_BYTES - into, end - position)
                at = position - self.start - self.bytes_seen
                self.inner.update(chunk[at : at + take])
                position += take
            else:
                position += period - into

    def update_tail_bits(self, bits: np.ndarray) -> None:
        """The final 1-7 bits of a bit stream: the inner test's when the
        byte they start is one this entry tests."""
        position = self.start + self.bytes_seen
        if sampled_bytes_before(position + 1, self.every, self.dense_bytes) > sampled_bytes_before(
                position, self.every, self.dense_bytes):
            self.inner.update_tail_bits(bits)

    def _merge(self, other: "SampledTest") -> None:
        self.inner.merge(other.inner)

    def finalize(self) -> list[TestResult]:
        results = self.inner.finalize()
        sampling = {"tested_bytes": self.inner.bytes_seen, "sample_every": self.every,
                    "sample_dense_bytes": self.dense_bytes}
        for r in results:
            r.details.update(sampling)
        return results
