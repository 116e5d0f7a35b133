"""A stream through a suite, as a RunResult: ``run_stream`` (the run loop
of randqa.engine.loop over a stream's workload), and its two in-process
forms ``run`` and ``run_progressive``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from randqa.battery.suites import Suite
from randqa.engine.feeding import CHUNK_BYTES
from randqa.engine.lengths import UNTIL_END, Plan, doubling_lengths
from randqa.engine.loop import RunLoop
from randqa.engine.records import CheckpointRecord, Saver
from randqa.engine.segment_policy import segment_size
from randqa.engine.workloads import StreamWorkload
from randqa.run_result import Progression, RunResult
from randqa.sources import Source


@dataclass
class Progressive:
    """--progressive: judge at min, 2 min, ... max; stop at the first failure unless keep_going."""

    min_bytes: int
    max_bytes: int
    keep_going: bool = False


def run_stream(source: Source, suite: Suite, *, limit: int | None = None, progressive: Progressive | None = None,
               spec: str | None = None, fold: tuple[int, int] | None = None, segment: int | None = None,
               workers: Any = None, threads: int = 1, saver: Saver | None = None,
               resume: tuple[CheckpointRecord, list[dict[str, Any]]] | None = None,
               on_progress: Callable[[int], None] | None = None, chunk_bytes: int = CHUNK_BYTES) -> RunResult:
    """Test ``source`` with ``suite``: ``limit`` units (bits for bit text;
    None: to the end of the data), or progressively.  With ``spec`` (what the
    user named: a file, a generator) workers may open the source themselves;
    ``workers`` (randqa.engine.parallel.Workers) takes the segments when it
    is wanted and the run is long enough."""
    bit_text = source.unit_bits == 1
    if progressive is not None:
        lengths = doubling_lengths(progressive.min_bytes, progressive.max_bytes)
        last = None if progressive.max_bytes >= UNTIL_END else progressive.max_bytes
        plan = Plan(limit=last, progressive=True, lengths=lengths if last is not None else
                    tuple(n for n in lengths if n < UNTIL_END), keep_going=progressive.keep_going)
    else:
        plan = Plan(limit=None if limit is None else limit // 8 if bit_text else limit)
    workload = StreamWorkload(source, suite, spec=spec, fold=fold, limit_bits=limit if bit_text else None,
                              chunk_bytes=chunk_bytes)
    if segment is not None:
        segment = segment_size(workload.alignment, segment)
    loop = RunLoop(workload, plan, segment=segment, workers=workers, threads=threads, saver=saver, resume=resume,
                   on_progress=on_progress)
    outcome = loop.run()
    progress = outcome.progress
    bits = 8 * progress.position + progress.tail_bits
    if progressive is not None:
        requested = plan.limit
        ended_early = progress.ended and requested is not None and not outcome.interrupted
    else:
        requested = limit
        units = bits if bit_text else progress.position
        ended_early = limit is not None and units < limit and not outcome.interrupted
    result = RunResult(
        source=source.describe(),
        suite=suite.name,
        results=outcome.results,
        bytes_tested=progress.position,
        bits_tested=bits,
        elapsed_s=outcome.elapsed_s,
        requested=requested,
        unit="bits" if bit_text else "bytes",
        input_ended_early=ended_early,
        interrupted=outcome.interrupted,
        thresholds=suite.thresholds,
    )
    if progressive is not None:
        result.progression = Progression(progressive.min_bytes, progressive.max_bytes, progressive.keep_going,
                                         outcome.lengths, progress.first_failure)
    result.execution = outcome.execution
    return result


def run(
    source: Source,
    suite: Suite,
    *,
    limit: int | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    jobs: int = 1,
    on_progress: Callable[[int], None] | None = None,
) -> RunResult:
    """Feed the source through fresh accumulators of the suite and judge the
    results, in this process (``jobs`` threads; ``run_stream`` is
    the segment-parallel run this is one case of)."""
    return run_stream(source, suite, limit=limit, threads=jobs, chunk_bytes=chunk_bytes, on_progress=on_progress)


def run_progressive(
    source: Source,
    suite: Suite,
    min_bytes: int,
    max_bytes: int,
    keep_going: bool = False,
    *,
    jobs: int = 1,
    on_progress: Callable[[int], None] | None = None,
) -> RunResult:
    """Test prefixes of doubling length, min_bytes, 2 min_bytes, ... max_bytes.

    One set of accumulators reads the stream once; after each length its
    results so far are judged and recorded.  The run stops at the first
    ``fail`` unless ``keep_going``; ``first_failure_bytes`` then states the
    generator's quality as one number ("fails at 2^k bytes").
    """
    return run_stream(source, suite, progressive=Progressive(min_bytes, max_bytes, keep_going), threads=jobs,
                      on_progress=on_progress)
