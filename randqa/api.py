"""The Python API: ``randqa.test``, ``randqa.compare``, ``randqa.report``,
``randqa.Battery`` and the result objects they return.

Modelled on scipy.stats and numpy.random: plain functions with keyword
options, results with ``statistic`` and ``pvalue``.  Every option of
``randqa test`` and ``randqa compare`` has a keyword of the same name
(``-n`` is ``n``, ``--word-bits`` is ``word_bits``, ``--json`` is ``json``);
the options are checked by the same code as the CLI's
(:mod:`randqa.engine.plan`), so a bad combination raises ``ValueError``
with the line the CLI prints, and an argument of the wrong type raises
``TypeError``.  Nothing is printed; Ctrl-C (``KeyboardInterrupt``) during a
run ends it early and the result covers what was tested (``interrupted``).
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import difflib
import json as _json
import numbers
import os
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ContextManager, Union, overload

import numpy as np

from randqa.errors import RandqaError, UsageError
from randqa.results import FAILING, TestResult, Verdict
from randqa.run_result import Provenance, RunResult
from randqa.sizes import format_size, parse_size

if TYPE_CHECKING:
    from randqa.engine.plan import TestPlan
    from randqa.sources.base import Source

__all__ = ["Battery", "Comparison", "Result", "compare", "report", "test"]

#: a size: a whole number of bytes (bits with ``format="bits"``) or a string such as ``"64M"``
Size = Union[int, str]
#: a path the API writes or reads
PathLike = Union[str, "os.PathLike[str]"]

def _view_id(kind: str) -> str:
    """A prefix for the SVG ids of one notebook view, unique across kernel restarts
    (outputs of earlier sessions stay in the notebook)."""
    return f"randqa-{kind}{uuid.uuid4().hex[:12]}"


# ---------------------------------------------------------------- errors and arguments

@contextlib.contextmanager
def _python_errors() -> Iterator[None]:
    """randqa's one-line errors (usage, input, suite files) as ValueError, same text."""
    try:
        yield
    except RandqaError as exc:
        raise ValueError(str(exc)) from None


def _size(value: object, keyword: str) -> int | None:
    """A size keyword: None, a whole number, or a string as the CLI takes it."""
    if value is None:
        return None
    if isinstance(value, str):
        with _python_errors():
            return parse_size(value)
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        with _python_errors():
            return parse_size(str(int(value)))
    raise TypeError(f"{keyword} must be a whole number of bytes or a size string such as '64M', "
                    f"not {type(value).__name__}")


def _whole(value: object, keyword: str) -> int | None:
    """An integer keyword (seed, jobs, ...): None or a whole number (ranges are the plan's)."""
    if value is None:
        return None
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    raise TypeError(f"{keyword} must be a whole number, not {type(value).__name__}")


def _flag(value: object, keyword: str) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{keyword} must be True or False, not {type(value).__name__}")


def _text(value: object, keyword: str) -> str:
    if isinstance(value, str):
        return value
    raise TypeError(f"{keyword} must be a string, not {type(value).__name__}")


def _test_names(value: object) -> str | None:
    """``tests``: None, "a,b" as the CLI takes it, or a sequence of names."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        return ",".join(value)
    raise TypeError(f"tests must be a comma-separated string or a list of test names, not {type(value).__name__}")


def _path(value: object, keyword: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        if isinstance(path, str):
            return path
    raise TypeError(f"{keyword} must be a path (str or os.PathLike), not {type(value).__name__}")


def _progress_bar(enabled: bool, total: int | None, desc: str | None = None) -> ContextManager[Any]:
    """The CLI's progress bar on stderr, or a no-op (imported only when wanted)."""
    if not enabled:
        return contextlib.nullcontext(None)
    from randqa.cli.common import ProgressBar

    return ProgressBar(True, total, desc=desc)


