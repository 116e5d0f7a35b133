"""Assertions for test suites: "my generator passes the standard suite" in CI.

An RNG library's own tests (pytest or unittest) call
:func:`assert_random` with a fixed seed, so the assertion is deterministic:
it either always passes or always fails for a given version of the
generator (and of randqa).

Example, the whole test module of another project::

    import numpy as np
    from randqa.testing import assert_random

    def test_my_generator_passes_the_standard_suite():
        assert_random(np.random.PCG64(20240501), n="64M", suite="standard")
"""

from __future__ import annotations

from typing import Any

from randqa.api import Result, Size, test
from randqa.results import Verdict
from randqa.sizes import format_size

__all__ = ["assert_random"]


def assert_random(source: object, n: Size | None = "16M", suite: str = "quick", **kw: Any) -> Result:
    """Assert that ``source`` passes a suite: no test fails.

    Parameters
    ----------
    source : str, BitGenerator, bytes-like, file object, iterable or callable
        Anything :func:`randqa.test` takes; give a seed (``seed=`` for a
        name or class, or an instance made with one) so that the test is
        deterministic.
    n : int or str, default "16M"
        How much to test (a generator is endless: it needs a length).
    suite : str, default "quick"
        Suite name or path of a suite TOML file.
    **kw
        Any other keyword of :func:`randqa.test` (``seed``, ``tests``,
        ``word_bits``, ``progressive``...).

    Returns
    -------
    Result
        The run, when it passed (suspicious results are no failure).

    Raises
    ------
    AssertionError
        A test failed, or was unconfirmed (below the fail threshold where
        the source gave no fresh data to repeat it on: bytes, a file), or no
        test had data enough for a verdict.  The message is the table of
        the failed, unconfirmed and suspicious tests with their p-values,
        and the source's seed, to reproduce the run.
    KeyboardInterrupt
        The run was interrupted (a partial run proves nothing).
    TypeError, ValueError
        As :func:`randqa.test` raises them.

    Examples
    --------
    >>> import numpy as np
    >>> from randqa.testing import assert_random
    >>> assert_random(np.random.PCG64(1), n="4M").verdict
    <Verdict.PASS: 'pass'>
    >>> assert_random("msvc-rand-byte", seed=1)
    Traceback (most recent call last):
    ...
    AssertionError: msvc-rand-byte (seed 1) failed the quick suite on 16 MiB: 2 failed, 0 suspicious of 5 tests
    test                    p-value  lower-tail p  verdict
    chi_square             1.000000       <5e-324  fail
    birthday_spacings       <5e-324      1.000000  fail
    reproduce: randqa.test('msvc-rand-byte', n='16M', seed=1, suite='quick')
    """
    result = test(source, n, suite=suite, **kw)
    if result.interrupted:
        raise KeyboardInterrupt("randqa.testing.assert_random: the run was interrupted")
    if not result.passed:  # failed, or below the fail threshold with no fresh data to repeat it on
        raise AssertionError(failure_message(result, source, n, suite, kw))
    if result.verdict == Verdict.INSUFFICIENT:
        raise AssertionError(f"{_who(result)}: no test of the {result.suite} suite had data enough for a verdict "
                             f"in {format_size(result.bytes_tested)}; give a larger n")
    return result


def _who(result: Result) -> str:
    return result.name + ("" if result.seed is None else f" (seed {result.seed})")


def failure_message(result: Result, source: object, n: Size | None, suite: str, kw: dict[str, Any]) -> str:
    """The AssertionError text: what failed, the table of failed and
    suspicious tests with their p-values, and how to run it again."""
    from randqa._report.terminal import render_problems

    doc = result.to_json()
    failed = sum(1 for t in result if t.verdict == Verdict.FAIL)
    unconfirmed = sum(1 for t in result if t.verdict == Verdict.UNCONFIRMED)
    suspicious = sum(1 for t in result if t.verdict == Verdict.SUSPICIOUS)
    also = f", {unconfirmed} unconfirmed" if unconfirmed else ""
    lines = [f"{_who(result)} failed the {result.suite} suite on {format_size(result.bytes_tested)}: "
             f"{failed} failed{also}, {suspicious} suspicious of {len(result)} tests", render_problems(doc)]
    if result.seed is not None and isinstance(source, str):
        options = {"n": n, **{k: v for k, v in kw.items() if k != "seed"}, "seed": result.seed, "suite": suite}
        args = ", ".join(f"{k}={v!r}" for k, v in options.items() if v is not None)
        lines.append(f"reproduce: randqa.test({source!r}, {args})")
    elif result.seed is not None:
        lines.append(f"reproduce: the source's stream from seed {result.seed} ({doc['source'].get('seeding', 'seeded')})")
    else:
        lines.append("reproduce: no seed recorded for this source (data, an instance past its start, or a callable)")
    return "\n".join(lines)
