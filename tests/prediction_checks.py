"""What the predictor tests (tests/predict/) check the same way: a predictor
recovers a stream and predicts at least 64 KiB past what it observed."""

from __future__ import annotations

import numpy as np
from reference_generators import backend_bytes

from randqa.predict.base import Predictor
from randqa.predict.runner import PredictorResult, run_predictor


def assert_predicts(predictor: Predictor, data: np.ndarray) -> PredictorResult:
    """``predictor`` on ``data`` succeeded and checked at least 64 KiB; its result."""
    result = run_predictor(predictor, data)
    assert result.succeeded and result.checked_bytes >= 1 << 16, result
    return result


def assert_predicts_backend(predictor: Predictor, name: str, seed: int | None) -> PredictorResult:
    """:func:`assert_predicts` on 128 KiB of backend ``name`` seeded with ``seed``."""
    return assert_predicts(predictor, backend_bytes(name, seed, 1 << 17))