def _call_text(function: str, source: object, options: dict[str, Any], defaults: dict[str, Any]) -> str:
    """The call as a line of Python for the report's ``command``: the options that differ from their defaults."""
    from randqa.sources.python_objects import public_name

    if isinstance(source, (str, os.PathLike)):
        first = repr(os.fspath(source))
    elif isinstance(source, (list, tuple)) and all(isinstance(s, (str, os.PathLike)) for s in source):
        first = repr([os.fspath(s) for s in source])
    elif isinstance(source, type):
        first = f"<{public_name(source)} class>"
    elif isinstance(source, (bytes, bytearray, memoryview, np.ndarray)):
        size = source.nbytes if isinstance(source, (np.ndarray, memoryview)) else len(source)
        first = f"<{type(source).__name__} of {size} bytes>"
    elif callable(source) and not hasattr(source, "random_raw"):
        first = f"<callable {getattr(source, '__qualname__', type(source).__name__)}>"
    else:
        first = f"<{public_name(type(source))} instance>"
    given = [f"{k}={v!r}" for k, v in options.items() if v != defaults.get(k)]
    return f"randqa.{function}(" + ", ".join([first] + given) + ")"


def _environment() -> dict[str, Any]:
    from randqa._report.environment import environment

    return environment()


def _write_outputs(document: dict[str, Any], json_path: str | None, html_path: str | None) -> None:
    with _python_errors():
        if json_path:
            from randqa._report.json_report import write_json

            write_json(document, json_path)
        if html_path:
            from randqa._report.html import write_html_report

            write_html_report([document], html_path)


