""":func:`test` and :func:`compare`: a source, or several, run through
randqa.engine.execute with the CLI's options as keywords."""

from __future__ import annotations

import builtins
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ContextManager

from randqa.api._arguments import (
    PathLike, Size, _call_text, _environment, _flag, _path, _progress_bar, _python_errors, _size, _test_names, _text,
    _threads, _whole, _write_outputs,
)
from randqa.api.documents import Comparison, Result
from randqa.engine.options import api_defaults
from randqa.errors import UsageError
from randqa.run_result import Provenance, RunResult

if TYPE_CHECKING:
    from randqa.engine.plan import TestPlan
    from randqa.sources.base import Source


# ---------------------------------------------------------------- randqa.test

#: the keywords of :func:`test` (``jobs`` aside: the deprecated name of ``threads``) and their defaults
_TEST_DEFAULTS: dict[str, Any] = api_defaults(
    "n", "seed", "suite", "tests", "format", "word_bits", "low_bits", "sequences", "progressive", "min", "max",
    "keep_going", "seed_sweep", "positions", "json", "html", "threads", "progress", "name", "streams",
    "stream_seeds", "interleave")


def test(source: object, n: Size | None = None, *, seed: int | None = None, suite: str = "standard",
         tests: str | Sequence[str] | None = None, format: str = "bytes", word_bits: int | None = None,
         low_bits: int | None = None, sequences: int | None = None, progressive: bool = False,
         min: Size | None = None, max: Size | None = None, keep_going: bool = False,
         seed_sweep: int | None = None, positions: int = 256, json: PathLike | None = None,
         html: PathLike | None = None, threads: int = 1, progress: bool = False, name: str | None = None,
         streams: int | None = None, stream_seeds: str | None = None, interleave: Size | None = None,
         jobs: int | None = None) -> Result:
    """Test a source of random bytes with a suite, as ``randqa test`` does.

    Parameters
    ----------
    source : str, os.PathLike, BitGenerator, bytes-like, file object, iterable or callable
        What to test:

        - a generator name (``"pcg64"``, see ``randqa list``), ``"-"`` for
          stdin, a path, or your own generator as ``randqa test`` names it,
          ``"./mygen.py:NAME"`` or ``"mygen:NAME"`` (the object it names is
          read as if given here, except that an instance is read from a copy);
        - a class constructed with ``seed``: a numpy ``BitGenerator`` class,
          a class whose instances have ``random_raw``, or a function
          ``make(seed)`` (first parameter named ``seed``) returning one;
        - a numpy ``BitGenerator`` instance (or any object with
          ``random_raw``), tested from its current state (and advanced by
          what is read), or a ``numpy.random.Generator``, whose bit
          generator is tested;
        - ``bytes``, ``bytearray``, ``memoryview`` or a ``uint8`` ndarray;
        - a binary file object (read to its end, not closed);
        - an iterable of byte chunks (bytes-like or uint8 arrays);
        - a callable ``f(k)`` returning up to ``k`` bytes (``os.urandom``),
          which is read like a generator;
        - a list of two or more BitGenerator instances: streams, tested
          interleaved every ``interleave`` bytes (default: their word size),
          each alone and each pair's XOR, as ``streams`` does.
    n : int or str, optional
        How much to test (``-n``): a whole number or a string with a binary
        suffix (``"64K"``, ``"16M"``, ``"2G"``); bits with ``format="bits"``.
        Default: all of the data, 64 MiB of a generator.
    seed : int, optional
        Seed of a generator name or BitGenerator class (default: drawn from
        the OS and recorded in the result).
    suite : str, default "standard"
        Suite name (``"quick"``, ``"standard"``, ``"nist-sp800-22"``,
        ``"rc4"``) or path of a suite TOML file.
    tests : str or list of str, optional
        Run only these tests of the suite (``"chi_square,runs"`` or a list).
    format : {"bytes", "bits"}, default "bytes"
        ``"bits"`` reads ASCII '0'/'1' text, as NIST STS does (data sources only).
    word_bits, low_bits : int, optional
        Fold: every test reads only the ``low_bits`` low bits (default 1) of
        each ``word_bits``-bit word (8, 16, 32 or 64).
    sequences : int, optional
        For suites that test sequences (``nist-sp800-22``): test this many
        sequences with STS's second-level analysis (instead of ``n``).
    progressive : bool, default False
        Test doubling lengths from ``min`` to ``max``; stop at the first failure.
    min, max : int or str, optional
        First (default 1 KiB) and last length of ``progressive`` (default:
        ``n``; else 1 GiB of a generator, or all of the data).
    keep_going : bool, default False
        With ``progressive``, go on to ``max`` after a failure.
    seed_sweep : int, optional
        Test the starts of this many streams seeded ``seed``, ``seed + 1``, ...
        (generator names and BitGenerator classes only).
    positions : int, default 256
        Bytes read from the start of each stream by ``seed_sweep``.
    json, html : str or os.PathLike, optional
        Also write the JSON document or the HTML report there (``json="-"``: stdout).
    threads : int, default 1
        Threads in this process that test side by side: a long run's
        segments (each with its own copy of the tests), a short run's tests
        (results are identical).
    progress : bool, default False
        Show a progress bar on stderr.
    name : str, optional
        The source's name in reports (default: the generator's name, the
        path, or the Python type).
    streams : int, optional
        Test this many streams of a generator name (``--streams``): their
        interleaved stream, each stream alone and each pair's XOR.
    stream_seeds : str, optional
        How the streams are seeded (``--stream-seeds``): ``"consecutive"``,
        ``"spaced:D"``, ``"bitflip"``, ``"jump"``, ``"spawn"`` or
        ``"module:attr"`` naming ``f(seed, k)`` that returns the K BitGenerators.
    interleave : int or str, optional
        Bytes of one stream before the next's (default: the generator's word size).
    jobs : int, optional
        Deprecated name of ``threads`` (a DeprecationWarning): ``randqa
        test --jobs`` counts worker processes, not threads.

    Returns
    -------
    Result
        Verdict, per-test results, lengths and the JSON document.

    Raises
    ------
    TypeError
        A source of no accepted kind, or an option of the wrong type
        (``n=1.5``, ``seed="7"``).
    ValueError
        Anything ``randqa test`` refuses, with the line it prints: an unknown
        generator or suite, a bad size, an impossible combination of options,
        an empty input, a missing output folder.

    Examples
    --------
    >>> import numpy as np
    >>> import randqa
    >>> r = randqa.test(np.random.PCG64(7), "1M", suite="quick")
    >>> r.verdict, r.name, r.seed
    (<Verdict.PASS: 'pass'>, 'pcg64', 7)
    >>> print(round(r["birthday_spacings"].pvalue, 4))
    0.2197
    >>> randqa.test(b"\\x00" * 4096, suite="quick").verdict
    <Verdict.FAIL: 'fail'>
    >>> randqa.test("lfsr113", seed=1, progressive=True, max="64K").first_failure_bytes  # below 1e-6 at 1 KiB, again on the next
    2048
    >>> r = randqa.test([np.random.PCG64(1), np.random.PCG64(1)], "256K", suite="quick")
    >>> r.name, r["frequency[streams 0 xor 1]"].verdict
    ('pcg64[2 streams, given]', <Verdict.FAIL: 'fail'>)
    >>> randqa.test("pcg64", "1Q")
    Traceback (most recent call last):
    ...
    ValueError: -n/--bytes: invalid size '1Q': use a whole number with an optional K, M, G or T suffix (binary, e.g. 64K, 16MiB, 2G)
    """
    from randqa.engine.plan import TestOptions, plan_test
    from randqa.engine.read_options import DEFAULT_PROGRESSIVE_MIN

    arguments = locals()
    threads_given, threads_value = _threads(threads, jobs, "test", _TEST_DEFAULTS["threads"])
    call = {**{keyword: arguments[keyword] for keyword in _TEST_DEFAULTS}, "threads": threads_given}
    given = _bitgenerator_list(source)
    if given and (streams is not None or stream_seeds is not None):
        raise ValueError("a list of BitGenerators is its own streams: give no streams or stream_seeds")
    options = TestOptions(
        size=_size(n, "n"), seed=_whole(seed, "seed"), suite=_text(suite, "suite"), tests=_test_names(tests),
        fmt=_text(format, "format"), word_bits=_whole(word_bits, "word_bits"), low_bits=_whole(low_bits, "low_bits"),
        sequences=_whole(sequences, "sequences"), progressive=_flag(progressive, "progressive"),
        min_size=_size(min, "min") or DEFAULT_PROGRESSIVE_MIN, max_size=_size(max, "max"), keep_going=_flag(keep_going, "keep_going"),
        seed_sweep=_whole(seed_sweep, "seed_sweep"), positions=_whole(positions, "positions") or 0,
        jobs=threads_value or 0, streams=_whole(streams, "streams"),
        stream_seeds=None if stream_seeds is None else _text(stream_seeds, "stream_seeds"),
        interleave=None if given else _size(interleave, "interleave"))
    json_path, html_path = _path(json, "json"), _path(html, "html")
    show = _flag(progress, "progress")
    label = None if name is None else _text(name, "name")
    with _python_errors():
        plan = plan_test(options, {"--json": json_path, "--html": html_path},
                         (str(source),) if isinstance(source, (str, os.PathLike)) else ())
        result = _run(plan, source, label, _size(interleave, "interleave") if given else None, show)
    if label is not None and options.seed_sweep is not None:
        result.source["name"] = label
    result.provenance = Provenance(_call_text("test", source, call, _TEST_DEFAULTS), **_environment())
    document = result.to_json()
    _write_outputs(document, json_path, html_path)
    return Result(document, result.results)


