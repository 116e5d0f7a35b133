"""randqa: statistical randomness quality tester.

The Python API (numpydoc-documented, doctested):

- :func:`randqa.test` tests one source with a suite and returns a :class:`Result`;
- :func:`randqa.compare` compares generators' speed next to their quality
  (a :class:`Comparison`);
- :func:`randqa.report` writes the HTML report of results or saved JSON;
- :class:`randqa.Battery` tests data as it arrives (``update``, ``merge``, ``result``);
- :class:`randqa.TestResult` and :class:`randqa.Verdict` are what a result holds;
- :func:`randqa.testing.assert_random` is an assertion for test suites.

Everything else is internal: the layout below is modelled on numpy.random
and scipy.stats, and may change between versions.

- ``randqa.sources``  where bytes come from (stdin, files, generators, Python objects);
- ``randqa.battery``  the statistical tests, one module per suite name,
                      and ``battery.suites``, which loads ``suites/*.toml``;
- ``randqa.engine``   feeds a source's chunks to a suite's accumulators;
- ``randqa.results``  result objects and verdicts;
- ``randqa.report``   terminal table, JSON and HTML;
- ``randqa.cli``      the ``randqa`` command.

``import randqa`` stays light (no scipy, matplotlib or numpy): the API is
imported on first use.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from randqa._version import __version__

if TYPE_CHECKING:
    from randqa import testing
    from randqa.api import Battery, Comparison, Result, compare, report, test
    from randqa.results import TestResult, Verdict

__all__ = ["Battery", "Comparison", "Result", "TestResult", "Verdict", "__version__", "compare", "report", "test",
           "testing"]

#: public name -> the module that defines it, imported on first access
_LAZY = {
    "Battery": "randqa.api", "Comparison": "randqa.api", "Result": "randqa.api", "compare": "randqa.api",
    "test": "randqa.api", "TestResult": "randqa.results", "Verdict": "randqa.results",
}


def __getattr__(name: str) -> Any:
    if name == "testing":
        return importlib.import_module("randqa.testing")
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'randqa' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


class _CallableReportPackage(types.ModuleType):
    """The package ``randqa.report`` (terminal, JSON and HTML rendering) is
    also the function ``randqa.report(documents, path)``: a subpackage and a
    function cannot share the name ``randqa.report``, and importing the
    subpackage would replace the function, so the package itself is callable."""

    def __call__(self, documents: Any, path: Any) -> None:
        from randqa.api import report as write_report

        write_report(documents, path)


def _make_report_package_callable() -> None:
    import randqa.report  # a docstring only: cheap

    package = sys.modules["randqa.report"]
    if not isinstance(package, _CallableReportPackage):
        package.__class__ = _CallableReportPackage


_make_report_package_callable()
