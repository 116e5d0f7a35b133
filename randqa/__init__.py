"""randqa: statistical randomness quality tester.

Layout, modelled on numpy.random and scipy.stats:

- ``randqa.sources``  where bytes come from (stdin, files, generators);
- ``randqa.battery``  the statistical tests, one module per suite name;
- ``suites/``         batteries as data (TOML), loaded by ``randqa.suites``;
- ``randqa.engine``   feeds a source's chunks to a suite's accumulators;
- ``randqa.report``   terminal table, JSON and HTML.
"""

__version__ = "0.1.0"