test.__test__ = False  # type: ignore[attr-defined]  # `from randqa import test` in a test module is no test


def _backend_of_class(source: object) -> str | None:
    from randqa.sources.python_objects import backend_of_class

    return backend_of_class(source)


def _bitgenerator_list(source: object) -> bool:
    from randqa.sources.python_objects import bitgenerator_list

    return bitgenerator_list(source)


def _run(plan: TestPlan, source: object, label: str | None, interleave: int | None, show: bool) -> RunResult:
    """Run what ``randqa.test`` was given through randqa.engine.execute, in
    this process with ``threads`` threads: a seed sweep of a generator name or a
    BitGenerator class; a name or path (or a class randqa knows by name, as
    that name) as ``randqa test`` runs it (the request opens the source, and
    its segments open it again where they start: a generator's by jumping, a
    file's by reading at an offset); or a Python object, opened here (a list
    of BitGenerators interleaved every ``interleave`` bytes).  The source is
    named ``label`` in the result."""
    from randqa.engine.execute import Execution, execute

    execution = Execution(threads=plan.options.jobs)

    def bars(total: int | None) -> ContextManager[Any]:
        return _progress_bar(show, total)

    if plan.options.seed_sweep is not None:
        return _sweep(plan, source, execution, bars)
    backend = _backend_of_class(source)  # numpy.random.PCG64 runs as "pcg64"
    if isinstance(source, (str, os.PathLike)) or backend is not None:
        spec = backend or _path(source, "source")
        assert spec is not None
        result = execute(plan.request(spec), execution, bars)
        if label is not None:
            _rename(result, label)
        return result
    with _open_source(plan, source, label, interleave) as opened:
        return execute(plan.request(opened.name, opened=opened), execution, bars, source=opened)


