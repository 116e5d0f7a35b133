"""Every predictor, by name: the one list the runner and the CLI choose from."""

from __future__ import annotations

from collections.abc import Sequence

from randqa.errors import UsageError
from randqa.predict.base import Predictor


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
