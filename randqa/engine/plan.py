"""What one ``randqa test`` is asked to do, checked once: options in, a plan out.

``randqa test`` (the CLI) and ``randqa.test`` (the Python API) both build a
:class:`TestOptions`, call :func:`plan_test` and run the :class:`TestPlan`
it returns, so both refuse the same combinations with the same one-line
messages.  The messages name the CLI's options (``--low-bits``,
``--seed-sweep``), which the API's keywords mirror one for one.

The rules, in the order they are checked:

- every number in its range and every choice known (the messages are
  click's, as the CLI prints them for a bad option value);
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

import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable

from randqa.battery.suites import DEFAULT_SUITE, Suite, check_memory, load_suite
from randqa.engine.run import CHUNK_BYTES, UNTIL_END, run, run_progressive
from randqa.errors import SuiteError, UsageError
from randqa.files import check_output_paths
from randqa.folding import check_folding
from randqa.results import RunResult
from randqa.sizes import format_size
from randqa.sources import FORMATS, Source, backend_names, open_backend, open_source
from randqa.sources.folded import fold_source

if TYPE_CHECKING:
    from randqa.engine.checkpoint import RunSpec
    from randqa.engine.compare import CompareOptions
    from randqa.sources.multistream import StreamLayout

#: how much of an endless generator a test reads without -n
DEFAULT_GENERATOR_BYTES = 64 << 20
#: where a progressive test of a generator stops without --max
PROGRESSIVE_GENERATOR_MAX = 1 << 30
#: the first length of --progressive without --min
DEFAULT_PROGRESSIVE_MIN = 1 << 10
#: word sizes --word-bits folds
WORD_BITS = (8, 16, 32, 64)

#: option -> how click names it in messages (two spellings for short options)
_OPTION_LABEL = {"-n": "'-n' / '--bytes'", "-j": "'-j' / '--jobs'"}

ProgressCallback = Callable[[int], None]


@dataclass(frozen=True)
class TestOptions:
    """The options of ``randqa test``; sizes already parsed to whole numbers.

    ``size`` is ``-n`` (bits with ``fmt="bits"``), ``min_size``/``max_size``
    are ``--min``/``--max``, ``tests`` is ``--tests a,b``.
    """

    __test__ = False  # not a pytest test class

    size: int | None = None
    seed: int | None = None
    suite: str = DEFAULT_SUITE
    tests: str | None = None
    fmt: str = "bytes"
    word_bits: int | None = None
    low_bits: int | None = None
    sequences: int | None = None
    progressive: bool = False
    min_size: int = DEFAULT_PROGRESSIVE_MIN
    max_size: int | None = None
    keep_going: bool = False
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
        from randqa.sources.multistream import StreamLayout

        if self.streams is None:
            return None
        return StreamLayout(self.streams, self.stream_seeds or "", self.interleave)


def _label(option: str) -> str:
    return _OPTION_LABEL.get(option, f"'{option}'")


def check_range(value: int | None, option: str, low: int | None = None, high: int | None = None) -> None:
    """UsageError unless ``value`` (when given) lies in [low, high], worded as click words it."""
    if value is None:
        return
    if (low is not None and value < low) or (high is not None and value > high):
        if high is None:
            bounds = f"x>={low}"
        elif low is None:
            bounds = f"x<={high}"
        else:
            bounds = f"{low}<=x<={high}"
        raise UsageError(f"Invalid value for {_label(option)}: {value} is not in the range {bounds}.")


def check_choice(value: str | None, option: str, choices: tuple[str, ...]) -> None:
    """UsageError unless ``value`` (when given) is one of ``choices``, worded as click words it."""
    if value is not None and value not in choices:
        known = ", ".join(repr(c) for c in choices)
        raise UsageError(f"Invalid value for {_label(option)}: {value!r} is not one of {known}.")


# ---- memory: a run is refused before it starts when its suite would not fit

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
    and when the run of ``length`` bytes (None: unknown) may get a local
    cluster of ``jobs`` workers (randqa.engine.run_mode), the copies of the
    tests its processes hold."""
    from randqa.engine.run_mode import CLUSTER, may_use_cluster, processes_holding_tests

    buffers = CHUNK_BYTES * (2 if jobs > 1 else 1) + (17 * CHUNK_BYTES if fmt == "bits" else 4 << 20)
    here = check_memory(suite, limit, chunk_bytes=CHUNK_BYTES, other_bytes=buffers, jobs=jobs, lengths=lengths)
    if not may_use_cluster(length, jobs, suite):
        return here
    copy = check_memory(suite, 1 << 62, chunk_bytes=CHUNK_BYTES, other_bytes=CHUNK_BYTES, lengths=lengths)

    def on_cluster(workers: int) -> int:
        return here + (processes_holding_tests(CLUSTER, workers) - 1) * copy

    total = on_cluster(jobs)
    if total <= limit:
        return total
    fewer = next((k for k in range(jobs - 1, 1, -1) if on_cluster(k) <= limit), None)
    instead = f"--jobs {fewer} (or --jobs 1 to test in one process)" if fewer else "--jobs 1 to test in one process"
    raise SuiteError(f"suite file {suite.path}: the run on a cluster of {jobs} worker processes needs "
                     f"{format_size(total, approximate=True)} of memory (a copy of the tests in each), over "
                     f"--max-memory {format_size(limit, approximate=True)}; pass {instead}, or a larger --max-memory")