def _rename(result: RunResult, label: str) -> None:
    """Name the source ``label`` in ``result``, keeping a fold's ``[lowB/W]``
    as a source renamed before folding has it."""
    name = result.source["name"]
    folded = "folding" in result.source and name.endswith("]") and "[" in name
    result.source["name"] = label + (name[name.rindex("["):] if folded else "")


def _open_source(plan: TestPlan, source: object, name: str | None, interleave: int | None = None) -> Source:
    """A Source for the Python object ``randqa.test`` was given
    (randqa.sources.open_source), folded as the plan says; a list of
    BitGenerators interleaved every ``interleave`` bytes."""
    from randqa.engine.plan import check_stream_values
    from randqa.sources import open_source
    from randqa.sources.python_objects import GIVEN_STREAMS_TAKE_NO_OPTIONS

    o = plan.options
    if _bitgenerator_list(source):
        assert isinstance(source, (list, tuple))
        if o.sequences:
            raise UsageError(GIVEN_STREAMS_TAKE_NO_OPTIONS)
        check_stream_values(len(source), interleave)
    elif o.streams is not None:
        raise UsageError("--streams needs a generator (randqa list), not stdin or a file")
    fold = (o.word_bits, o.low_bits or 1) if o.word_bits else None
    return open_source(source, seed=o.seed, fmt=o.fmt, fold=fold, name=name, interleave=interleave)


