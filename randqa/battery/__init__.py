"""The statistical tests.  A suite entry ``test = "NAME"`` runs the class
defined in ``randqa/battery/NAME.py`` (an :class:`Accumulator` subclass whose
``name`` is NAME), so each test's code is found from its name.  Modules whose
names start with ``_`` are shared machinery (kernels, wrappers such as
folding and per-sequence testing); ``base`` is the accumulator protocol and
``suites`` loads suite files."""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from randqa.battery.base import Accumulator, parameter_defaults

__all__ = ["Accumulator", "available_tests", "accumulator_class", "parameter_defaults"]

#: public modules of the battery that are not tests
NOT_TESTS = ("base", "suites")


def available_tests() -> list[str]:
    """Names of every test module in the battery."""
    return list(_test_modules())


@lru_cache(maxsize=1)
def _test_modules() -> tuple[str, ...]:
    # scanned once: building a suite's accumulators for every segment of a run must not list a folder each time
    return tuple(sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_") and m.name not in NOT_TESTS))


@lru_cache(maxsize=None)
def accumulator_class(name: str) -> type[Accumulator]:
    """The accumulator class of test ``name``; KeyError if there is none."""
    if name not in _test_modules():
        raise KeyError(name)
    module = importlib.import_module(f"{__name__}.{name}")
    for obj in vars(module).values():
        if isinstance(obj, type) and issubclass(obj, Accumulator) and getattr(obj, "name", None) == name:
            return obj
    raise KeyError(name)
