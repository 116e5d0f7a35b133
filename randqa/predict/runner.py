"""Run every predictor on one stream: observe a prefix, predict what follows,
check the prediction against the real bytes.

The source is read once, up to ``nbytes``.  For each predictor the prefix
doubles from the predictor's smallest useful size until its prediction of
the next ``check_bytes`` (64 KiB by default) is exact or its cost bound is
reached; after a success the runner tries the shorter prefix the fit says
sufficed and, for predictors cheap to refit, bisects down, so that
``observed_bytes`` is (close to) the least that suffices.  The checked bytes
always follow the observed ones: a predictor never sees what it is checked
on.

``predictable_from_bytes`` is the smallest ``observed_bytes`` with which
some predictor predicted its whole checked continuation exactly, or None.
None means that no predictor succeeded, not that the stream cannot be
predicted: the absence of a structure these predictors know is no proof.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from randqa.errors import InputError, UsageError
from randqa.predict.base import Fit, NoFit, Predictor
from randqa.predict.registry import make_predictors
from randqa.sources.base import Source, read_full

#: bytes read from a source when no size is given: enough for every
#: predictor's cost bound plus the checked continuation
DEFAULT_READ_BYTES = 1 << 20
#: bytes checked after each observed prefix
DEFAULT_CHECK_BYTES = 1 << 16
#: a success needs at least this many checked bytes
MIN_CHECK_BYTES = 64


@dataclass
class PredictorResult:
    """One predictor's outcome on one stream."""

    name: str
    #: the stream was long enough for it to try at least one prefix
    applicable: bool
    observed_bytes: int
    checked_bytes: int
    #: fraction of the checked bytes predicted exactly; None when nothing was predicted
    exact_fraction: float | None
    structure: dict[str, Any]

    @property
    def succeeded(self) -> bool:
        return self.exact_fraction == 1.0 and self.checked_bytes >= MIN_CHECK_BYTES

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "applicable": self.applicable, "observed_bytes": self.observed_bytes,
                "checked_bytes": self.checked_bytes, "exact_fraction": self.exact_fraction,
                "succeeded": self.succeeded, "structure": self.structure}


@dataclass
class PredictReport:
    """What ``randqa predict`` found on one stream."""

    source: dict[str, Any]
    bytes_read: int
    predictors: list[PredictorResult]

    @property
    def predictable_from_bytes(self) -> int | None:
        """The fewest observed bytes with which some predictor predicted its checked bytes exactly."""
        sizes = [r.observed_bytes for r in self.predictors if r.succeeded]
        return min(sizes) if sizes else None

    def to_json(self) -> dict[str, Any]:
        return {"kind": "predict", "source": self.source, "bytes_read": self.bytes_read,
                "predictors": [r.to_json() for r in self.predictors],
                "predictable_from_bytes": self.predictable_from_bytes}


@dataclass
class _Attempt:
    size: int
    checked: int
    fraction: float | None
    structure: dict[str, Any]
    fit: Fit | None

    @property
    def success(self) -> bool:
        return self.fraction == 1.0 and self.checked >= MIN_CHECK_BYTES


def _attempt(predictor: Predictor, data: np.ndarray, size: int, check_bytes: int) -> _Attempt:
    fit = predictor.fit(data[:size])
    checked = min(check_bytes, len(data) - size)
    if isinstance(fit, NoFit):
        return _Attempt(size, 0, None, {"summary": fit.reason, **fit.details}, None)
    predicted = np.asarray(fit.predict(checked), dtype=np.uint8)
    actual = data[size:size + checked]
    if len(predicted) != checked:
        raise AssertionError(f"{predictor.name} predicted {len(predicted)} bytes, not {checked}")
    fraction = float(np.count_nonzero(predicted == actual)) / checked if checked else None
    structure = dict(fit.structure)
    structure.update(fit.describe_check(predicted, actual))
    return _Attempt(size, checked, fraction, structure, fit)