def _sweep(plan: TestPlan, source: object, execution: Any, bars: Any) -> RunResult:
    """A seed sweep of a generator name, a class or a ``make(seed)`` function."""
    from randqa.engine.execute import execute
    from randqa.sources.python_objects import bitgenerator_class_source, kind_of

    if isinstance(source, (str, os.PathLike)):
        spec = _path(source, "source")
        assert spec is not None
        return execute(plan.request(spec), execution, bars)
    if kind_of(source) == "class":  # a class or a make(seed) function: each seed constructs one
        cls: Any = source
        with bitgenerator_class_source(cls, 0) as probe:
            name = probe.name
        return execute(plan.request(name, check_sweep=False), execution, bars,
                       seeded=lambda seed: bitgenerator_class_source(cls, seed))
    raise UsageError("--seed-sweep needs a generator backend (randqa list), not stdin or a file")


# ---------------------------------------------------------------- randqa.compare

#: the keywords of :func:`compare` (``jobs`` aside) and their defaults where they are not :func:`test`'s
_COMPARE_DEFAULTS: dict[str, Any] = api_defaults(
    "n", "seed", "suite", "tests", "progressive", "min", "max", "keep_going", "speed_repeats", "json", "html",
    "threads", "progress", "predict", "preset", "streams", "stream_seeds", "interleave",
    progressive=True, threads=None)


