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
randqa/battery/_folding.py).  ``sample_every = N`` (with ``sample_dense_mib
= M``, default 0) runs it on the stream's first M MiB and then on one MiB
in every N only, for speed (randqa/battery/_sampling.py).

``include = "NAME"`` (a top-level key) starts a suite with the entries of
the shipped suite NAME, and its thresholds unless the file gives its own;
the file's own entries follow (suites/deep.toml is standard.toml and more).

``--suite NAME`` loads ``suites/NAME.toml``; ``--suite PATH`` loads a file.

Every value is checked before any test is built: its kind, and its range
(each test's ``parameter_ranges``), so that no accepted suite can overflow a
kernel or allocate without limit; ``check_memory`` then sums what the
entries state they need (``Accumulator.memory_need``) against a limit.
Every problem is one line naming the file and the entry.
"""

from __future__ import annotations

import difflib
import math
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from randqa.battery import Accumulator, accumulator_class, available_tests, parameter_defaults
from randqa.battery._folding import FoldedTest, share_folds
from randqa.battery._sampling import SEGMENT_BYTES, SampledTest, check_sampling
from randqa.battery._sequences import PerSequence
from randqa.battery._streams import PAIR_SUITE, StreamViews, stream_pairs
from randqa.battery._sharing import share_statistics
from randqa.battery.base import OBJECT_BYTES, RESULT_BYTES, MemoryNeed, Range
from randqa.errors import SuiteError, UsageError
from randqa.files import shown_path
from randqa.folding import check_folding
from randqa.results import Thresholds
from randqa.sizes import MAX_SIZE, format_size

DEFAULT_SUITE = "standard"
#: the package that suites/ is installed as (pyproject.toml's package-dir)
SHIPPED_SUITES = "randqa._suites"
#: the largest suite file read (the shipped ones are a few KiB)
MAX_SUITE_FILE_BYTES = 1 << 20


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
    #: (every, dense_mib): test the first dense_mib MiB, then one MiB in every ``every``
    sample: tuple[int, int] | None = None
    #: the entry's place in its suite file (1 for the first [[tests]]), for messages
    entry: int = 0
    #: "[length=65536]" after the test's name in its results' names, when an
    #: earlier entry of the same test gives results of the same names
    name_suffix: str = ""

    def build(self) -> Accumulator:
        cls = accumulator_class(self.test)

        def make() -> Accumulator:
            inner = cls(**self.params)
            if self.name_suffix:
                inner.name = inner.name + self.name_suffix  # type: ignore[misc]
            if self.fold is not None:
                inner = FoldedTest(inner, word_bits=self.fold[0], low_bits=self.fold[1])
            if self.sample is not None:
                inner = SampledTest(inner, every=self.sample[0], dense_bytes=self.sample[1] << 20)
            return inner

        if self.sequence_bits is None:
            return make()
        return PerSequence(make, self.sequence_bits, self.params)

    def memory_need(self, chunk_bytes: int) -> MemoryNeed:
        """What ``build()`` will take when fed chunks of ``chunk_bytes``: the
        test's own statement, through folding and per-sequence testing."""
        cls = accumulator_class(self.test)
        chunk, stream_bits = chunk_bytes, self.sequence_bits
        if self.sequence_bits is not None:
            chunk = min(chunk, self.sequence_bits // 8)  # a sequence's accumulator sees no more
        if self.sample is not None and not self.sample[1]:
            chunk = min(chunk, SEGMENT_BYTES)  # a sampled entry's pieces are at most a segment after its head
        if self.fold is None:
            need = cls.memory_need(chunk, stream_bits, **self.params)
        else:
            word_bits, low_bits = self.fold
            folded = chunk * low_bits // word_bits + 1
            inner = cls.memory_need(folded, None if stream_bits is None else stream_bits * low_bits // word_bits + 8,
                                    **self.params)
            # the unfinished word and its carry, and each chunk's packed low
            # bits (twice when a word straddles chunks: the pieces, joined);
            # the fold kept for the entries that fold alike is the suite's (fold_memo_bytes)
            need = MemoryNeed(inner.held + OBJECT_BYTES, inner.working + 2 * folded, inner.results)
        if self.sequence_bits is not None:
            # the next sequence's accumulator is built while the last one is
            # still held; the first sequence's results and per-result summaries
            need = MemoryNeed(2 * need.held + 2 * need.results * RESULT_BYTES + OBJECT_BYTES, need.working, need.results)
        return need


    def to_json(self) -> dict[str, Any]:
        """The entry as data (checkpoints, workers): enough to build it again (:func:`spec_from_json`)."""
        return {"test": self.test, "params": self.params, "sequence_bits": self.sequence_bits,
                "fold": list(self.fold) if self.fold else None, "sample": list(self.sample) if self.sample else None}


@dataclass
class StreamViewsSpec(TestSpec):
    """The entry that runs ``members`` on each of ``streams`` streams
    interleaved every ``interleave`` bytes, and ``pair_members`` on the XOR
    of each pair of ``pairs`` (randqa/battery/_streams.py)."""

    streams: int = 2
    interleave: int = 1
    members: list[TestSpec] = field(default_factory=list)
    pairs: list[tuple[int, int]] = field(default_factory=list)
    pair_members: list[TestSpec] = field(default_factory=list)

    def build(self) -> Accumulator:
        def tests(specs: list[TestSpec]) -> list[Accumulator]:
            built = [spec.build() for spec in specs]
            share_statistics(built)
            share_folds(built)
            return built

        return StreamViews([tests(self.members) for _ in range(self.streams)],
                           [tests(self.pair_members) for _ in self.pairs],
                           streams=self.streams, interleave=self.interleave, pairs=self.pairs)

    def memory_need(self, chunk_bytes: int) -> MemoryNeed:
        # every stream's bytes of a chunk, those beyond the last stream's
        # joined to them, and each pair's XOR while its tests read it
        view = chunk_bytes // self.streams + self.interleave
        alone = [spec.memory_need(view) for spec in self.members]
        paired = [spec.memory_need(view) for spec in self.pair_members] if self.pairs else []
        held = (self.streams * sum(n.held for n in alone) + len(self.pairs) * sum(n.held for n in paired)
                + OBJECT_BYTES + self.streams * self.interleave
                # each stream's and each pair's tests fold alike apart (share_folds)
                + self.streams * fold_memo_bytes(self.members, view)
                + len(self.pairs) * fold_memo_bytes(self.pair_members, view))
        copies = (2 * self.streams + len(self.pairs) if self.pairs else self.streams) * view
        return MemoryNeed(held, max(n.working for n in alone + paired) + copies,
                          self.streams * sum(n.results for n in alone) + len(self.pairs) * sum(n.results for n in paired))

    def to_json(self) -> dict[str, Any]:
        return {"test": self.test, "streams": {"count": self.streams, "interleave": self.interleave,
                                               "pairs": [list(p) for p in self.pairs]},
                "members": [spec.to_json() for spec in self.members],
                "pair_members": [spec.to_json() for spec in self.pair_members]}


def spec_from_json(data: dict[str, Any]) -> TestSpec:
    """The entry of :meth:`TestSpec.to_json`; KeyError or TypeError when ``data`` is not one."""
    if "streams" in data:
        streams = data["streams"]
        return StreamViewsSpec(data["test"], streams=streams["count"], interleave=streams["interleave"],
                               members=[spec_from_json(m) for m in data["members"]],
                               pairs=[(i, j) for i, j in streams["pairs"]],
                               pair_members=[spec_from_json(m) for m in data["pair_members"]])
    return TestSpec(data["test"], dict(data["params"]), data["sequence_bits"],
                    tuple(data["fold"]) if data["fold"] else None,
                    tuple(data["sample"]) if data["sample"] else None)


@dataclass
class Suite:
    name: str
    description: str
    thresholds: Thresholds
    tests: list[TestSpec]
    path: str

    def build(self) -> list[Accumulator]:
        """Fresh accumulators, one per entry; entries that finalise from the
        same counts share them (randqa/battery/_sharing.py), so keep the list
        together: merge lists element by element, pickle the whole list."""
        accumulators = [spec.build() for spec in self.tests]
        share_statistics(accumulators)
        share_folds(accumulators)
        return accumulators

    def select(self, names: list[str]) -> "Suite":
        """The same suite restricted to the named tests (``--tests a,b``)."""
        known = {spec.test for spec in self.tests}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise UsageError(f"suite {self.name!r} has no test {unknown[0]!r}; it has: {', '.join(sorted(known))}")
        kept = [spec for spec in self.tests if spec.test in names]
        return Suite(self.name, self.description, self.thresholds, kept, self.path)

    def with_streams(self, streams: int, interleave: int) -> "Suite":
        """The suite for ``streams`` streams interleaved every ``interleave``
        bytes: its entries on the interleaved stream, all of them again on
        each stream alone, and the ``quick`` suite's on each pair's XOR
        (randqa/battery/_streams.py)."""
        views = StreamViewsSpec("streams alone and paired", streams=streams, interleave=interleave, members=self.tests,
                                pairs=stream_pairs(streams), pair_members=load_suite(PAIR_SUITE).tests)
        return Suite(self.name, self.description, self.thresholds, self.tests + [views], self.path)

    @property
    def sequence_bytes(self) -> int | None:
        """Bytes per sequence when the suite tests sequences (the largest), else None."""
        sizes = [spec.sequence_bits // 8 for spec in self.tests if spec.sequence_bits]
        return max(sizes) if sizes else None


def suite_names() -> list[str]:
    """Names of the suites shipped with randqa."""
    return sorted(p.name[:-5] for p in resources.files(SHIPPED_SUITES).iterdir() if p.name.endswith(".toml"))


def load_suite(name_or_path: str, tests: str | None = None, max_memory: int | None = None) -> Suite:
    """Load a shipped suite by name, or a suite file by path; ``tests``
    (``--tests a,b``) keeps only the named tests; an entry that would hold
    more than ``max_memory`` bytes is refused before it is built."""
    suite = _load(name_or_path, max_memory)
    if tests is None:
        return suite
    names = [t.strip() for t in tests.split(",") if t.strip()]
    if not names:
        raise UsageError(f"--tests {tests!r} names no test")
    return suite.select(names)


def _load(name_or_path: str, max_memory: int | None) -> Suite:
    path = Path(name_or_path)
    if path.suffix == ".toml" or path.exists() or "/" in name_or_path:
        shown = shown_path(name_or_path)  # every message names the file on one line
        if path.is_dir():
            raise UsageError(f"suite file {shown}: is a directory")
        if path.exists() and not path.is_file():
            raise UsageError(f"suite file {shown}: not a regular file (a device or a pipe); a suite is a TOML file")
        if not path.is_file():
            raise UsageError(f"suite file {shown}: not found")
        try:
            with open(path, "rb") as f:
                data = f.read(MAX_SUITE_FILE_BYTES + 1)
        except OSError as exc:
            raise UsageError(f"suite file {shown}: cannot read ({exc.strerror or exc})") from None
        if len(data) > MAX_SUITE_FILE_BYTES:
            raise SuiteError(f"suite file {shown}: larger than {format_size(MAX_SUITE_FILE_BYTES)}; "
                             "a suite is a short list of tests")
        return parse_suite(data, shown, max_memory)
    shipped = resources.files(SHIPPED_SUITES) / f"{name_or_path}.toml"
    if not shipped.is_file():
        close = difflib.get_close_matches(name_or_path, suite_names(), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else f"; known suites: {', '.join(suite_names())}"
        raise UsageError(f"unknown suite {name_or_path!r}{hint}")
    return parse_suite(shipped.read_bytes(), name_or_path + ".toml", max_memory)


def _included_document(doc: dict[str, Any], fail: Any) -> dict[str, Any]:
    """The parsed shipped suite that ``doc``'s ``include`` names ({} without one)."""
    if "include" not in doc:
        return {}
    included = doc["include"]
    if not isinstance(included, str) or included not in suite_names():
        raise fail(f"include must name a shipped suite ({', '.join(suite_names())}), not {_shown(included)}")
    base = tomllib.loads((resources.files(SHIPPED_SUITES) / f"{included}.toml").read_text("utf-8"))
    if "include" in base:  # one level keeps every entry's origin plain to see
        raise fail(f"include names {included!r}, which itself includes a suite")
    return base


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _in_range(value: Any, bounds: Range, whole: bool) -> str | None:
    """Why a single value is outside ``bounds`` (None if it is inside)."""
    if bounds.text:
        if not isinstance(value, str):
            return f"must be a string, not {_shown(value)}"
        if not bounds.low <= len(value) <= bounds.high:
            return f"must be {bounds.low} to {bounds.high} characters long, not {len(value)}"
        return None
    if whole and not _is_int(value):
        return f"must be a whole number, not {_shown(value)}"
    if not (_is_int(value) or isinstance(value, float)) or (isinstance(value, float) and not math.isfinite(value)):
        return f"must be a number, not {_shown(value)}"
    if not bounds.low <= value <= bounds.high:
        return f"must be from {_bound(bounds.low)} to {_bound(bounds.high)}, not {_shown(value)}"
    return None


def _check_value(key: str, value: Any, bounds: Range, default: Any) -> str | None:
    """Why ``value`` is no fit for parameter ``key`` (None if it fits)."""
    whole = not (isinstance(bounds.low, float) or isinstance(bounds.high, float) or isinstance(default, float))
    if bounds.items is None:
        problem = _in_range(value, bounds, whole)
        return None if problem is None else f"{key} {problem}"
    if not isinstance(value, list):
        return f"{key} must be a list, not {_shown(value)}"
    if not 1 <= len(value) <= bounds.items:
        return f"{key} must list 1 to {bounds.items} values, not {len(value)}"
    for item in value:
        problem = _in_range(item, bounds, whole)
        if problem is not None:
            return f"every value of {key} {problem}"
    return None


def _bound(x: int | float) -> str:
    if _is_int(x) and x >= 1 << 16 and x & (x - 1) == 0:
        return f"2^{x.bit_length() - 1}"
    return f"{x:,}" if _is_int(x) else f"{x:g}"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def parse_suite(data: bytes, origin: str, max_memory: int | None = None) -> Suite:
    """Validate a suite file's contents; every problem is a SuiteError naming
    ``origin``.  Each entry is built once to check what only its test can
    check, after its values are in range and, with ``max_memory``, after
    what it holds is known to fit."""

    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SuiteError(f"suite file {origin}: not valid TOML: {exc}") from None
    return suite_from_document(doc, origin, max_memory)


def suite_from_document(doc: dict[str, Any], origin: str, max_memory: int | None = None,
                        what: str = "suite file") -> Suite:
    """The suite of a parsed suite file (or the same data from elsewhere: a
    checkpoint), checked as :func:`parse_suite` checks a file; every problem
    is a SuiteError naming ``what`` and ``origin``."""

    def fail(problem: str) -> SuiteError:
        return SuiteError(f"{what} {origin}: {problem}")

    if not isinstance(doc, dict):
        raise fail("not a table of keys and values")
    unknown_keys = set(doc) - {"name", "description", "include", "thresholds", "tests"}
    if unknown_keys:
        raise fail(f"unknown top-level key {sorted(unknown_keys)[0]!r}")
    name = doc.get("name", Path(origin).stem)
    if not isinstance(name, str):
        raise fail("'name' must be a string")
    base = _included_document(doc, fail)
    try:
        thresholds = Thresholds(**doc.get("thresholds", base.get("thresholds", {})))
    except (TypeError, ValueError) as exc:
        raise fail(f"bad [thresholds]: {exc}") from None
    entries = doc.get("tests", [])
    if not isinstance(entries, list) or not (entries or base):
        raise fail("needs at least one [[tests]] entry")
    included = base.get("tests", [])
    entries = included + entries
    specs: list[TestSpec] = []
    named: list[tuple[TestSpec, set[str]]] = []  # each entry with its results' names
    for i, entry in enumerate(entries, 1):
        where = (f"[[tests]] entry {i - len(included)}" if i > len(included)
                 else f"{doc['include']}'s [[tests]] entry {i}")
        if not isinstance(entry, dict) or "test" not in entry:
            raise fail(f"{where} has no 'test' key")
        params = dict(entry)
        test = params.pop("test")
        # first: every later message names the test, which must then be one of ours (a name
        # with a newline would break the one-line error)
        if test not in available_tests():
            close = difflib.get_close_matches(str(test), available_tests(), n=1)
            raise fail(f"{where}: unknown test {test!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        sequence_bits = params.pop("sequence_bits", None)
        if sequence_bits is not None and (not _is_int(sequence_bits) or not 8 <= sequence_bits <= MAX_SIZE
                                          or sequence_bits % 8):
            raise fail(f"{where} ({test}): sequence_bits must be a positive multiple of 8, at most 2^62")
        fold = None
        if "fold_low_bits" in params or "fold_word_bits" in params:
            fold = (params.pop("fold_word_bits", None), params.pop("fold_low_bits", None))
            try:
                check_folding(*fold)
            except ValueError as exc:
                raise fail(f"{where} ({test}): fold_word_bits/fold_low_bits: {exc}") from None
        sample = None
        if "sample_every" in params or "sample_dense_mib" in params:
            sample = (params.pop("sample_every", None), params.pop("sample_dense_mib", 0))
            try:
                check_sampling(*sample)
            except ValueError as exc:
                raise fail(f"{where} ({test}): {exc}") from None
        cls = accumulator_class(test)
        defaults = parameter_defaults(cls)
        for key, value in params.items():
            if key not in defaults:
                raise fail(f"{where} ({test}): unknown parameter {key!r}; it takes {', '.join(defaults) or 'none'}")
            # a float is only meant where the test's own default is one (gap's alpha, say)
            if isinstance(value, float) and not isinstance(defaults[key], float):
                raise fail(f"{where} ({test}): {key} must be a whole number, not {value!r}")
            bounds = cls.parameter_ranges.get(key)
            if bounds is None:
                raise fail(f"{where} ({test}): {key} cannot be set in a suite file")
            problem = _check_value(key, value, bounds, defaults[key])
            if problem is not None:
                raise fail(f"{where} ({test}): {problem}")
        spec = TestSpec(test, params, sequence_bits, fold, sample, i)
        if max_memory is not None:
            held = spec.memory_need(1).held
            if held > max_memory:
                raise fail(f"{where} ({test}) needs {format_size(held, approximate=True)} of memory, "
                           f"over --max-memory {format_size(max_memory, approximate=True)}")
        try:
            built = spec.build()
        except (TypeError, ValueError, OverflowError) as exc:
            raise fail(f"{where} ({test}): {exc}") from None
        names = _result_names(built)
        _tell_apart(spec, names, named)
        named.append((spec, names))
        specs.append(spec)
    return Suite(name, str(doc.get("description", "")), thresholds, specs, origin)


def _result_names(accumulator: Accumulator) -> set[str]:
    """The names of the results a fresh accumulator gives (all insufficient:
    it has seen no data); none when it cannot finalise without data."""
    try:
        return {r.name for r in accumulator.finalize()}
    except (ArithmeticError, ValueError, IndexError):
        return set()


def _tell_apart(spec: TestSpec, names: set[str], earlier: list[tuple[TestSpec, set[str]]]) -> None:
    """Give ``spec`` a name suffix when an earlier entry of the same test gives
    results of the same ``names`` (the standard suite's two 32-bit
    ``bit_linear_complexity`` entries both give ``[bit=0/32]``): its first
    single parameter whose value no such entry shares, ``[length=65536]``."""
    clashing = [e for e, their_names in earlier if e.test == spec.test and their_names & names]
    if not clashing:
        return
    defaults = parameter_defaults(accumulator_class(spec.test))
    for key, value in spec.params.items():
        if isinstance(value, (int, float, str)) and all(e.params.get(key, defaults[key]) != value for e in clashing):
            spec.name_suffix = f"[{key}={value}]"
            return
    spec.name_suffix = f"[entry={spec.entry}]"


def fold_memo_bytes(specs: list[TestSpec], chunk_bytes: int) -> int:
    """What the suite's fold memos keep between its entries' updates
    (randqa/battery/_folding.py, ``share_folds``): one chunk's fold for each
    folding (and sampling) that two or more entries use.  Not state: a checkpoint or a
    segment does not carry it."""
    uses = Counter((spec.fold, spec.sample) for spec in specs if isinstance(spec, TestSpec) and spec.fold is not None)
    return sum(chunk_bytes * low_bits // word_bits + 1 for ((word_bits, low_bits), _), n in uses.items() if n > 1)


def check_memory(suite: Suite, limit: int, *, chunk_bytes: int, other_bytes: int = 0, jobs: int = 1,
                 lengths: int = 1, option: str = "--max-memory") -> int:
    """The memory a run of ``suite`` takes (bytes): what every entry holds,
    the temporaries of the ``jobs`` updates that may run at once, the
    results of ``lengths`` progressive lengths, and ``other_bytes`` (read
    buffers).  Over ``limit``, a SuiteError names the file, the entry that
    needs the most and the figures, before anything is allocated."""
    needs = [(spec, spec.memory_need(chunk_bytes)) for spec in suite.tests]
    held = sum(need.held + lengths * need.results * RESULT_BYTES for _, need in needs)
    total = (other_bytes + held + fold_memo_bytes(suite.tests, chunk_bytes)
             + jobs * max(need.working for _, need in needs))
    if total <= limit:
        return total
    spec, need = max(needs, key=lambda pair: pair[1].peak + lengths * pair[1].results * RESULT_BYTES)
    where = f"[[tests]] entry {spec.entry} ({spec.test})" if spec.entry else f"test {spec.test}"
    whole = f", {format_size(total, approximate=True)} for the whole run" if len(needs) > 1 else ""
    raise SuiteError(f"suite file {suite.path}: {where} needs {format_size(need.peak, approximate=True)} of memory{whole}, "
                     f"over {option} {format_size(limit, approximate=True)}")
