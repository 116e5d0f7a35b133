"""Suites: batteries of tests as data (TOML files in ``suites/``).

A suite file looks like::

    name = "quick"
    description = "..."
    [thresholds]            # optional; see randqa.results
    suspicious = 1e-3
    fail = 1e-6
    [[tests]]
    test = "chi_square"     # runs randqa/battery/chi_square.py
    bits = 8                # every other key is a parameter of that test

Two more keys change how an entry sees the stream: ``sequence_bits = n``
runs the test on each n-bit sequence with NIST STS's second-level analysis
(randqa.battery._sequences), and ``fold_word_bits = W`` with ``fold_low_bits = L``
runs it on the low L bits of every W-bit word only (PractRand's folding,
randqa/battery/_folding.py).

``--suite NAME`` loads ``suites/NAME.toml``; ``--suite PATH`` loads a file.
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from randqa.battery import Accumulator, accumulator_class, available_tests, parameter_defaults
from randqa.battery._folding import FoldedTest
from randqa.battery._shared import share_statistics
from randqa.errors import SuiteError, UsageError
from randqa.folding import check_folding
from randqa.results import Thresholds
from randqa.battery._sequences import PerSequence

DEFAULT_SUITE = "standard"


@dataclass
class TestSpec:
    """One entry of a suite: which test, with which parameters."""

    __test__ = False  # not a pytest test class

    test: str
    params: dict[str, Any] = field(default_factory=dict)
    #: cut the stream into sequences of this many bits (NIST second-level analysis)
    sequence_bits: int | None = None
    #: (word_bits, low_bits): test only the low bits of each word (PractRand's folding)
    fold: tuple[int, int] | None = None

    def build(self) -> Accumulator:
        cls = accumulator_class(self.test)

        def make() -> Accumulator:
            inner = cls(**self.params)
            if self.fold is None:
                return inner
            return FoldedTest(inner, word_bits=self.fold[0], low_bits=self.fold[1])

        if self.sequence_bits is None:
            return make()
        return PerSequence(make, self.sequence_bits, self.params)


@dataclass
class Suite:
    name: str
    description: str
    thresholds: Thresholds
    tests: list[TestSpec]
    path: str

    def build(self) -> list[Accumulator]:
        """Fresh accumulators, one per entry; entries that finalise from the
        same counts share them (randqa/battery/_shared.py), so keep the list
        together: merge lists element by element, pickle the whole list."""
        accumulators = [spec.build() for spec in self.tests]
        share_statistics(accumulators)
        return accumulators

    def select(self, names: list[str]) -> "Suite":
        """The same suite restricted to the named tests (``--tests a,b``)."""
        known = {spec.test for spec in self.tests}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise UsageError(f"suite {self.name!r} has no test {unknown[0]!r}; it has: {', '.join(sorted(known))}")
        kept = [spec for spec in self.tests if spec.test in names]
        return Suite(self.name, self.description, self.thresholds, kept, self.path)

    @property
    def sequence_bytes(self) -> int | None:
        """Bytes per sequence when the suite tests sequences (the largest), else None."""
        sizes = [spec.sequence_bits // 8 for spec in self.tests if spec.sequence_bits]
        return max(sizes) if sizes else None


def suite_names() -> list[str]:
    """Names of the suites shipped with randqa."""
    return sorted(p.name[:-5] for p in resources.files("randqa._suites").iterdir() if p.name.endswith(".toml"))


def load_suite(name_or_path: str, tests: str | None = None) -> Suite:
    """Load a shipped suite by name, or a suite file by path; ``tests``
    (``--tests a,b``) keeps only the named tests."""
    suite = _load(name_or_path)
    if tests is None:
        return suite
    names = [t.strip() for t in tests.split(",") if t.strip()]
    if not names:
        raise UsageError(f"--tests {tests!r} names no test")
    return suite.select(names)


def _load(name_or_path: str) -> Suite:
    path = Path(name_or_path)
    if path.suffix == ".toml" or path.exists() or "/" in name_or_path:
        if not path.is_file():
            raise UsageError(f"suite file {name_or_path}: not found")
        return parse_suite(path.read_bytes(), str(path))
    shipped = resources.files("randqa._suites") / f"{name_or_path}.toml"
    if not shipped.is_file():
        close = difflib.get_close_matches(name_or_path, suite_names(), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else f"; known suites: {', '.join(suite_names())}"
        raise UsageError(f"unknown suite {name_or_path!r}{hint}")
    return parse_suite(shipped.read_bytes(), name_or_path + ".toml")


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def parse_suite(data: bytes, origin: str) -> Suite:
    """Validate a suite file's contents; every problem is a SuiteError naming ``origin``."""

    def fail(problem: str) -> SuiteError:
        return SuiteError(f"suite file {origin}: {problem}")

    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise fail(f"not valid TOML: {exc}") from None
    unknown_keys = set(doc) - {"name", "description", "thresholds", "tests"}
    if unknown_keys:
        raise fail(f"unknown top-level key {sorted(unknown_keys)[0]!r}")
    name = doc.get("name", Path(origin).stem)
    if not isinstance(name, str):
        raise fail("'name' must be a string")
    try:
        thresholds = Thresholds(**doc.get("thresholds", {}))
    except (TypeError, ValueError) as exc:
        raise fail(f"bad [thresholds]: {exc}") from None
    entries = doc.get("tests")
    if not isinstance(entries, list) or not entries:
        raise fail("needs at least one [[tests]] entry")
    specs = []
    for i, entry in enumerate(entries, 1):
        if not isinstance(entry, dict) or "test" not in entry:
            raise fail(f"[[tests]] entry {i} has no 'test' key")
        params = dict(entry)
        test = params.pop("test")
        sequence_bits = params.pop("sequence_bits", None)
        if sequence_bits is not None and (not _is_int(sequence_bits) or sequence_bits <= 0 or sequence_bits % 8):
            raise fail(f"[[tests]] entry {i} ({test}): sequence_bits must be a positive multiple of 8")
        fold = None
        if "fold_low_bits" in params or "fold_word_bits" in params:
            fold = (params.pop("fold_word_bits", None), params.pop("fold_low_bits", None))
            try:
                check_folding(*fold)
            except ValueError as exc:
                raise fail(f"[[tests]] entry {i} ({test}): fold_word_bits/fold_low_bits: {exc}") from None
        if test not in available_tests():
            close = difflib.get_close_matches(str(test), available_tests(), n=1)
            raise fail(f"[[tests]] entry {i}: unknown test {test!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        defaults = parameter_defaults(accumulator_class(test))
        for key, value in params.items():
            if key not in defaults:
                raise fail(f"[[tests]] entry {i} ({test}): unknown parameter {key!r}; it takes {', '.join(defaults) or 'none'}")
            # a float is only meant where the test's own default is one (gap's alpha, say)
            if isinstance(value, float) and not isinstance(defaults[key], float):
                raise fail(f"[[tests]] entry {i} ({test}): {key} must be a whole number, not {value!r}")
        spec = TestSpec(test, params, sequence_bits, fold)
        try:
            spec.build()
        except (TypeError, ValueError) as exc:
            raise fail(f"[[tests]] entry {i} ({test}): {exc}") from None
        specs.append(spec)
    return Suite(name, str(doc.get("description", "")), thresholds, specs, origin)
