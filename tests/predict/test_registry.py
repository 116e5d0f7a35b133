"""The predictor list: every name once, in report order, and a clear
refusal of a name that is not on it."""

from __future__ import annotations

import pytest

from randqa.errors import UsageError
from randqa.predict.registry import make_predictors, predictor_names


def test_names_are_unique_and_make_fresh_predictors_in_that_order():
    names = predictor_names()
    assert len(set(names)) == len(names) >= 9
    assert [p.name for p in make_predictors()] == names
    first, again = make_predictors(names[:1]), make_predictors(names[:1])
    assert first[0] is not again[0]


def test_a_name_asked_twice_makes_one_predictor():
    assert [p.name for p in make_predictors(["splitmix", "splitmix"])] == ["splitmix"]


@pytest.mark.parametrize("names, message", [(["oracle"], "unknown predictor 'oracle'"), ([], "no predictor named")])
def test_names_off_the_list_are_refused(names, message):
    with pytest.raises(UsageError, match=message):
        make_predictors(names)
