"""The one run loop: plain runs, progressive runs and seed sweeps, in this
process or on Dask workers, with checkpoints.

A run of N units (bytes; seeds for a seed sweep) is cut into contiguous
segments of S units, S a multiple of every accumulator's ``alignment``
(``segment_size``).  Segment k covers ``[k S, (k+1) S)`` of exactly the
stream a one-process run reads: a worker opens the source there
(``randqa.sources.segments.open_at``: pread for files, a jump for
generators that can, a fresh read of the OS for urandom and its kind), or
gets the bytes from this process, which reads a sequential source (stdin,
RC4, ...) in order and hands segments out.  Workers return their
accumulators' state (plain data, ``Accumulator.state``) and this process
merges them strictly in stream order, a contiguous prefix at a time, so the
results are those of one process whatever the workers and the segment size.

What runs where:

- in this process: everything with ``--jobs 1``; a run no longer than one
  segment (a cluster's start-up would cost more than it saves); the first
  segment of a progressive run, whose short lengths are judged before any
  cluster starts (a bad generator fails at 1 KiB and never waits for one);
  a piece up to the next segment boundary after resuming mid-segment.
  ``--jobs N`` then runs the suite's tests in N threads on each chunk;
- on workers: every other segment.  A progressive length inside a segment
  is reached by asking its worker for a snapshot of the state there, merged
  onto a copy of the prefix and judged.

The run's JSON says how it was executed (``execution``: mode, workers,
segment size, how the source was split).  With a checkpoint the merged
prefix is saved at most every ``checkpoint_every`` seconds and at exit
(randqa/engine/checkpoint.py); a run resumes from any such state."""

from __future__ import annotations

import time
from dataclasses import KW_ONLY, InitVar, dataclass, replace
from typing import Any, Callable, Iterator

from randqa.battery._state import StateError
from randqa.engine.jobs import copy_accumulators, load_into, loaded, merge_into
from randqa.engine.lengths import Plan
from randqa.engine.records import CheckpointRecord, Outcome, SaveFailed, Saver
from randqa.engine.retests import STOPPED, Retest, Retests
from randqa.engine.segment_policy import default_segment, segment_size
from randqa.engine.signals import InterruptGuard
from randqa.engine.workloads import ProducedInterrupted, Workload
from randqa.errors import InputError
from randqa.results import FAILING, TestResult, Verdict, resolve_retest, worst_verdict


class _StopRun(Exception):
    """A progressive run failed and does not keep going."""


