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
- ``randqa._report`` terminal table, JSON and HTML (``randqa.report`` is the function);
- ``randqa.cli``      the ``randqa`` command.

``import randqa`` stays light (no scipy, matplotlib or numpy): the API is
imported on first use.
"""

from __future__ import annotations

import importlib
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
    "report": "randqa.api", "test": "randqa.api", "TestResult": "randqa.results", "Verdict": "randqa.results",
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
