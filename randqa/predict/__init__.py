"""Predictability shown rather than inferred: observe a prefix of a stream,
reconstruct what can be reconstructed, predict the continuation and check
it against the real bytes (``randqa predict``).

Public entry points::

    predict(source, nbytes=None, *, predictors=None, check_bytes=65536) -> PredictReport
    predict_data(data, *, predictors=None, check_bytes=65536, source=None) -> PredictReport
    predictor_names() -> list[str]

One module per predictor, each citing the literature it follows.
"""

from __future__ import annotations

from randqa.predict.base import Predictor
from randqa.predict.registry import make_predictors, predictor_names
from randqa.predict.runner import (DEFAULT_CHECK_BYTES, DEFAULT_READ_BYTES, PredictorResult, PredictReport,
                                   predict, predict_data, run_predictor)

__all__ = ["predict", "predict_data", "predictor_names", "make_predictors",
           "PredictReport", "PredictorResult", "Predictor", "run_predictor", "DEFAULT_READ_BYTES",
           "DEFAULT_CHECK_BYTES"]
