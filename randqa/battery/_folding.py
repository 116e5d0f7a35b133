"""A suite entry folded to low bits (``fold_word_bits``/``fold_low_bits``):
``FoldedTest`` runs any accumulator on the low bits of every word, as
PractRand's [Low1/8] and [Low4/32] sub-streams do (randqa/folding.py has
the folding itself and its source).
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np

from randqa.battery._sampling import SampledTest
from randqa.battery._shared import FoldedStatistic
from randqa.battery._sharing import SharesStatistic, declared_statistic
from randqa.battery.base import Accumulator
from randqa.folding import FoldCarry, check_folding, fold_low_bits
from randqa.results import TestResult


class FoldMemo:
    """The latest fold of one suite's stream at one folding, for its entries
    with that folding (``share_folds``): the entries of a suite see the same
    bytes at the same stream position, so the first of them to fold a chunk
    folds it for all.  Not state: a copy (pickle, checkpoint) starts empty."""

    def __init__(self) -> None:
        self._key: tuple[int, int, FoldCarry | None] | None = None
        self._folded: tuple[np.ndarray, FoldCarry] | None = None
        self._lock = threading.Lock()  # --jobs updates entries in parallel threads

    def fold(self, chunk: np.ndarray, position: int, word_bytes: int, low_bits: int,
             carry: FoldCarry | None) -> tuple[np.ndarray, FoldCarry]:
        """``fold_low_bits`` of ``chunk``, which starts at stream byte ``position``."""
        key = (position, len(chunk), carry)
        with self._lock:
            if self._key != key:
                self._folded = fold_low_bits(chunk, word_bytes, low_bits, carry)
                self._key = key
            assert self._folded is not None
            return self._folded

    def __getstate__(self) -> dict[str, Any]:
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]


class FoldedTest(SharesStatistic):
    """Runs ``inner`` on the low ``low_bits`` bits of every ``word_bits``-bit word.

    Result names get a ``[low{low_bits}/{word_bits}]`` suffix, like
    PractRand's ``[Low4/32]``.  Folded entries of a suite with the same
    folding whose inner tests declare the same statistic share it: the
    stream is folded once for all of them (randqa/battery/_sharing.py).
    """

    name = "folded"

    def __init__(self, inner: Accumulator, *, word_bits: int, low_bits: int) -> None:
        super().__init__()
        check_folding(word_bits, low_bits)
        self.inner = inner
        self.word_bits = word_bits
        self.low_bits = low_bits
        self.suffix = f"[low{low_bits}/{word_bits}]"
        self.name = inner.name + self.suffix
        self.word_bytes = word_bits // 8
        self.carry: FoldCarry | None = None
        #: shared with the suite's other entries of this folding (share_folds)
        self.memo: FoldMemo | None = None

    def parameters(self) -> dict:
        return {"inner": repr(self.inner), "word_bits": self.word_bits, "low_bits": self.low_bits}

    @property
    def alignment(self) -> int:
        return self._input_bytes(self.inner.alignment)

    @property
    def phase(self) -> int:
        return self._input_bytes(self.inner.phase)

    def _input_bytes(self, inner_bytes: int) -> int:
        # whole words, whole output bytes, and a multiple of the inner test's bytes
        out_bits = 8 * inner_bytes
        words = out_bits // math.gcd(out_bits, self.low_bits)
        return words * self.word_bytes

    def _begin_at(self, position: int) -> None:
        self.inner.begin_at(position // self.word_bytes * self.low_bits // 8)

    def declared_statistic(self) -> FoldedStatistic | None:
        inner = declared_statistic(self.inner)
        return None if inner is None else FoldedStatistic(inner, self.word_bits, self.low_bits)

    def use_shared_statistic(self, statistic: FoldedStatistic, *, owner: bool, sees_stream: bool = True) -> None:
        super().use_shared_statistic(statistic, owner=owner, sees_stream=sees_stream)
        assert isinstance(self.inner, SharesStatistic)  # it declared the inner statistic
        self.inner.use_shared_statistic(statistic.inner, owner=False, sees_stream=False)

    def _state_saved_elsewhere(self) -> tuple[str, ...]:
        return (*super()._state_saved_elsewhere(), "memo")

    def _update(self, chunk: np.ndarray) -> None:
        if self.memo is None and (self.carry is None or self.carry == FoldCarry()) and self._fold_what_is_read(chunk):
            return
        if self.memo is None:
            packed, self.carry = fold_low_bits(chunk, self.word_bytes, self.low_bits, self.carry)
        else:
            packed, self.carry = self.memo.fold(chunk, self.start + self.bytes_seen, self.word_bytes,
                                                self.low_bits, self.carry)
        if len(packed):
            self.inner.update(packed)

    def _fold_what_is_read(self, chunk: np.ndarray) -> bool:
        """Fold ``chunk`` (the fold's carry empty) where the inner test reads
        it, and skip it elsewhere: groups of whole words that make whole
        output bytes fold alone, so each stretch read, widened to groups,
        is folded by itself.  False, having done nothing, for a test that
        reads every byte."""
        group_out = self.low_bits // math.gcd(8, self.low_bits)  # output bytes of a group
        group_in = group_out * 8 * self.word_bytes // self.low_bits  # its input bytes
        groups = len(chunk) // group_in
        position = self.inner.start + self.inner.bytes_seen
        stretches = self.inner.stretches_read(position, groups * group_out)
        if stretches is None:
            return False
        done = 0  # output bytes of the whole groups given to the inner test
        for a, b in stretches:
            first = max((a - position) // group_out, done // group_out)
            last = -(-(b - position) // group_out)
            if last <= first:
                continue
            if first * group_out > done:
                self.inner.skip_unread(first * group_out - done)
            packed, _ = fold_low_bits(chunk[first * group_in:last * group_in], self.word_bytes, self.low_bits, None)
            self.inner.update(packed)
            done = last * group_out
        if groups * group_out > done:
            self.inner.skip_unread(groups * group_out - done)
        packed, self.carry = fold_low_bits(chunk[groups * group_in:], self.word_bytes, self.low_bits, None)
        if len(packed):
            self.inner.update(packed)
        return True

    def _merge(self, other: "FoldedTest") -> None:
        self.inner.merge(other.inner)
        self.carry = other.carry

    def _merge_kept(self, other: "FoldedTest") -> None:
        self.inner.merge(other.inner)  # what the inner test keeps itself

    def finalize(self) -> list[TestResult]:
        if self.shared is not None:
            self._statistic()  # checks that the statistic saw this entry's bytes
        results = self.inner.finalize()
        for r in results:
            r.name += self.suffix
        return results


def share_folds(accumulators: list[Accumulator]) -> None:
    """Give the folded entries of one suite's list that fold alike, and
    fold the stream themselves, one ``FoldMemo``: the stream is folded
    once per chunk for all of them.  Sampled entries (``SampledTest``) fold
    alike when they also sample alike: they see the same bytes.  Like
    shared statistics, it holds while the list is updated together
    (randqa/battery/_sharing.py)."""
    groups: dict[tuple[int, int, tuple[int, int] | None], list[FoldedTest]] = {}
    for acc in accumulators:
        sampling = None
        if isinstance(acc, SampledTest):
            sampling = (acc.every, acc.dense_bytes)
            acc = acc.inner
        if isinstance(acc, FoldedTest) and acc.shared is None:
            groups.setdefault((acc.word_bits, acc.low_bits, sampling), []).append(acc)
    for members in groups.values():
        if len(members) > 1:
            memo = FoldMemo()
            for acc in members:
                acc.memo = memo
