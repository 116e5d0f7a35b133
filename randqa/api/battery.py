""":class:`Battery`: a suite's accumulators fed data as it arrives."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from randqa.api._arguments import _call_text, _environment, _python_errors, _test_names, _text
from randqa.api.documents import Result
from randqa.run_result import Provenance, RunResult


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