def _plain_json(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` as the JSON file holds it: plain dicts, lists, str, numbers (no enums or tuples)."""
    plain: dict[str, Any] = _json.loads(_json.dumps(document, allow_nan=False))
    return plain


# ---------------------------------------------------------------- results

class _JsonDocument:
    """What a :class:`Result` and a :class:`Comparison` share: the JSON
    document they hold, as a fresh copy or as the HTML report."""

    _document: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The JSON document, as ``randqa test --json`` (a run's :class:`Result`)
        or ``randqa compare --json`` (a :class:`Comparison`) writes it (a fresh copy).

        Returns
        -------
        dict
            Plain JSON values only; valid against ``randqa/schema/run.schema.json``
            or ``randqa/schema/compare.schema.json`` respectively.
        """
        return copy.deepcopy(self._document)

    @overload
    def to_html(self, path: None = None) -> str: ...

    @overload
    def to_html(self, path: PathLike) -> None: ...

    def to_html(self, path: PathLike | None = None) -> str | None:
        """The self-contained HTML report of the run or the comparison.

        Parameters
        ----------
        path : str or os.PathLike, optional
            Where to write the report.  Without it, the page is returned.

        Returns
        -------
        str or None
            The HTML text when ``path`` is None.

        Raises
        ------
        ValueError
            When ``path`` cannot be written.
        """
        return _html([self._document], path)


class Result(_JsonDocument):
    """The outcome of one run of a suite on one source.

    Returned by :func:`test`, :meth:`Battery.result` and found in
    :attr:`Comparison.runs`.  It holds the run's JSON document (what
    ``randqa test --json`` writes) and the :class:`~randqa.results.TestResult`
    of every test, each with ``statistic``, ``pvalue``, ``pvalue_low``,
    ``verdict`` and ``details``.

    Parameters
    ----------
    document : dict
        A run document, as :meth:`to_json` returns it.
    results : list of TestResult, optional
        The results the document's ``tests`` describe, when already at hand.

    Examples
    --------
    >>> import randqa
    >>> r = randqa.test("pcg64", "1M", seed=1, suite="quick")
    >>> r
    <randqa.Result pcg64 seed=1, suite quick, 1 MiB: pass (5 tests)>
    >>> r.passed, r.bytes_tested
    (True, 1048576)
    >>> r["chi_square"].verdict
    <Verdict.PASS: 'pass'>
    >>> [t.name for t in r if t.pvalue is not None and t.pvalue < 0.01]
    []
    """

    def __init__(self, document: Mapping[str, Any], results: list[TestResult] | None = None) -> None:
        self._document = _plain_json(dict(document))
        self._run = RunResult.from_json(self._document)
        self._results = list(results) if results is not None else self._run.results

    # ---------------------------------------------------------------- what it found

    @property
    def verdict(self) -> Verdict:
        """The worst verdict of the tests (``fail`` > ``unconfirmed`` > ``suspicious`` > ``pass`` > ``insufficient``)."""
        return self._run.verdict

    @property
    def passed(self) -> bool:
        """True when no test failed and none is unconfirmed (below the fail
        threshold with no fresh data to repeat it on); suspicious and
        insufficient results still pass."""
        return self.verdict not in FAILING

    @property
    def results(self) -> list[TestResult]:
        """Every test's result, in suite order (a copy of the list)."""
        return list(self._results)

    @property
    def first_failure_bytes(self) -> int | None:
        """Bytes read when the run first failed: the length of a progressive
        run at which it failed, or a single-length run's length when it failed;
        None when nothing failed."""
        return self._run.first_failure_bytes

    @property
    def bytes_tested(self) -> int:
        """Bytes the tests read (for folded runs, folded bytes)."""
        return self._run.bytes_tested

    @property
    def bits_tested(self) -> int:
        """Bits the tests read (bit text may end inside a byte)."""
        return self._run.bits_tested

    @property
    def elapsed_s(self) -> float:
        """Wall time of the run in seconds."""
        return float(self._run.elapsed_s)

    @property
    def source(self) -> dict[str, Any]:
        """The ``source`` object of the document: ``name``, ``seed`` and what it is."""
        return copy.deepcopy(self._run.source)

    @property
    def name(self) -> str:
        """The source's name in reports."""
        return str(self._run.source["name"])

    @property
    def seed(self) -> int | None:
        """The seed the generator was started from (drawn and recorded when not given); None for data."""
        seed = self._run.source.get("seed")
        return None if seed is None else int(seed)

    @property
    def suite(self) -> str:
        """The suite's name."""
        return self._run.suite

    @property
    def interrupted(self) -> bool:
        """Whether Ctrl-C ended the run early (the results cover what was read)."""
        return self._run.interrupted

    @property
    def notes(self) -> list[str]:
        """Remarks on the run (input that ended early, an interruption)."""
        return self._run.notes

    # ---------------------------------------------------------------- access

    def __getitem__(self, name: str) -> TestResult:
        """The result of the test called ``name``; ``"name #2"`` is the second result of that name."""
        if not isinstance(name, str):
            raise TypeError(f"results are looked up by test name (str), not {type(name).__name__}")
        base, sep, nth = name.rpartition(" #")
        wanted, index = (base, int(nth) - 1) if sep and nth.isdigit() and int(nth) >= 1 else (name, 0)
        matches = [r for r in self._results if r.name == wanted]
        if len(matches) > index:
            return matches[index]
        names = [r.name for r in self._results]
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
        hint = f"; close matches: {', '.join(close)}" if close else f"; it has: {', '.join(names[:8])}" + (
            ", ..." if len(names) > 8 else "")
        raise KeyError(f"no test {name!r} in this result{hint}")

    def __iter__(self) -> Iterator[TestResult]:
        return iter(self._results)

    def __len__(self) -> int:
        return len(self._results)

    def __repr__(self) -> str:
        seed = "" if self.seed is None else f" seed={self.seed}"
        amount = f"{self.bits_tested:,} bits" if self._run.unit == "bits" else format_size(self.bytes_tested)
        failure = ""
        if self._run.is_progressive and self.first_failure_bytes is not None:
            failure = f", first failure at {format_size(self.first_failure_bytes)}"
        interrupted = ", interrupted" if self.interrupted else ""
        return (f"<randqa.Result {self.name}{seed}, suite {self.suite}, {amount}: {self.verdict}"
                f"{failure}{interrupted} ({len(self._results)} tests)>")

    def _repr_html_(self) -> str:
        """Jupyter's view: a compact table of the tests that need attention and the chart."""
        from randqa._report.inline import run_summary_html

        return run_summary_html(self._document, _view_id("r"))


class Comparison(_JsonDocument):
    """The outcome of :func:`compare`: every source's speed next to its test results.

    Parameters
    ----------
    document : dict
        A compare document, as :meth:`to_json` returns it.

    Examples
    --------
    >>> import randqa
    >>> c = randqa.compare(["pcg64", "randu"], "64K", seed=1, suite="quick", progressive=False, speed_repeats=1)
    >>> [(r.name, str(r.verdict)) for r in c]
    [('pcg64', 'pass'), ('randu', 'fail')]
    >>> c["randu"].passed
    False
    """

    def __init__(self, document: Mapping[str, Any]) -> None:
        self._document = _plain_json(dict(document))
        self._runs = [Result(run) for run in self._document["runs"]]

    @property
    def runs(self) -> list[Result]:
        """Every source's :class:`Result`, in the order compared (a copy of the list)."""
        return list(self._runs)

    @property
    def interrupted(self) -> bool:
        """Whether Ctrl-C ended the comparison before every source was tested."""
        return bool(self._document.get("interrupted", False))

    @property
    def elapsed_s(self) -> float:
        """Wall time of the whole comparison in seconds."""
        return float(self._document.get("elapsed_s") or 0.0)

    def speed_mb_s(self, name: str) -> float | None:
        """A source's median speed as applications call it (MB/s, 10**6 B/s), or None for data."""
        speed = self[name]._run.speed
        return None if speed is None or speed.speed_mb_s is None else float(speed.speed_mb_s)

    def __getitem__(self, key: str | int) -> Result:
        """A source's result, by its name or position."""
        if isinstance(key, int):
            return self._runs[key]
        for run in self._runs:
            if run.name == key:
                return run
        raise KeyError(f"no source {key!r} in this comparison; it has: " + ", ".join(r.name for r in self._runs))

    def __iter__(self) -> Iterator[Result]:
        return iter(self._runs)

    def __len__(self) -> int:
        return len(self._runs)

    def __repr__(self) -> str:
        parts = ", ".join(f"{r.name}: {r.verdict}" for r in self._runs)
        return f"<randqa.Comparison suite {self._document.get('suite')}: {parts}>"

    def _repr_html_(self) -> str:
        from randqa._report.inline import compare_summary_html

        return compare_summary_html(self._document, _view_id("c"))


def _html(documents: list[dict[str, Any]], path: PathLike | None) -> str | None:
    from randqa._report.html import render_html, write_html_report

    with _python_errors():
        if path is None:
            return render_html(documents)
        target = _path(path, "path")
        assert target is not None
        from randqa.files import check_output_paths

        check_output_paths({"path": target})
        write_html_report(documents, target)
    return None


# ---------------------------------------------------------------- randqa.test

_TEST_DEFAULTS: dict[str, Any] = {
    "n": None, "seed": None, "suite": "standard", "tests": None, "format": "bytes", "word_bits": None,
    "low_bits": None, "sequences": None, "progressive": False, "min": None, "max": None, "keep_going": False,
    "seed_sweep": None, "positions": 256, "json": None, "html": None, "jobs": 1, "progress": False, "name": None,
    "streams": None, "stream_seeds": None, "interleave": None,
}


def test(source: object, n: Size | None = None, *, seed: int | None = None, suite: str = "standard",
         tests: str | Sequence[str] | None = None, format: str = "bytes", word_bits: int | None = None,
         low_bits: int | None = None, sequences: int | None = None, progressive: bool = False,
         min: Size | None = None, max: Size | None = None, keep_going: bool = False,
         seed_sweep: int | None = None, positions: int = 256, json: PathLike | None = None,
         html: PathLike | None = None, jobs: int = 1, progress: bool = False, name: str | None = None,
         streams: int | None = None, stream_seeds: str | None = None, interleave: Size | None = None) -> Result:
    """Test a source of random bytes with a suite, as ``randqa test`` does.

    Parameters
    ----------
    source : str, os.PathLike, BitGenerator, bytes-like, file object, iterable or callable
        What to test:

        - a generator name (``"pcg64"``, see ``randqa list``), ``"module:attr"``
          naming a BitGenerator class or factory, ``"-"`` for stdin, or a path;
        - a numpy ``BitGenerator`` instance, tested from its current state
          (and advanced by what is read), or a ``numpy.random.Generator``,
          whose bit generator is tested; or a ``BitGenerator`` class, seeded
          with ``seed``;
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
    jobs : int, default 1
        Threads that run the suite's tests side by side (results are identical).
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
    ValueError: invalid size '1Q': use a whole number with an optional K, M, G or T suffix (binary, e.g. 64K, 16MiB, 2G)
    """
    from randqa.engine.plan import DEFAULT_PROGRESSIVE_MIN, TestOptions, plan_test

    call = {"n": n, "seed": seed, "suite": suite, "tests": tests, "format": format, "word_bits": word_bits,
            "low_bits": low_bits, "sequences": sequences, "progressive": progressive, "min": min, "max": max,
            "keep_going": keep_going, "seed_sweep": seed_sweep, "positions": positions, "json": json,
            "html": html, "jobs": jobs, "progress": progress, "name": name, "streams": streams,
            "stream_seeds": stream_seeds, "interleave": interleave}
    given = _bitgenerator_list(source)
    if given and (streams is not None or stream_seeds is not None):
        raise ValueError("a list of BitGenerators is its own streams: give no streams or stream_seeds")
    options = TestOptions(
        size=_size(n, "n"), seed=_whole(seed, "seed"), suite=_text(suite, "suite"), tests=_test_names(tests),
        fmt=_text(format, "format"), word_bits=_whole(word_bits, "word_bits"), low_bits=_whole(low_bits, "low_bits"),
        sequences=_whole(sequences, "sequences"), progressive=_flag(progressive, "progressive"),
        min_size=_size(min, "min") or DEFAULT_PROGRESSIVE_MIN, max_size=_size(max, "max"), keep_going=_flag(keep_going, "keep_going"),
        seed_sweep=_whole(seed_sweep, "seed_sweep"), positions=_whole(positions, "positions") or 0,
        jobs=_whole(jobs, "jobs") or 0, streams=_whole(streams, "streams"),
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


def _bitgenerator_list(source: object) -> bool:
    from randqa.sources.python_objects import bitgenerator_list

    return bitgenerator_list(source)


def _run(plan: TestPlan, source: object, label: str | None, interleave: int | None, show: bool) -> RunResult:
    """Run what ``randqa.test`` was given through randqa.engine.execute, in
    this process with --jobs threads: a seed sweep of a generator name or a
    BitGenerator class, or one source, opened here (Python objects, a list of
    BitGenerators interleaved every ``interleave`` bytes) and named ``label``."""
    from randqa.engine.execute import Execution, execute

    execution = Execution(threads=plan.options.jobs)

    def bars(total: int | None) -> ContextManager[Any]:
        return _progress_bar(show, total)

    if plan.options.seed_sweep is not None:
        return _sweep(plan, source, execution, bars)
    with _open_source(plan, source, label, interleave) as opened:
        spec = _path(source, "source") if isinstance(source, (str, os.PathLike)) else opened.name
        assert spec is not None
        return execute(plan.request(spec, opened=opened), execution, bars, source=opened)


def _open_source(plan: TestPlan, source: object, name: str | None, interleave: int | None = None) -> Source:
    """A Source for what ``randqa.test`` was given (randqa.sources.open_source),
    folded as the plan says; a list of BitGenerators interleaved every
    ``interleave`` bytes, or a generator's streams of --streams."""
    from randqa.engine.plan import check_stream_values
    from randqa.sources import open_source
    from randqa.sources.python_objects import GIVEN_STREAMS_TAKE_NO_OPTIONS

    o = plan.options
    if _bitgenerator_list(source):
        assert isinstance(source, (list, tuple))
        if o.sequences:
            raise UsageError(GIVEN_STREAMS_TAKE_NO_OPTIONS)
        check_stream_values(len(source), interleave)
    elif isinstance(source, (str, os.PathLike)):
        source = _path(source, "source")
    layout = o.layout if isinstance(source, str) else None
    fold = (o.word_bits, o.low_bits or 1) if o.word_bits else None
    return open_source(source, seed=o.seed, fmt=o.fmt, fold=fold, layout=layout, name=name, interleave=interleave)


def _sweep(plan: TestPlan, source: object, execution: Any, bars: Any) -> RunResult:
    """A seed sweep of a generator name or a BitGenerator class."""
    from randqa.engine.execute import execute
    from randqa.sources.python_objects import bitgenerator_class_source, is_bitgenerator_class

    if isinstance(source, (str, os.PathLike)):
        spec = _path(source, "source")
        assert spec is not None
        return execute(plan.request(spec), execution, bars)
    if is_bitgenerator_class(source):
        assert isinstance(source, type)
        cls: type = source
        with bitgenerator_class_source(cls, 0) as probe:
            name = probe.name
        return execute(plan.request(name, check_sweep=False), execution, bars,
                       seeded=lambda seed: bitgenerator_class_source(cls, seed))
    raise UsageError("--seed-sweep needs a generator backend (randqa list), not stdin or a file")


# ---------------------------------------------------------------- randqa.compare

def compare(sources: Sequence[PathLike] | PathLike = (), n: Size | None = None, *, seed: int | None = None,
            suite: str = "standard", tests: str | Sequence[str] | None = None, progressive: bool = True,
            min: Size | None = None, max: Size | None = None, keep_going: bool = False, speed_repeats: int = 5,
            json: PathLike | None = None, html: PathLike | None = None, jobs: int | None = None,
            progress: bool = False, predict: bool = True, preset: str | None = None, streams: int | None = None,
            stream_seeds: str | Sequence[str] | None = None, interleave: Size | None = None) -> Comparison:
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
    jobs : int, optional
        Threads that run each suite's tests side by side (default: up to 2).
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
    call = {"n": n, "seed": seed, "suite": suite, "tests": tests, "progressive": progressive, "min": min,
            "max": max, "keep_going": keep_going, "speed_repeats": speed_repeats, "json": json, "html": html,
            "jobs": jobs, "progress": progress, "predict": predict, "preset": preset, "streams": streams,
            "stream_seeds": stream_seeds, "interleave": interleave}
    defaults = {"n": None, "seed": None, "suite": "standard", "tests": None, "progressive": True, "min": None,
                "max": None, "keep_going": False, "speed_repeats": 5, "json": None, "html": None, "jobs": None,
                "progress": False, "predict": True, "preset": None, "streams": None, "stream_seeds": None,
                "interleave": None}
    schemes = () if stream_seeds is None else (_text(stream_seeds, "stream_seeds"),) if isinstance(
        stream_seeds, str) else tuple(_text(s, "stream_seeds") for s in stream_seeds)
    size, min_size, max_size = _size(n, "n"), _size(min, "min"), _size(max, "max")
    preset_name = None if preset is None else _text(preset, "preset")
    flags = (_flag(progressive, "progressive"), _flag(keep_going, "keep_going"), _flag(progress, "progress"),
             _flag(predict, "predict"))
    threads = _whole(jobs, "jobs")
    threads = threads if threads is not None else builtins.min(2, os.cpu_count() or 1)
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

        document = comparing.run_comparison(chosen, options,
                                            _call_text("compare", specs, call, defaults), _environment(),
                                            progress=bar)
    if not document["runs"]:
        raise KeyboardInterrupt("interrupted before any source was tested")
    _write_outputs(document, json_path, html_path)
    return Comparison(document)


# ---------------------------------------------------------------- randqa.report

Document = Union[Result, Comparison, Mapping[str, Any], str, "os.PathLike[str]"]


def report(documents: Document | Sequence[Document], path: PathLike) -> None:
    """Write one self-contained HTML report of saved or in-memory results,
    as ``randqa report RESULT.json... -o PATH`` does.

    Parameters
    ----------
    documents : Result, Comparison, dict, path, or a list of them
        Results of :func:`test` and :func:`compare`, their ``to_json()``
        documents, or paths of JSON files written by ``--json``.  Documents
        and files are validated against randqa's JSON Schema first.
    path : str or os.PathLike
        Where to write the report.

    Returns
    -------
    None
        The report is the file at ``path``; ``Result.to_html()`` returns a
        page as text instead.

    Raises
    ------
    TypeError
        A document of none of these kinds.
    ValueError
        A file that cannot be read or is not a valid randqa document (the
        message names the file or document and the field), or no documents.

    Examples
    --------
    >>> import os, tempfile
    >>> import randqa
    >>> r = randqa.test("pcg64", "64K", seed=1, suite="quick")
    >>> folder = tempfile.mkdtemp()
    >>> randqa.report([r], os.path.join(folder, "report.html"))
    >>> os.path.getsize(os.path.join(folder, "report.html")) > 10_000
    True
    >>> randqa.report([{"tests": []}], os.path.join(folder, "bad.html"))
    Traceback (most recent call last):
    ...
    ValueError: document 1: missing key 'source'
    """
    from randqa.files import check_output_paths
    from randqa._report.html import check_document, load_document, write_html_report

    items: Sequence[Any]
    if isinstance(documents, (Result, Comparison, Mapping, str, os.PathLike)):
        items = [documents]
    else:
        items = list(documents)
    target = _path(path, "path")
    assert target is not None
    loaded: list[dict[str, Any]] = []
    with _python_errors():
        for i, item in enumerate(items, 1):
            if isinstance(item, (Result, Comparison)):
                loaded.append(item.to_json())
            elif isinstance(item, Mapping):
                doc = _plain_json(dict(item))
                check_document(doc, f"document {i}")
                loaded.append(doc)
            elif isinstance(item, (str, os.PathLike)):
                file = _path(item, "document")
                assert file is not None
                loaded.append(load_document(file))
            else:
                raise TypeError(f"report takes results, documents (dicts) or JSON file paths, not {type(item).__name__}")
        if not loaded:
            raise UsageError("nothing to report: no result documents")
        check_output_paths({"-o": target}, tuple(str(i) for i in items if isinstance(i, (str, os.PathLike))))
        write_html_report(loaded, target)


# ---------------------------------------------------------------- streaming

class Battery:
    """A suite's tests, fed data as it arrives: the engine's own accumulators.

    ``update`` as often as needed, ``result`` at any time (feeding may go
    on after it).  Results never depend on how the stream is cut into
    chunks.  Batteries that saw consecutive parts of one stream combine
    with ``merge``, so parts can be tested in parallel (threads, processes)
    and joined in stream order; every part but the last must end on a
    multiple of :attr:`alignment` bytes.

    Parameters
    ----------
    suite : str, default "standard"
        Suite name or path of a suite TOML file.
    tests : str or list of str, optional
        Run only these tests of the suite.
    name : str, default "stream"
        The source's name in the result.

    Raises
    ------
    ValueError
        An unknown suite or test.

    Examples
    --------
    >>> import numpy as np
    >>> import randqa
    >>> data = np.random.Generator(np.random.PCG64(5)).bytes(1 << 20)
    >>> b = randqa.Battery("quick")
    >>> for start in range(0, len(data), 100_000):  # chunks of any size
    ...     b.update(data[start:start + 100_000])
    >>> r = b.result()
    >>> r.bytes_tested, r.verdict
    (1048576, <Verdict.PASS: 'pass'>)
    >>> first, second = randqa.Battery("quick"), randqa.Battery("quick")
    >>> cut = 300_000 // first.alignment * first.alignment  # the first part ends on a multiple
    >>> first.update(data[:cut]); second.update(data[cut:])
    >>> first.merge(second)
    >>> first.result().to_json()["tests"] == r.to_json()["tests"]
    True
    """

    def __init__(self, suite: str = "standard", *, tests: str | Sequence[str] | None = None, name: str = "stream") -> None:
        from randqa.battery.suites import load_suite

        with _python_errors():
            self._suite = load_suite(_text(suite, "suite"), tests=_test_names(tests))
        self._accumulators = self._suite.build()
        self._name = _text(name, "name")
        self._bytes = 0
        self._started = time.perf_counter()
        self._call = _call_text("Battery", suite, {"tests": tests, "name": name}, {"tests": None, "name": "stream"})

    @property
    def bytes_seen(self) -> int:
        """Bytes fed so far (merged batteries' included)."""
        return self._bytes

    @property
    def alignment(self) -> int:
        """Byte multiple at which a battery's part of a stream may end before a merge."""
        return int(np.lcm.reduce([acc.alignment for acc in self._accumulators] + [1]))

    def update(self, chunk: bytes | bytearray | memoryview | np.ndarray) -> None:
        """Feed the next bytes of the stream.

        Parameters
        ----------
        chunk : bytes, bytearray, memoryview or uint8 ndarray
            The bytes that follow those already fed (any length, empty included).

        Raises
        ------
        TypeError
            Anything else (text, a float array).
        """
        from randqa.sources.python_objects import as_uint8

        data = as_uint8(chunk, "chunk")
        for acc in self._accumulators:
            acc.update(data)
        self._bytes += len(data)

    def merge(self, other: "Battery") -> None:
        """Absorb ``other``, a battery of the same suite that saw the bytes
        following this one's.

        Parameters
        ----------
        other : Battery
            Consumed: its counts may now be shared with this battery, so
            feed it no more.

        Raises
        ------
        TypeError
            ``other`` is not a Battery.
        ValueError
            Different suites or tests, or this battery's bytes do not end on
            a multiple of :attr:`alignment`.
        """
        if not isinstance(other, Battery):
            raise TypeError(f"can only merge another Battery, not {type(other).__name__}")
        if other is self:
            raise ValueError("cannot merge a battery into itself")
        if [repr(a) for a in self._accumulators] != [repr(b) for b in other._accumulators]:
            raise ValueError(f"cannot merge batteries of different suites or tests "
                             f"({self._suite.name!r} and {other._suite.name!r})")
        if self._bytes % self.alignment:
            raise ValueError(f"this battery saw {self._bytes} bytes, not a multiple of its alignment "
                             f"({self.alignment}); only its stream's last part may end elsewhere")
        for mine, theirs in zip(self._accumulators, other._accumulators):
            mine.merge(theirs)
        self._bytes += other._bytes

    def result(self) -> Result:
        """Judge everything fed so far.

        Returns
        -------
        Result
            As :func:`test` returns it; the source is ``name`` with no seed.

        Raises
        ------
        ValueError
            Nothing was fed yet.
        """
        from randqa.engine import judge
        from randqa.errors import InputError

        with _python_errors():
            if self._bytes == 0:
                raise InputError(f"{self._name}: no data (empty input)")
            results = judge(self._accumulators, self._suite.thresholds)
        run = RunResult(source={"name": self._name, "seed": None}, suite=self._suite.name, results=results,
                        bytes_tested=self._bytes, bits_tested=8 * self._bytes,
                        elapsed_s=time.perf_counter() - self._started, thresholds=self._suite.thresholds)
        run.provenance = Provenance(self._call, **_environment())
        return Result(run.to_json(), results)

    def __repr__(self) -> str:
        return f"<randqa.Battery {self._suite.name}: {len(self._accumulators)} tests, {self._bytes} bytes seen>"

