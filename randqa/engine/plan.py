"""What one ``randqa test`` is asked to do, checked once: options in, a plan out.

``randqa test`` (the CLI) and ``randqa.test`` (the Python API) both build a
:class:`TestOptions`, call :func:`plan_test` and run the :class:`TestPlan`
it returns, so both refuse the same combinations with the same one-line
messages.  The messages name the CLI's options (``--low-bits``,
``--seed-sweep``), which the API's keywords mirror one for one.

The rules, in the order they are checked:

- every number in its range and every choice known (randqa.engine.options:
  click's types and lines, as the CLI's);
- ``--low-bits`` needs ``--word-bits`` (and defaults to 1 with it);
- ``--sequences K`` needs a suite that tests sequences, replaces ``-n``
  (K sequences of the suite's length, counted in bits for ``--format bits``);
- ``--progressive`` reads bytes, not bit text;
- ``--seed-sweep`` takes no ``--progressive``, ``-n``, ``--word-bits`` or
  ``--format``, and needs a generator that can be seeded;
- ``--word-bits`` folds bytes, not bit text;
- ``--stream-seeds`` and ``--interleave`` need ``--streams``, which needs
  ``--stream-seeds`` and takes no ``--seed-sweep``, ``--word-bits``,
  ``--format bits`` or ``--sequences`` (a file or stdin is refused when the
  source is opened).

Defaults that depend on the source: a generator (an endless source) gives
64 MiB, or 1 GiB as the last length of ``--progressive``; a file or stdin is
read to its end.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from randqa.battery.suites import DEFAULT_SUITE, Suite, load_suite
from randqa.engine.lengths import check_first_length, last_length, progressive_lengths
from randqa.engine.memory import check_request_memory, check_run_memory, default_max_memory
from randqa.engine.options import check_value
from randqa.engine.read_options import DEFAULT_PROGRESSIVE_MIN, ReadOptions
from randqa.engine.records import DEFAULT_CHECKPOINT_EVERY_S
from randqa.engine.request import RunRequest, stream_request, suite_to_json
from randqa.errors import UsageError
from randqa.files import check_output_paths
from randqa.folding import check_folding
from randqa.sources import Source, is_data_spec, open_source

if TYPE_CHECKING:
    from randqa.engine.compare import CompareOptions
    from randqa.interleaving import StreamLayout

#: how much of an endless generator a test reads without -n
DEFAULT_GENERATOR_BYTES = 64 << 20
#: where a progressive test of a generator stops without --max
PROGRESSIVE_GENERATOR_MAX = 1 << 30


@dataclass(frozen=True)
class TestOptions(ReadOptions):
    """The options of ``randqa test``; sizes already parsed to whole numbers.

    ``size`` is ``-n`` (bits with ``fmt="bits"``), ``min_size``/``max_size``
    are ``--min``/``--max``, ``tests`` is ``--tests a,b``.
    """

    __test__ = False  # not a pytest test class

    suite: str = DEFAULT_SUITE
    tests: str | None = None
    fmt: str = "bytes"
    word_bits: int | None = None
    low_bits: int | None = None
    sequences: int | None = None
    seed_sweep: int | None = None
    positions: int = 256
    jobs: int = 1
    #: --max-memory in bytes; None: half of physical memory
    max_memory: int | None = None
    #: --streams K, --stream-seeds SCHEME, --interleave BYTES (randqa/sources/multistream.py)
    streams: int | None = None
    stream_seeds: str | None = None
    interleave: int | None = None

    @property
    def layout(self) -> "StreamLayout | None":
        """The --streams layout, or None without --streams."""
        from randqa.interleaving import StreamLayout

        if self.streams is None:
            return None
        return StreamLayout(self.streams, self.stream_seeds or "", self.interleave)


def check_size(value: int | None, option: str) -> None:
    """A size must be a positive whole number (parse_size's wording for the CLI's strings)."""
    if value is not None and value <= 0:
        raise UsageError(f"invalid size {str(value)!r}: must be greater than zero")


@dataclass(frozen=True)
class TestPlan:
    """A checked test: the loaded suite and the options with their defaults
    filled in (``low_bits`` 1 with ``word_bits``; ``size`` from ``sequences``)."""

    __test__ = False  # not a pytest test class

    suite: Suite
    options: TestOptions

    def check_sweep_source(self, spec: str) -> None:
        """A seed sweep re-seeds a generator (a backend, with its :PARAM or
        not, or the user's own ``module:attr``): refuse data, stdin or a
        file (a missing one first gets open_source's own message), and a
        generator that takes no seed."""
        if is_data_spec(spec):
            with open_source(spec):
                pass
            raise UsageError("--seed-sweep needs a generator backend (randqa list), not stdin or a file")
        with open_source(spec, seed=self.options.seed or 0) as probe:
            if not probe.reproducible:
                raise UsageError(f"--seed-sweep needs a generator that takes a seed; {spec} draws from the system "
                                 "and cannot be seeded")

    def request(self, spec: str, segment: int | None = None, opened: Source | None = None,
                check_sweep: bool = True) -> RunRequest:
        """The run of source ``spec`` ('-', a path or a generator name; or
        the label of ``opened``, a source the caller opened) as a request for
        randqa.engine.execute, its memory checked.  A seed sweep's generator
        is checked unless ``check_sweep`` is False (the caller opens its streams)."""
        o = self.options
        if o.seed_sweep is not None:
            if check_sweep:
                self.check_sweep_source(spec)
            return RunRequest(kind="seed-sweep", source=spec, suite=suite_to_json(self.suite), seed=o.seed or 0,
                              segment=segment, seed_sweep={"seeds": o.seed_sweep, "positions": o.positions,
                                                           "base_seed": o.seed or 0})
        request, suite = stream_request(
            spec, self.suite, seed=o.seed, fmt=o.fmt, fold=(o.word_bits, o.low_bits or 1) if o.word_bits else None,
            size=o.size, endless_size=DEFAULT_GENERATOR_BYTES,
            progressive=(o.min_size, o.max_size, o.keep_going) if o.progressive else None,
            endless_last=PROGRESSIVE_GENERATOR_MAX, segment=segment, layout=o.layout, opened=opened)
        check_request_memory(request, suite, self.max_memory, o.jobs, in_process=opened is not None)
        return request

    @property
    def max_memory(self) -> int:
        return default_max_memory() if self.options.max_memory is None else self.options.max_memory


def check_option_values(options: TestOptions) -> None:
    """The ranges and choices the CLI's option types enforce."""
    o = options
    check_size(o.size, "-n")
    check_size(o.min_size, "--min")
    check_size(o.max_size, "--max")
    for name, value in (("seed", o.seed), ("format", o.fmt), ("word_bits", o.word_bits), ("low_bits", o.low_bits),
                        ("sequences", o.sequences), ("seed_sweep", o.seed_sweep), ("positions", o.positions),
                        ("jobs", o.jobs)):
        check_value(name, value)
    check_stream_values(o.streams, o.interleave)


def check_stream_values(streams: int | None, interleave: int | None) -> None:
    """The ranges of --streams and --interleave."""
    check_value("streams", streams)
    check_value("interleave", interleave)


def check_stream_options(streams: int | None, stream_seeds: str | None, interleave: int | None) -> None:
    """--streams needs --stream-seeds (a known scheme), and they and --interleave go together."""
    from randqa.sources.multistream import SCHEMES, check_scheme

    if streams is None:
        if stream_seeds is not None or interleave is not None:
            raise UsageError("--stream-seeds and --interleave need --streams K")
        return
    if stream_seeds is None:
        raise UsageError(f"--streams needs --stream-seeds SCHEME ({', '.join(SCHEMES)})")
    check_scheme(stream_seeds)


def plan_test(options: TestOptions, outputs: dict[str, str | None] | None = None,
              inputs: tuple[str, ...] = ()) -> TestPlan:
    """Check ``options`` as ``randqa test`` does and load the suite; UsageError
    (or SuiteError for a malformed suite file) with one line otherwise.
    ``outputs`` (option -> path) are checked after the option values, before
    anything is loaded (randqa.files.check_output_paths; ``inputs`` may not
    be overwritten)."""
    check_option_values(options)
    check_output_paths(outputs or {}, inputs)
    o = options
    chosen = load_suite(o.suite, tests=o.tests, max_memory=default_max_memory() if o.max_memory is None else o.max_memory)
    if o.low_bits is not None and not o.word_bits:
        raise UsageError("--low-bits needs --word-bits")
    size = o.size
    if o.sequences is not None:
        if chosen.sequence_bytes is None:
            raise UsageError(f"--sequences needs a suite that tests sequences; {chosen.name!r} does not")
        if size is not None:
            raise UsageError("give either --sequences or -n/--bytes, not both")
        size = o.sequences * chosen.sequence_bytes * (8 if o.fmt == "bits" else 1)  # -n counts bits of bit text
    if o.progressive and o.fmt != "bytes":
        raise UsageError("--progressive reads bytes; it does not take --format bits")
    if o.seed_sweep is not None:
        if o.progressive or size is not None or o.word_bits or o.fmt != "bytes":
            raise UsageError("--seed-sweep reads --positions bytes of each seeded stream: "
                             "it takes no --progressive, -n, --word-bits or --format")
    elif o.word_bits and o.fmt != "bytes":
        raise UsageError("--word-bits folds bytes; it does not take --format bits")
    check_stream_options(o.streams, o.stream_seeds, o.interleave)
    if o.streams is not None and (o.seed_sweep is not None or o.word_bits or o.fmt != "bytes" or o.sequences):
        raise UsageError("--streams interleaves generators' streams: it takes no --seed-sweep, --word-bits, "
                         "--format or --sequences (fold with a suite's fold_word_bits entries)")
    if o.word_bits:
        try:
            check_folding(o.word_bits, o.low_bits or 1)
        except ValueError as exc:
            raise UsageError(f"--low-bits: {exc}") from None
    if o.progressive:
        check_first_length(o.min_size, o.max_size or size)
    low_bits = (o.low_bits or 1) if o.word_bits else None
    return TestPlan(chosen, replace(o, size=size, low_bits=low_bits))


def check_compare_values(*, size: int | None = None, min_size: int | None = None, max_size: int | None = None,
                         seed: int | None = None, speed_repeats: int | None = None, jobs: int = 1) -> None:
    """The ranges the options of ``randqa compare`` enforce (checked before anything else, as click does)."""
    check_size(size, "-n")
    check_size(min_size, "--min")
    check_size(max_size, "--max")
    check_value("seed", seed)
    check_value("speed_repeats", speed_repeats)
    check_value("jobs", jobs)


def plan_compare(*, suite: str = DEFAULT_SUITE, tests: str | None = None, size: int | None = None,
                 seed: int | None = None, progressive: bool = True, min_size: int | None = None,
                 max_size: int | None = None, keep_going: bool = False, speed_repeats: int | None = None,
                 jobs: int = 1, predict: bool = True, max_memory: int | None = None, segment: int | None = None,
                 checkpoint: str | None = None, checkpoint_every_s: float | None = None,
                 outputs: dict[str, str | None] | None = None, inputs: tuple[str, ...] = (),
                 streams: int | None = None, stream_seeds: tuple[str, ...] = (),
                 interleave: int | None = None) -> "CompareOptions":
    """Check the options of ``randqa compare`` as the CLI does and load the
    suite; UsageError with one line otherwise.  ``outputs`` (option -> path)
    are checked between the combination rules and the suite.  With
    ``streams``, every generator's streams are compared under each scheme of
    ``stream_seeds``."""
    from randqa.engine.compare import CompareOptions
    from randqa.speed.generation import REPEATS as SPEED_REPEATS

    check_compare_values(size=size, min_size=min_size, max_size=max_size, seed=seed, speed_repeats=speed_repeats,
                         jobs=jobs)
    check_stream_values(streams, interleave)
    if not progressive and (min_size or max_size or keep_going):
        raise UsageError("--min, --max and --keep-going apply only with --progressive")
    for scheme in stream_seeds or (None,):
        check_stream_options(streams, scheme, interleave)
    if len(set(stream_seeds)) < len(stream_seeds):
        raise UsageError("--stream-seeds: each scheme once")
    check_output_paths(outputs or {}, inputs)
    limit = default_max_memory() if max_memory is None else max_memory
    chosen = load_suite(suite, tests=tests, max_memory=limit)
    options = CompareOptions(suite=chosen, size=size, seed=seed, progressive=progressive,
                             min_size=min_size or DEFAULT_PROGRESSIVE_MIN, max_size=max_size, keep_going=keep_going,
                             speed_repeats=SPEED_REPEATS if speed_repeats is None else speed_repeats, jobs=jobs,
                             predict=predict, segment=segment, checkpoint=checkpoint, streams=streams,
                             stream_seeds=list(stream_seeds), interleave=interleave,
                             checkpoint_every_s=DEFAULT_CHECKPOINT_EVERY_S if checkpoint_every_s is None
                             else checkpoint_every_s)
    last = max_size or size
    if progressive:
        check_first_length(options.min_size, last, "the last length")
    lengths = progressive_lengths(options.min_size, last_length(max_size, size)) if progressive else 1
    if streams is not None:  # the largest interleave a generator can have by default: 8 bytes
        chosen = chosen.with_streams(streams, interleave or 8)
    check_run_memory(chosen, limit, jobs=jobs, lengths=lengths, length=last)
    return options
