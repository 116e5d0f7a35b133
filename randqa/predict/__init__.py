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

from collections.abc import Sequence

from randqa.errors import UsageError
from randqa.predict.base import Predictor
from randqa.predict.runner import (DEFAULT_CHECK_BYTES, DEFAULT_READ_BYTES, PredictorResult, PredictReport,
                                   predict, predict_data, run_predictor)

__all__ = ["predict", "predict_data", "predictor_names", "make_predictors",
           "PredictReport", "PredictorResult", "Predictor", "run_predictor", "DEFAULT_READ_BYTES",
           "DEFAULT_CHECK_BYTES"]


def _classes() -> list[type[Predictor]]:
    from randqa.predict.additive_feedback import AdditiveFeedbackPredictor
    from randqa.predict.gf2_linear import GF2LinearPredictor
    from randqa.predict.lcg_full import FullLCGPredictor
    from randqa.predict.lcg_truncated import TruncatedLCGPredictor
    from randqa.predict.mersenne_twister import MersenneTwisterPredictor
    from randqa.predict.multiply_with_carry import MulticarryPredictor
    from randqa.predict.seed_search import SeedSearchPredictor
    from randqa.predict.splitmix import SplitMixPredictor
    from randqa.predict.xorshift128_cache import XorShift128CachePredictor

    return [GF2LinearPredictor, MersenneTwisterPredictor, FullLCGPredictor, TruncatedLCGPredictor,
            AdditiveFeedbackPredictor, SplitMixPredictor, XorShift128CachePredictor, MulticarryPredictor,
            SeedSearchPredictor]


def predictor_names() -> list[str]:
    """Every predictor's name, in the order reports list them."""
    return [cls.name for cls in _classes()]


def make_predictors(names: Sequence[str] | None = None) -> list[Predictor]:
    """Fresh predictors: all of them, or those named (UsageError for an unknown name)."""
    classes = {cls.name: cls for cls in _classes()}
    if names is None:
        return [cls() for cls in classes.values()]
    unknown = [n for n in names if n not in classes]
    if unknown:
        raise UsageError(f"unknown predictor {unknown[0]!r}: choose from {', '.join(classes)}")
    if not names:
        raise UsageError("no predictor named: choose from " + ", ".join(classes))
    return [classes[n]() for n in dict.fromkeys(names)]
