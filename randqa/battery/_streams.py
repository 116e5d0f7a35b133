"""One stream alone, or two streams' XOR, inside a run of K interleaved streams.

``randqa test GEN --streams K`` tests the interleaved stream of K streams
(randqa/sources/multistream.py) with the suite, and the suite again on
each stream alone, so that interleaving cannot hide what one stream shows
(a weak stream's defect is diluted K times in the interleaved stream, and
a test of blocks or lags sees it at another scale).  It also runs the cheap
core tests (the ``quick`` suite) on the XOR of each pair of streams: two
streams that are equal, shifted copies, or share most of their state
(numpy's "upgrading-pcg64" note: PCG64 XSL-RR streams with one increment and
the same low 58 bits of state) give an XOR far from uniform, whatever each
stream looks like alone.

``StreamViews`` is the one suite entry that does this: it reads every
stream out of the interleaved chunks once (randqa/interleaving.py) and
feeds each stream's inner accumulators, and each pair's XOR to the pair's,
each list built together so that its entries share statistics as a
suite's do (randqa/battery/_sharing.py).  Its results are the inner ones,
named ``test[stream i]`` and ``test[streams i xor j]``.  A pair's XOR is
fed as far as both streams have come, where the last stream has: every
stream keeps its bytes beyond that (at most B) for the next chunk.  It
splits only where every stream has the same number of bytes and each inner
test can split: K * lcm(B, inner alignments) bytes of the interleaved stream.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from randqa.battery.base import Accumulator
from randqa.interleaving import check_interleaving, deinterleave_all, pair_suffix, stream_suffix
from randqa.results import TestResult

#: the suite each pair's XOR runs through: the cheap core tests
PAIR_SUITE = "quick"
#: up to this many streams every pair is tested; above it, each stream with the next
ALL_PAIRS_UP_TO = 16


def stream_pairs(streams: int) -> list[tuple[int, int]]:
    """The pairs (i, j), i < j, whose XOR a run of ``streams`` streams tests."""
    if streams <= ALL_PAIRS_UP_TO:
        return [(i, j) for i in range(streams) for j in range(i + 1, streams)]
    return [(i, i + 1) for i in range(streams - 1)]


class StreamViews(Accumulator):
    """Runs ``alone[i]`` on stream i of ``streams`` streams interleaved every
    ``interleave`` bytes, and ``paired[p]`` on the XOR of the streams of ``pairs[p]``."""

    name = "stream_views"

    def __init__(self, alone: list[list[Accumulator]], paired: list[list[Accumulator]], *, streams: int,
                 interleave: int, pairs: list[tuple[int, int]]) -> None:
        super().__init__()
        check_interleaving(streams, interleave)
        if len(alone) != streams or len(paired) != len(pairs):
            raise ValueError(f"need one list of tests per stream ({streams}) and per pair ({len(pairs)})")
        if not all(0 <= i < j < streams for i, j in pairs):
            raise ValueError(f"pairs must be (i, j) with 0 <= i < j < {streams}: {pairs!r}")
        self.alone = alone
        self.paired = paired
        self.streams = streams
        self.interleave = interleave
        self.pairs = [tuple(pair) for pair in pairs]
        #: each stream's bytes beyond the last stream's, which the pairs have not had yet
        self.ahead = [np.zeros(0, dtype=np.uint8) for _ in range(streams)]

    def parameters(self) -> dict[str, Any]:
        return {"streams": self.streams, "interleave": self.interleave, "pairs": self.pairs,
                "alone": [repr(acc) for acc in self.alone[0]], "paired": [repr(acc) for acc in self._paired_tests()]}

    def _paired_tests(self) -> list[Accumulator]:
        return self.paired[0] if self.paired else []

    def _inner(self) -> list[Accumulator]:
        return [acc for tests in self.alone + self.paired for acc in tests]

    @property
    def alignment(self) -> int:
        return self.streams * math.lcm(self.interleave, *(acc.alignment for acc in self._inner()))

    @property
    def phase(self) -> int:
        return self.streams * math.lcm(self.interleave, *(acc.phase for acc in self._inner()))

    def _begin_at(self, position: int) -> None:
        for acc in self._inner():
            acc.begin_at(position // self.streams)

    def _views(self, chunk: np.ndarray) -> list[tuple[list[Accumulator], np.ndarray]]:
        """Each list of tests with its bytes of ``chunk``, which starts at ``bytes_seen``."""
        position = self.start + self.bytes_seen
        each = deinterleave_all(chunk, position, self.streams, self.interleave)
        views = list(zip(self.alone, each))
        if self.pairs:
            joined = [np.concatenate([ahead, data]) if len(ahead) else data for ahead, data in zip(self.ahead, each)]
            common = len(joined[-1])  # the last stream is the one furthest behind
            self.ahead = [data[common:].copy() for data in joined]
            views += [(tests, np.bitwise_xor(joined[i][:common], joined[j][:common]))
                      for tests, (i, j) in zip(self.paired, self.pairs)]
        return views

    def _update(self, chunk: np.ndarray) -> None:
        for tests, data in self._views(chunk):
            for acc in tests:
                acc.update(data)

    def _parallel_parts(self, chunk: np.ndarray, parts: int) -> list[Callable[[], None]]:
        return [task for tests, data in self._views(chunk) for acc in tests for task in acc.update_tasks(data, parts)]

    def _merge(self, other: "StreamViews") -> None:
        for mine, theirs in zip(self._inner(), other._inner()):
            mine.merge(theirs)
        self.ahead = other.ahead

    def finalize(self) -> list[TestResult]:
        results = []
        for index, tests in enumerate(self.alone):
            results += self._named([r for acc in tests for r in acc.finalize()], stream_suffix(index))
        for (i, j), tests in zip(self.pairs, self.paired):
            results += self._named([r for acc in tests for r in acc.finalize()], pair_suffix(i, j))
        return results

    @staticmethod
    def _named(results: list[TestResult], suffix: str) -> list[TestResult]:
        for r in results:
            r.name += suffix
        return results
