"""randqa: statistical randomness quality tester.

Layout, modelled on numpy.random and scipy.stats:

- ``randqa.sources``  where bytes come from (stdin, files, generators);
- ``randqa.battery``  the statistical tests, one module per suite name,
                      and ``battery.suites``, which loads ``suites/*.toml``;
- ``randqa.engine``   feeds a source's chunks to a suite's accumulators;
- ``randqa.results``  result objects and verdicts;
- ``randqa.report``   terminal table, JSON and HTML;
- ``randqa.cli``      the ``randqa`` command.
"""

from randqa._version import __version__

__all__ = ["__version__"]