def compare(sources: Sequence[PathLike] | PathLike = (), n: Size | None = None, *, seed: int | None = None,
            suite: str = "standard", tests: str | Sequence[str] | None = None, progressive: bool = True,
            min: Size | None = None, max: Size | None = None, keep_going: bool = False, speed_repeats: int = 5,
            json: PathLike | None = None, html: PathLike | None = None, threads: int | None = None,
            progress: bool = False, predict: bool = True, preset: str | None = None, streams: int | None = None,
            stream_seeds: str | Sequence[str] | None = None, interleave: Size | None = None,
            jobs: int | None = None) -> Comparison:
    """Compare generators: speed as applications call them next to test quality,
    as ``randqa compare`` does.

    Parameters
    ----------
    sources : list of str or os.PathLike, optional
        Generator names (``randqa list``), ``module:attr`` specs, paths or
        ``"-"`` (stdin, once).  Default: the ``preset``'s.
    n : int or str, optional
        Bytes tested per source (``"64M"``); default 2 GiB of a generator, all of a file.
    seed : int, optional
        Seed of every generator (default: each drawn and recorded).
    suite : str, default "standard"
        Suite name or path of a suite TOML file.
    tests : str or list of str, optional
        Run only these tests of the suite.
    progressive : bool, default True
        Test doubling lengths from ``min`` to ``max`` and report where each source first fails.
    min, max : int or str, optional
        First (default 1 KiB) and last (default ``n``) length of ``progressive``.
    keep_going : bool, default False
        With ``progressive``, go on to ``max`` after the first failure.
    speed_repeats : int, default 5
        Timed speed runs per generator; the median is reported.
    json, html : str or os.PathLike, optional
        Also write the JSON document or the HTML report there.  Unlike the
        CLI, no report is written unless asked for.
    threads : int, optional
        Threads in this process that test each source side by side, as
        :func:`test`'s do (default: up to 2).
    progress : bool, default False
        Show progress bars on stderr.
    predict : bool, default True
        Also run randqa's predictors on each source: the bytes from which
        its continuation was predicted exactly (``predictable_from_bytes``).
    preset : {"nmap", "runtimes"}, optional
        Without sources: "nmap" (the default) compares nmap's contenders, the
        Linux pair, pcg64 and chacha; "runtimes" each language runtime's
        default generator and urandom, to 256 MiB unless ``n`` or ``max``
        says otherwise.
    streams : int, optional
        Compare each generator's ``streams`` streams instead, once per
        scheme of ``stream_seeds`` (see :func:`test`).
    stream_seeds : str or list of str, optional
        The seeding schemes to compare side by side.
    interleave : int or str, optional
        Bytes of one stream before the next's (default: the generator's word size).
    jobs : int, optional
        Deprecated name of ``threads`` (a DeprecationWarning).

    Returns
    -------
    Comparison
        Every source's :class:`Result` with its speed, and the compare document.

    Raises
    ------
    TypeError
        A source that is not a name or path (test Python objects with
        :func:`test`), or an option of the wrong type.
    ValueError
        Anything ``randqa compare`` refuses, with the line it prints.

    Examples
    --------
    >>> import randqa
    >>> c = randqa.compare(["pcg64", "minstd"], "256K", seed=3, suite="quick", progressive=False, speed_repeats=1)
    >>> [r.name for r in c if not r.passed]
    ['minstd']
    >>> c.speed_mb_s("pcg64") > 0
    True
    """
    from randqa.engine import compare as comparing
    from randqa.engine.plan import plan_compare

    arguments = locals()
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    specs = []
    for item in sources:
        if not isinstance(item, (str, os.PathLike)):
            raise TypeError(f"compare takes generator names, module:attr specs and paths, not {type(item).__name__}; "
                            f"test Python objects one at a time with randqa.test")
        spec = _path(item, "source")
        assert spec is not None
        specs.append(spec)
    threads_given, threads_value = _threads(threads, jobs, "compare", _COMPARE_DEFAULTS["threads"])
    call = {**{keyword: arguments[keyword] for keyword in _COMPARE_DEFAULTS}, "threads": threads_given}
    schemes = () if stream_seeds is None else (_text(stream_seeds, "stream_seeds"),) if isinstance(
        stream_seeds, str) else tuple(_text(s, "stream_seeds") for s in stream_seeds)
    size, min_size, max_size = _size(n, "n"), _size(min, "min"), _size(max, "max")
    preset_name = None if preset is None else _text(preset, "preset")
    flags = (_flag(progressive, "progressive"), _flag(keep_going, "keep_going"), _flag(progress, "progress"),
             _flag(predict, "predict"))
    threads = threads_value if threads_value is not None else builtins.min(2, os.cpu_count() or 1)
    seed_value, repeats = _whole(seed, "seed"), _whole(speed_repeats, "speed_repeats")
    json_path, html_path = _path(json, "json"), _path(html, "html")
    with _python_errors():
        chosen, size = comparing.preset_plan(specs, preset_name, size, max_size)
        options = plan_compare(suite=_text(suite, "suite"), tests=_test_names(tests), size=size, seed=seed_value,
                               progressive=flags[0], min_size=min_size, max_size=max_size, keep_going=flags[1],
                               speed_repeats=repeats, jobs=threads, predict=flags[3],
                               outputs={"--json": json_path, "--html": html_path}, inputs=tuple(specs),
                               streams=_whole(streams, "streams"), stream_seeds=schemes,
                               interleave=_size(interleave, "interleave"))

        def bar(label: str, total: int | None) -> Any:
            return _progress_bar(flags[2], total, desc=label)

        comparison = comparing.run_comparison(chosen, options,
                                              _call_text("compare", specs, call, _COMPARE_DEFAULTS), _environment(),
                                              progress=bar)
    if not comparison.runs:
        raise KeyboardInterrupt("interrupted before any source was tested")
    document = comparison.to_json()
    _write_outputs(document, json_path, html_path)
    return Comparison(document)


