"""What a comparison learns of each source apart from its test: checked
before any work, its generation speed, from how many bytes a predictor
predicts it, and a runtime backend's runtime facts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from randqa.errors import RandqaError, UsageError
from randqa.run_result import Predictability
from randqa.sources import Source, open_source, read_full
from randqa.speed.as_called import AsCalledSpeed, as_called_speed
from randqa.speed.generation import REPEATS as SPEED_REPEATS

if TYPE_CHECKING:  # loaded when a comparison runs, not with every CLI command
    from randqa.sources.multistream import StreamLayout

#: bytes of each runtime backend compared with its runtime's own stream (NAME-live)
LIVE_CHECK_BYTES = 1 << 20


def _open(spec: str, seed: int | None) -> Source:
    """open_source, with --seed going to generators only: a comparison may
    mix seeded generators with files and stdin."""
    return open_source(spec, seed=seed, generators_only=True)


def check_sources(specs: list[str], seed: int | None, layouts: list[StreamLayout | None] | None = None) -> None:
    """Refuse unknown names, a repeated stdin, unreadable files and stream
    schemes a generator cannot do before any work starts: a source that
    fails after an hour of others costs that hour."""
    if specs.count("-") > 1:
        raise UsageError("stdin ('-') can be compared only once")
    streamed = [layout for layout in layouts or [] if layout is not None]
    if streamed:
        for spec in specs:
            for layout in streamed:
                open_source(spec, seed=seed, layout=layout).close()
        return
    for spec in specs:
        if spec != "-":
            with _open(spec, seed) as source:
                if not source.endless:
                    # a file that opens may still not read (/proc/self/mem, a
                    # directory, a broken disk): read its first byte now
                    read_full(source, memoryview(bytearray(1)))


def measure_speed(spec: str, seed: int | None, repeats: int = SPEED_REPEATS) -> AsCalledSpeed | None:
    """A generator's median MB/s as applications call it, and the rate
    randqa's own source feeds the tests (randqa.speed.as_called).

    Only endless sources (generators) have a generation speed: a file's read
    rate is the disk's, and stdin cannot be read twice; those give None.
    """
    if spec == "-":
        return None
    with _open(spec, seed) as probe_source:
        if not probe_source.endless:
            return None
    return as_called_speed(spec, None, repeats, seed)


def predictability(spec: str, seed: int | None) -> Predictability | None:
    """The fewest observed bytes from which some predictor predicted the
    continuation exactly (randqa.predict), on a fresh copy of the stream
    that was tested (same seed); None for stdin, which cannot be read again."""
    from randqa.predict import predict

    if spec == "-":
        return None
    with _open(spec, seed) as source:
        report = predict(source)
    best = report.predictable_from_bytes
    names = [r.name for r in report.predictors if r.succeeded and r.observed_bytes == best]
    return Predictability(predictable_from_bytes=best, predictor=names[0] if names else None,
                          predict_bytes_read=report.bytes_read)


def runtime_facts(spec: str, seed: int | None) -> dict[str, Any] | None:
    """For a runtime backend: its runtime, whether it is installed, its
    version, and whether the runtime itself (NAME-live) writes the first
    LIVE_CHECK_BYTES of the tested stream for the same seed; None for
    other sources."""
    from randqa.sources.runtimes import LIVE_SUFFIX, driver_for, find_runtime_backend

    if find_runtime_backend(spec) is None:
        return None
    driver = driver_for(spec)
    facts: dict[str, Any] = {"name": driver.name, "installed": driver.available()}
    if not facts["installed"]:
        return facts
    facts["version"] = driver.version()
    if spec.endswith(LIVE_SUFFIX) or seed is None:
        return facts
    streams = []
    for name in (spec, spec + LIVE_SUFFIX):
        buffer = bytearray(LIVE_CHECK_BYTES)
        try:
            with _open(name, seed) as source:
                streams.append(bytes(buffer[:read_full(source, memoryview(buffer))]))
        except RandqaError as exc:  # the runtime failed: the tested bytes stand, unconfirmed
            facts["live_error"] = str(exc)
            return facts
    facts["live_checked_bytes"] = min(len(s) for s in streams)
    facts["live_equal"] = streams[0] == streams[1]
    if not facts["live_equal"]:
        facts["first_difference"] = next(k for k, (a, b) in enumerate(zip(*streams)) if a != b)
    return facts