def _round_up(n: int, step: int) -> int:
    return -(-n // step) * step


def run_predictor(predictor: Predictor, data: np.ndarray, check_bytes: int = DEFAULT_CHECK_BYTES) -> PredictorResult:
    """Try ``predictor`` on doubling prefixes of ``data`` (uint8); see the module docstring."""
    g = predictor.granularity
    start = _round_up(max(predictor.min_observed_bytes, g), g)
    limit = min(predictor.max_observed_bytes, len(data) - MIN_CHECK_BYTES) // g * g
    if start > limit:
        need = start + MIN_CHECK_BYTES
        return PredictorResult(predictor.name, False, 0, 0, None,
                               {"summary": f"needs at least {need} bytes ({start} observed + {MIN_CHECK_BYTES} checked)"})
    sizes = []
    size = start
    while size <= limit:
        sizes.append(size)
        size = size * 2 // g * g
    if sizes[-1] < limit and predictor.max_observed_bytes >= limit:
        sizes.append(limit)
    last_fail: _Attempt | None = None
    best: _Attempt | None = None
    for size in sizes:
        attempt = _attempt(predictor, data, size, check_bytes)
        if attempt.success:
            best = attempt
            break
        last_fail = attempt
    if best is None:
        assert last_fail is not None
        return _result(predictor, last_fail)
    lo = last_fail.size if last_fail is not None else start - g
    assert best.fit is not None
    hint = best.fit.needed_bytes
    if hint is not None:
        hint = _round_up(max(hint, start), g)
        if hint < best.size:
            attempt = _attempt(predictor, data, hint, check_bytes)
            if attempt.success:
                best = attempt
                lo = min(lo, start - g)
    if predictor.bisect:
        hi = best.size
        while hi - lo > g:
            mid = (lo + hi) // 2 // g * g
            if mid <= lo or mid < start:
                break
            attempt = _attempt(predictor, data, mid, check_bytes)
            if attempt.success:
                hi, best = mid, attempt
            else:
                lo = mid
    return _result(predictor, best)


def _result(predictor: Predictor, attempt: _Attempt) -> PredictorResult:
    return PredictorResult(predictor.name, True, attempt.size, attempt.checked, attempt.fraction, attempt.structure)


def predict_data(data: bytes | bytearray | memoryview | np.ndarray, *, predictors: Sequence[str] | None = None,
                 check_bytes: int = DEFAULT_CHECK_BYTES, source: dict[str, Any] | None = None) -> PredictReport:
    """Run the predictors on bytes already in memory (``source``: the report's source description)."""
    array = np.frombuffer(data, dtype=np.uint8) if not isinstance(data, np.ndarray) else data.view(np.uint8).ravel()
    if len(array) == 0:
        raise InputError("no bytes to predict from: the input is empty")
    if check_bytes < MIN_CHECK_BYTES:
        raise UsageError(f"the checked continuation must be at least {MIN_CHECK_BYTES} bytes, not {check_bytes}")
    results = [run_predictor(p, array, check_bytes) for p in make_predictors(predictors)]
    return PredictReport(source if source is not None else {"name": "data", "seed": None}, len(array), results)


def predict(source: Source, nbytes: int | None = None, *, predictors: Sequence[str] | None = None,
            check_bytes: int = DEFAULT_CHECK_BYTES) -> PredictReport:
    """Read up to ``nbytes`` (default 1 MiB) from ``source`` once and run the predictors on them.

    A source that ends early is used as far as it goes; an empty one is an
    InputError.  ``predictors`` names a subset (see ``predictor_names()``).
    """
    if nbytes is None:
        nbytes = DEFAULT_READ_BYTES
    if nbytes <= 0:
        raise UsageError(f"predict needs a positive number of bytes to read, not {nbytes}")
    data = read_up_to(source, nbytes)
    if len(data) == 0:
        raise InputError(f"no bytes to predict from: {source.name} is empty")
    return predict_data(data, predictors=predictors, check_bytes=check_bytes, source=source.describe())


#: the first read of ``read_up_to``; each later one doubles what arrived
FIRST_READ_BYTES = 1 << 16


def read_up_to(source: Source, nbytes: int) -> np.ndarray:
    """Up to ``nbytes`` of ``source`` (uint8), in a buffer that grows with
    what arrives: a large ``-n`` on a short stream holds only the stream."""
    buffer = np.empty(min(nbytes, FIRST_READ_BYTES), dtype=np.uint8)
    got = 0
    while True:
        got += read_full(source, memoryview(buffer)[got:])
        if got < len(buffer) or got == nbytes:
            return buffer[:got]
        grown = np.empty(min(nbytes, 2 * len(buffer)), dtype=np.uint8)
        grown[:got] = buffer
        buffer = grown
