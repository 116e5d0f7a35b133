"""The API's result objects (:class:`Result`, :class:`Comparison`) and
:func:`report`, which writes the HTML report of results or saved JSON."""

from __future__ import annotations

import copy
import difflib
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Generic, TypeVar, Union, overload

from randqa.api._arguments import PathLike, _path, _plain_json, _python_errors, _view_id
from randqa.errors import UsageError
from randqa.results import FAILING, TestResult, Verdict
from randqa.run_result import CompareResult, RunResult
from randqa.sizes import format_size


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


T = TypeVar("T")


class _RunField(Generic[T]):
    """A read-only attribute of a :class:`Result`: the field of the same
    name of the run it holds (``RunResult``)."""

    def __init__(self, doc: str) -> None:
        self.__doc__ = doc
        self._name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, result: None, owner: type | None = None) -> "_RunField[T]": ...

    @overload
    def __get__(self, result: "Result", owner: type | None = None) -> T: ...

    def __get__(self, result: "Result | None", owner: type | None = None) -> "T | _RunField[T]":
        if result is None:
            return self
        value: T = getattr(result._run, self._name)
        return value

    def __set__(self, result: "Result", value: object) -> None:
        raise AttributeError(f"property {self._name!r} of {type(result).__name__!r} object has no setter")


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

    verdict = _RunField[Verdict](
        "The worst verdict of the tests (``fail`` > ``unconfirmed`` > ``suspicious`` > ``pass`` > "
        "``insufficient``).")

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

    first_failure_bytes = _RunField[int | None](
        "Bytes read when the run first failed: the length of a progressive run at which it failed, or a "
        "single-length run's length when it failed; None when nothing failed.")

    bytes_tested = _RunField[int]("Bytes the tests read (for folded runs, folded bytes).")

    bits_tested = _RunField[int]("Bits the tests read (bit text may end inside a byte).")

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

    suite = _RunField[str]("The suite's name.")

    interrupted = _RunField[bool]("Whether Ctrl-C ended the run early (the results cover what was read).")

    notes = _RunField[list[str]]("Remarks on the run (input that ended early, an interruption).")

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
        self._comparison = CompareResult.from_json(self._document)
        self._runs = [Result(run) for run in self._document["runs"]]

    @property
    def runs(self) -> list[Result]:
        """Every source's :class:`Result`, in the order compared (a copy of the list)."""
        return list(self._runs)

    @property
    def interrupted(self) -> bool:
        """Whether Ctrl-C ended the comparison before every source was tested."""
        return self._comparison.interrupted

    @property
    def elapsed_s(self) -> float:
        """Wall time of the whole comparison in seconds."""
        return float(self._comparison.elapsed_s)

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
        return f"<randqa.Comparison suite {self._comparison.suite}: {parts}>"

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