@dataclass(eq=False, repr=False)
class RunLoop(Retests):
    """One run of a workload: pieces in this process or segments on workers,
    merged in stream order, judged at the end or at each progressive length.
    The fields are what the run is given; the rest is found from them."""

    workload: Workload
    plan: Plan
    _: KW_ONLY
    #: units per segment; None: the workload's default for the run's length and workers
    segment: InitVar[int | None]
    #: randqa.engine.parallel.Workers, or None: everything in this process
    workers: Any = None
    #: threads per chunk in this process (the run mode may pick fewer)
    threads: int = 1
    saver: Saver | None = None
    #: a checkpoint's record and accumulator states to go on from
    resume: InitVar[tuple[CheckpointRecord, list[dict[str, Any]]] | None] = None
    on_progress: Callable[[int], None] | None = None

    def __post_init__(self, segment: int | None, resume: tuple[CheckpointRecord, list[dict[str, Any]]] | None) -> None:
        self.merged = self.workload.build()
        self.progress = CheckpointRecord()
        self.resumed_at: int | None = None
        if resume is not None:
            self.progress, states = resume
            self.resumed_at = self.progress.position
            if len(states) != len(self.merged):
                raise StateError(f"the saved state holds {len(states)} tests, the run {len(self.merged)}")
            for acc, state in zip(self.merged, states):
                load_into(acc, state)
            self.workload.expect_head(self.progress.head)
        size = self.workload.size()
        limit = self.plan.limit
        self.limit = limit if size is None else size if limit is None else min(limit, size)
        from randqa.engine.run_mode import mode_of_run

        given = segment is not None
        if segment is None:  # the workload's default, which depends on the run's length and workers
            wanted = self.workers is not None and self.workers.wanted
            slots = self.workers.planned_slots if wanted else self.threads if self.threads > 1 else None
            segment = segment_size(self.workload.alignment, None,
                                   default=default_segment(self.workload.remote_open, self.limit, slots,
                                                           self.workload.state_bytes()))
        self.segment_units = segment
        self.mode = mode_of_run(self.workload, self.limit, self.workers, self.threads, segment=segment,
                                segment_given=given, progressive=self.plan.progressive)
        self.threads = self.mode.threads
        #: whether the run reached the segments its mode sends elsewhere (the run's JSON then says why)
        self.segments_begun = False
        #: the threads that test segments side by side (segment-threads mode), made when first needed
        self._segment_threads: Any = None
        #: a file shorter than asked: it ends at its size
        self.data_short = size is not None and limit is not None and size < limit
        self.final: list[TestResult] | None = None
        self._stopped_with: list[Any] | None = None
        #: entries being run again on the block after the length that made them suspicious
        self.retests: list[Retest] = []
        self._start = time.perf_counter()
        self._last_save = time.monotonic()

    # -- judging ------------------------------------------------------------

    def elapsed(self) -> float:
        return self.progress.elapsed_s + time.perf_counter() - self._start

    def _record(self, position: int, accumulators: list[Any]) -> list[TestResult]:
        """Settle the retests that end at a progressive length and judge it,
        and stop the run at its first failure (unless it keeps going).  A
        retest that makes the first failure stops the run before this length
        is judged: the run's results are then the failing length's, whose
        own results have had their repeat (this length's would have none)."""
        repeated = self._settle_retests(position)
        if repeated and not self.plan.keep_going:
            self._stop_if_failed(position, True)
        entries = self.workload.judge_entries(accumulators)
        results = [r for group in entries for r in group]
        verdict = worst_verdict([r.verdict for r in results])
        record = {"bytes": position, "verdict": verdict, "elapsed_s": round(self.elapsed(), 6),
                  "tests": [r.to_json() for r in results]}
        self.progress.lengths.append(record)
        self.final = results
        failed = verdict == Verdict.FAIL or repeated
        self._schedule_retests(position, entries, record)
        self._stop_if_failed(position, failed)
        return results

    def _stop_if_failed(self, position: int, failed: bool) -> None:
        if failed and self.progress.first_failure is None:
            self.progress.first_failure = position
            if not self.plan.keep_going:
                raise _StopRun

    def _points_after(self, position: int) -> list[int]:
        return [n for n in self.plan.lengths if n > position] if self.plan.progressive else []

    # -- saving -------------------------------------------------------------

    def _maybe_save(self, force: bool = False, accumulators: list[Any] | None = None) -> None:
        if self.saver is None:
            return
        if not force and time.monotonic() - self._last_save < self.saver.every_s:
            return
        saved = replace(self.progress, elapsed_s=round(self.elapsed(), 3), lengths=list(self.progress.lengths))
        saved.head = self.workload.head(saved.position) or saved.head
        try:
            self.saver.save(saved, accumulators if accumulators is not None else self.merged)
            self.saver.failure = None
        except SaveFailed as exc:  # the run's results matter more than its checkpoint: they are still reported
            self.saver.failure = str(exc)
        self._last_save = time.monotonic()

    # -- pieces -------------------------------------------------------------

    def _next_boundary(self, position: int) -> int:
        end = (position // self.segment_units + 1) * self.segment_units
        points = self._points_after(position)
        if points:
            end = min(end, points[0])
        ends = [r.end for r in self.retests if r.end > position]
        if ends:
            end = min(end, min(ends))
        if self.limit is not None:
            end = min(end, self.limit)
        return end

    def _use_workers(self, position: int) -> bool:
        """Whether the segments from ``position`` on go to the segment
        threads or the cluster (else the next piece is tested here)."""
        if not self.mode.segments:
            return False
        if position < self.mode.start_at:
            return False  # short lengths, or the first segment of a stream of unknown length, first
        self.segments_begun = True
        if self.mode.cluster:
            self.workers.start_in_background()
        if position % self.segment_units:
            return False  # first reach a segment boundary here
        return self.workers.ready if self.mode.cluster else True  # until a cluster is up, pieces are tested here

    def _segment_runner(self) -> Any:
        """What tests the segments: the cluster's workers, or this process's segment threads."""
        if self.mode.cluster:
            return self.workers
        if self._segment_threads is None:
            from randqa.engine.segment_threads import SegmentThreads

            self._segment_threads = SegmentThreads(self.mode.side_by_side)
        return self._segment_threads

    def _in_process_piece(self, guard: InterruptGuard, position: int) -> int:
        count = self._next_boundary(position) - position
        # retests whose block this piece is part of ride along
        riders = [r for r in self.retests if r.start <= position < r.end and r.fed == position - r.start]
        guard.updating = False
        try:
            fed = self.workload.feed(self.merged + [a for r in riders for a in r.accumulators],
                                     position, count, self.threads, self.on_progress)
        finally:
            guard.updating = True
        for r in riders:
            r.fed += fed.units
        position += fed.units
        self.progress.position = position
        self.progress.in_process += fed.units
        if fed.interrupted:
            raise KeyboardInterrupt
        if fed.units < count:
            self.progress.ended = True
            return position
        self._after_piece(position)
        return position

    def _after_piece(self, position: int) -> None:
        """Once the merged state reaches ``position``: judge it when it is a
        progressive length, else settle the retests that end there; then save
        when a checkpoint is due."""
        if self.plan.progressive and position in self.plan.lengths:
            self._record(position, self.merged)
        else:
            self._stop_if_failed(position, self._settle_retests(position))
        self._maybe_save()

    def _segments(self, guard: InterruptGuard, position: int) -> Iterator[Any]:
        from randqa.engine.dispatch import Segment

        index = position // self.segment_units
        start = position
        while self.limit is None or start < self.limit:
            count = self.segment_units if self.limit is None else min(self.segment_units, self.limit - start)
            data = None
            if not self.workload.remote_open:
                guard.updating = False  # a slow pipe: Ctrl-C stops the read
                try:
                    data = self.workload.produce(start, count)
                except ProducedInterrupted as stop:  # what had arrived is tested, then the run stops
                    data, guard.pending = stop.data, True
                finally:
                    guard.updating = True
                if len(data) == 0:
                    return
            short = data is not None and len(data) < count
            if short:
                count = len(data)
            snapshots = tuple(n for n in self._points_after(start) if n < start + count)
            yield Segment(index, start, count, snapshots, data)
            data = None  # held by its task only, so that it is freed once tested
            if short:
                return  # the data ended inside this segment
            index += 1
            start += count

    def _on_workers(self, guard: InterruptGuard, position: int) -> int:
        from randqa.engine.dispatch import in_stream_order

        job = self.workload.job
        # a stream this process reads cannot be read again: on a stop signal the
        # segments it already read are tested to the end, then the run stops
        drain = not self.workload.remote_open
        for segment, result in in_stream_order(self._segment_runner(), job, self._segments(guard, position),
                                               lambda: guard.pending, drain=drain, abandon=lambda: guard.stops > 1):
            count = int(result["count"])
            along = segment.start  # the segment's units the retests have had
            for point in segment.snapshots:
                if point > segment.start + count:
                    break
                judged = copy_accumulators(job, self.merged)
                merge_into(judged, loaded(job, segment.start, result["snapshots"][point]))
                self._ride_along(segment, along, point)
                along = point
                try:
                    self._record(point, judged)
                except _StopRun:
                    self.progress.position = point
                    self._stopped_with = judged
                    raise
            merge_into(self.merged, loaded(job, segment.start, result["states"]))
            position = segment.start + count
            self.progress.position = position
            self.progress.segments += 1
            self._ride_along(segment, along, position)
            if self.on_progress:
                self.on_progress(count * self.workload.unit_bytes)
            if count < segment.count:
                self.progress.ended = True
                return position
            self._after_piece(position)
            if guard.pending and not drain:
                raise KeyboardInterrupt
            segment = result = None  # a producer's bytes are freed before it reads the next segment
        if guard.pending:
            raise KeyboardInterrupt
        if self.limit is None or position < self.limit:
            self.progress.ended = True  # the producer found the end of the data
        return position

    # -- the run --------------------------------------------------------------

    def run(self) -> Outcome:
        progress = self.progress
        interrupted = False
        with InterruptGuard() as guard:
            guard.updating = True  # outside reads, Ctrl-C waits until the merged state is consistent
            progress.sessions += 1
            try:
                if not progress.complete:
                    position = progress.position
                    while not progress.ended and (self.limit is None or position < self.limit):
                        if self._use_workers(position):
                            position = self._on_workers(guard, position)
                        else:
                            position = self._in_process_piece(guard, position)
                        if guard.pending:
                            raise KeyboardInterrupt
                    if self.data_short:
                        progress.ended = True
                    progress.tail_bits = self.workload.finish(self.merged, position)
                    self._finish_judging(position)
                    progress.complete = True
            except KeyboardInterrupt:
                interrupted = True
            except _StopRun:
                progress.complete = True
            interrupted = interrupted or guard.pending
            if self.workers is not None and not interrupted:
                self.workers.discard_start()  # the run ended before the cluster was needed: never wait for it
            if self._segment_threads is not None:
                self._segment_threads.close()
            if progress.position == 0 and progress.tail_bits == 0 and not interrupted:
                raise InputError(f"{self.workload.name}: no data (empty input)")
            lengths = list(progress.lengths)
            if interrupted:
                results = self._judge_interrupted(lengths)
            elif self._stopped_with is not None:
                results = self.final or []
            else:  # a finished run resumed has no final results yet: judged again
                results = self.final if self.final is not None else self.workload.judge(self.merged)
            if self.saver is not None:
                final_state = self._stopped_with if self._stopped_with is not None else self.merged
                self._maybe_save(force=True, accumulators=final_state)
                # a stop signal during the final save (held until it is whole) still stops the run
                interrupted = interrupted or guard.pending
            if interrupted:
                # after the save: a resumed run reads the whole retest blocks instead, and judges
                # where this one stopped anew
                settled_failure = self._settle_interrupted()
                if self.plan.progressive and progress.position and progress.first_failure is None and any(
                        result.verdict in FAILING for result in results):
                    progress.first_failure = progress.position
                if settled_failure:
                    results, lengths = self.final or results, list(progress.lengths)
        return Outcome(results=results, progress=progress, interrupted=interrupted, elapsed_s=self.elapsed(),
                       execution=self.execution(), lengths=lengths)

    def _finish_judging(self, position: int) -> None:
        if not self.plan.progressive:
            entries = self.workload.judge_entries(self.merged)
            self.final = [r for group in entries for r in group]
            self._schedule_retests(position, entries, None)
        else:
            lengths = self.progress.lengths
            if position and (not lengths or lengths[-1]["bytes"] != position):
                self._record(position, self.merged)  # the data ended between two lengths
        self._read_on(position)

    def _judge_interrupted(self, lengths: list[dict[str, Any]]) -> list[TestResult]:
        results = self.workload.judge(self.merged)
        position = self.progress.position
        # nothing follows what a stopped run read: a result to retest there is settled as one with
        # no fresh data (fails only below fail_unrepeated), not left unconfirmed
        for result in results:
            if result.needs_retest():
                resolve_retest(result, None, self.workload.thresholds, start=position, length=position,
                               missing=STOPPED)
        if self.plan.progressive and position and (not lengths or lengths[-1]["bytes"] != position):
            verdict = worst_verdict([r.verdict for r in results])
            lengths.append({"bytes": position, "verdict": verdict, "elapsed_s": round(self.elapsed(), 6),
                            "tests": [r.to_json() for r in results]})
        return results

    def execution(self) -> dict[str, Any]:
        """How the run was executed, for its JSON: in this process (nothing
        was split), or on workers, with the segment size and how the source
        was split."""
        data: dict[str, Any]
        if self.progress.segments:
            runner = self._segment_threads if self._segment_threads is not None else self.workers
            data = runner.describe() if runner is not None else {"mode": "in-process"}
            data.update({
                "split": self.workload.split,
                f"segment_{self.workload.unit}": self.segment_units,
                "segments_on_workers": self.progress.segments,
                f"in_process_{self.workload.unit}": self.progress.in_process,
            })
        else:
            data = {"mode": "in-process"}
        if self.segments_begun:  # a run that stayed in this process reads as before
            data.update(self.mode.to_json())
        if self.resumed_at is not None:
            data.update({"sessions": self.progress.sessions, f"resumed_at_{self.workload.unit}": self.resumed_at})
        return data
