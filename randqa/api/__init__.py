"""The Python API: ``randqa.test``, ``randqa.compare``, ``randqa.report``,
``randqa.Battery`` and the result objects they return.

Modelled on scipy.stats and numpy.random: plain functions with keyword
options, results with ``statistic`` and ``pvalue``.  Every option of
``randqa test`` and ``randqa compare`` has a keyword of the same name
(``-n`` is ``n``, ``--word-bits`` is ``word_bits``, ``--json`` is ``json``;
both declared in :mod:`randqa.engine.options`), except the worker,
checkpoint and memory options: a call runs in this process, in ``threads``
threads (``jobs`` is that keyword's deprecated name).  The options are
checked by the same code as the CLI's (:mod:`randqa.engine.plan`), so a bad combination raises ``ValueError``
with the line the CLI prints, and an argument of the wrong type raises
``TypeError``.  Nothing is printed; Ctrl-C (``KeyboardInterrupt``) during a
run ends it early and the result covers what was tested (``interrupted``).
"""

from __future__ import annotations

from randqa.api._arguments import PathLike, Size
from randqa.api.battery import Battery
from randqa.api.documents import Comparison, Result, report
from randqa.api.running import compare, test

__all__ = ["Battery", "Comparison", "PathLike", "Result", "Size", "compare", "report", "test"]