def progressive_lengths(first: int, last: int) -> int:
    """How many lengths a progressive run from ``first`` to ``last`` judges (doubling)."""
    return max(1, last // max(first, 1)).bit_length() + 1


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

    # ------------------------------------------------------------ sources

    def open(self, spec: str) -> Source:
        """Open '-' (stdin), a path or a generator name, folded as asked, or
        the interleaved streams of --streams."""
        layout = self.options.layout
        if layout is not None:
            from randqa.sources.multistream import open_streams

            return open_streams(spec, self.options.seed, layout)
        return self.fold(open_source(spec, fmt=self.options.fmt, seed=self.options.seed))

    def suite_for(self, source: Source) -> Suite:
        """The suite a run of ``source`` takes: the plan's, or for interleaved
        streams, with every stream alone and each pair's XOR too."""
        from randqa.sources.multistream import MultiStreamSource

        if isinstance(source, MultiStreamSource):
            return self.suite.with_streams(len(source.members), source.interleave)
        return self.suite

    def fold(self, source: Source) -> Source:
        """``source`` seen through --word-bits/--low-bits folding (itself without);
        closes ``source`` when the folding is refused."""
        o = self.options
        return fold_source(source, o.word_bits, o.low_bits or 1) if o.word_bits else source

    # ------------------------------------------------------------ lengths

    def limit(self, source: Source) -> int | None:
        """Units a plain run reads: -n, or 64 MiB of a generator, or (None) all of the data."""
        if self.options.size is None and source.endless:
            return DEFAULT_GENERATOR_BYTES
        return self.options.size

    def last_length(self, source: Source) -> int:
        """The last length of a progressive run: --max, -n, 1 GiB of a generator, or the data's end."""
        o = self.options
        return o.max_size or o.size or (PROGRESSIVE_GENERATOR_MAX if source.endless else UNTIL_END)

    def progress_total(self, source: Source) -> int | None:
        """Bytes a progress bar counts up to for ``source`` (None when unknown)."""
        if self.options.progressive:
            last = self.last_length(source)
            return last if last < UNTIL_END else None
        return self.limit(source) if source.unit_bits == 8 else None

    # ------------------------------------------------------------ running

    def run(self, source: Source, on_progress: ProgressCallback | None = None) -> RunResult:
        """Test ``source`` (already folded) in this process: progressively, or once."""
        o = self.options
        suite = self.suite_for(source)
        self.check_memory(source.endless, suite)
        if o.progressive:
            return run_progressive(source, suite, o.min_size, self.last_length(source), o.keep_going,
                                   jobs=o.jobs, on_progress=on_progress)
        return run(source, suite, limit=self.limit(source), jobs=o.jobs, on_progress=on_progress)

    @property
    def sweep_total(self) -> int:
        """Bytes a seed sweep reads (seeds x positions)."""
        return (self.options.seed_sweep or 0) * self.options.positions

    def check_sweep_source(self, spec: str) -> None:
        """A seed sweep re-seeds a named generator: refuse anything else
        (an unknown name first gets open_source's own message)."""
        from randqa.sources.base import UnseededSource

        if spec not in backend_names():
            with open_source(spec):
                pass
            raise UsageError("--seed-sweep needs a generator backend (randqa list), not stdin or a file")
        with open_backend(spec, self.options.seed or 0) as probe:
            if isinstance(probe, UnseededSource) or probe.describe().get("reproducible") is False:
                raise UsageError(f"--seed-sweep needs a generator that takes a seed; {spec} draws from the system "
                                 "and cannot be seeded")

    def run_spec(self, spec: str, segment: int | None = None) -> "RunSpec":
        """The run of source ``spec`` ('-', a path or a generator name) as data,
        for randqa.engine.launch (in this process or on workers) and checkpoints."""
        from randqa.engine.checkpoint import RunSpec, suite_to_json
        from randqa.engine.launch import identity_of
        from randqa.sources import is_data_spec

        o = self.options
        chosen, streams = self.suite, None
        if o.layout is not None:
            from randqa.sources.multistream import open_streams

            probe = open_streams(spec, o.seed, o.layout)  # the scheme checked, the interleave resolved
            with probe:
                chosen, streams = self.suite_for(probe), probe.layout.to_json()
        suite = suite_to_json(chosen)
        if o.seed_sweep is not None:
            self.check_sweep_source(spec)
            return RunSpec(kind="seed-sweep", source=spec, suite=suite, seed=o.seed or 0, segment=segment,
                           seed_sweep={"seeds": o.seed_sweep, "positions": o.positions, "base_seed": o.seed or 0})
        endless = not is_data_spec(spec)
        limit, progression = o.size, None
        if o.progressive:
            # stdin and files: until the data ends
            last = o.max_size or o.size or (PROGRESSIVE_GENERATOR_MAX if endless else UNTIL_END)
            if o.min_size > last:
                raise UsageError(f"--min ({o.min_size}) is larger than --max ({last})")
            progression = {"min_bytes": o.min_size, "max_bytes": last, "keep_going": o.keep_going}
            limit = None
        elif limit is None and endless:
            limit = DEFAULT_GENERATOR_BYTES
        self.check_memory(endless, chosen, spec=spec)
        return RunSpec(kind="test", source=spec, suite=suite, seed=o.seed, fmt=o.fmt,
                       fold=[o.word_bits, o.low_bits or 1] if o.word_bits else None, limit=limit,
                       progressive=progression, segment=segment, identity=identity_of(spec), streams=streams)

    @property
    def max_memory(self) -> int:
        return default_max_memory() if self.options.max_memory is None else self.options.max_memory

    def check_memory(self, endless: bool, suite: Suite | None = None, *, spec: str | None = None) -> None:
        """Refuse the run before it starts when the suite (the plan's unless
        given), its buffers and the results a progressive run keeps per
        length would pass --max-memory; for a run of source ``spec`` that may
        go to a cluster, with the copies its workers hold (None: a run in
        this process only)."""
        o = self.options
        suite = suite or self.suite
        if o.progressive:
            last = o.max_size or o.size or (PROGRESSIVE_GENERATOR_MAX if endless else UNTIL_END)
            length = None if last >= UNTIL_END else last
        else:
            length = o.size or (DEFAULT_GENERATOR_BYTES if endless else None)
        if length is not None and o.fmt == "bits":
            length //= 8
        if spec is None:
            length = 0  # this process only: no cluster
        elif not endless and spec != "-" and os.path.isfile(spec):
            size = os.path.getsize(spec) // (8 if o.fmt == "bits" else 1)  # a file's run ends at its size
            length = size if length is None else min(length, size)
        lengths = progressive_lengths(o.min_size, last) if o.progressive else 1
        check_run_memory(suite, self.max_memory, jobs=o.jobs, fmt="bytes" if o.progressive else o.fmt, lengths=lengths,
                         length=length)

    def sweep(self, name: str, open_seeded: Callable[[int], Source] | None = None,
              on_progress: ProgressCallback | None = None) -> RunResult:
        """Seed-sweep generator ``name``; ``open_seeded(seed)`` opens one
        seeded stream (by default the backend ``name``)."""
        from randqa.engine.seed_sweep import run_seed_sweep

        o = self.options
        if open_seeded is None:
            self.check_sweep_source(name)

            def open_seeded(seed: int) -> Source:
                return open_backend(name, seed)

        return run_seed_sweep(name, open_seeded, o.seed_sweep or 0, positions=o.positions, base_seed=o.seed or 0,
                              thresholds=self.suite.thresholds, on_progress=on_progress)


def check_option_values(options: TestOptions) -> None:
    """The ranges and choices the CLI's option types enforce."""
    o = options
    check_size(o.size, "-n")
    check_size(o.min_size, "--min")
    check_size(o.max_size, "--max")
    check_range(o.seed, "--seed", 0)
    check_choice(o.fmt, "--format", FORMATS)
    check_choice(None if o.word_bits is None else str(o.word_bits), "--word-bits", tuple(map(str, WORD_BITS)))
    check_range(o.low_bits, "--low-bits", 1, 63)
    check_range(o.sequences, "--sequences", 1)
    check_range(o.seed_sweep, "--seed-sweep", 2)
    check_range(o.positions, "--positions", 1, 4096)
    check_range(o.jobs, "-j", 1, 256)
    check_stream_values(o.streams, o.interleave)


def check_stream_values(streams: int | None, interleave: int | None) -> None:
    """The ranges of --streams and --interleave."""
    from randqa.interleaving import MAX_INTERLEAVE, MAX_STREAMS

    check_range(streams, "--streams", 2, MAX_STREAMS)
    check_range(interleave, "--interleave", 1, MAX_INTERLEAVE)


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
        last = o.max_size or size
        if last is not None and o.min_size > last:
            raise UsageError(f"--min ({o.min_size}) is larger than --max ({last})")
    low_bits = (o.low_bits or 1) if o.word_bits else None
    return TestPlan(chosen, replace(o, size=size, low_bits=low_bits))


def check_compare_values(*, size: int | None = None, min_size: int | None = None, max_size: int | None = None,
                         seed: int | None = None, speed_repeats: int | None = None, jobs: int = 1) -> None:
    """The ranges the options of ``randqa compare`` enforce (checked before anything else, as click does)."""
    check_size(size, "-n")
    check_size(min_size, "--min")
    check_size(max_size, "--max")
    check_range(seed, "--seed", 0)
    check_range(speed_repeats, "--speed-repeats", 1)
    check_range(jobs, "-j", 1, 256)


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
    from randqa.engine.compare import DEFAULT_PROGRESSIVE_MIN as COMPARE_MIN
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
                             min_bytes=min_size or COMPARE_MIN, max_bytes=max_size, keep_going=keep_going,
                             speed_repeats=SPEED_REPEATS if speed_repeats is None else speed_repeats, jobs=jobs,
                             predict=predict, segment=segment, checkpoint=checkpoint, streams=streams,
                             stream_seeds=list(stream_seeds), interleave=interleave)
    if checkpoint_every_s is not None:
        options.checkpoint_every_s = checkpoint_every_s
    last = max_size or size
    if progressive and last and options.min_bytes > last:
        raise UsageError(f"--min ({options.min_bytes}) is larger than the last length ({last})")
    lengths = progressive_lengths(options.min_bytes, last or UNTIL_END) if progressive else 1
    if streams is not None:  # the largest interleave a generator can have by default: 8 bytes
        chosen = chosen.with_streams(streams, interleave or 8)
    check_run_memory(chosen, limit, jobs=jobs, lengths=lengths, length=last)
    return options
