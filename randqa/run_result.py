"""What one run found out, as typed fields, and its JSON document.

A ``RunResult`` is the results of every test plus what kind of run it was:
a ``Progression`` (judged at doubling lengths), a ``SweptSeeds``, or a plain
run of one length.  A comparison adds the source's ``Speed``, its
``Predictability`` and its runtime's facts, and a ``CompareResult`` holds
the runs it compared; ``randqa test`` and the API add
``Provenance`` (the command, where and when).  ``to_json`` writes the run
document (randqa/schema/run.schema.json) and ``from_json`` reads one back:
everything that renders or inspects a result reads these fields, never the
keys a document happens to carry.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from randqa._version import __version__
from randqa.results import TestResult, Thresholds, Verdict, false_fail_bound, retest_may_be_cut, worst_verdict


@dataclass
class Progression:
    """A progressive run: judged at ``min_bytes``, twice that, ... up to
    ``max_bytes``, stopping at the first failure unless ``keep_going``."""

    min_bytes: int
    max_bytes: int
    keep_going: bool
    #: each length judged, in order: its JSON record ``{"bytes", "verdict", "elapsed_s", "tests"}``
    lengths: list[dict[str, Any]]
    #: the length at which the run first failed; None: it never did
    first_failure_bytes: int | None

    def to_json(self) -> dict[str, Any]:
        return {"progressive": {"min_bytes": self.min_bytes, "max_bytes": self.max_bytes, "keep_going": self.keep_going},
                "lengths": self.lengths, "first_failure_bytes": self.first_failure_bytes}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Progression | None":
        if "progressive" not in data:
            return None
        bounds = data["progressive"]
        return cls(min_bytes=bounds["min_bytes"], max_bytes=bounds["max_bytes"], keep_going=bounds["keep_going"],
                   lengths=list(data.get("lengths") or []), first_failure_bytes=data.get("first_failure_bytes"))


@dataclass
class SweptSeeds:
    """A seed sweep: ``seeds`` seeds from ``base_seed`` (of ``seeds_requested``),
    the first ``positions`` bytes of each."""

    seeds: int
    seeds_requested: int
    positions: int
    base_seed: int


@dataclass
class Provenance:
    """Who asked for the run, and where and when it ran (randqa._report.environment)."""

    command: str
    date: str
    platform: str
    python: str
    cpu: str


@dataclass
class Speed:
    """A compared source's speed as applications call it, measured apart
    from testing (all None for files and stdin)."""

    #: median MB/s (10**6 B/s) of the repeats
    speed_mb_s: float | None
    speed_bytes: int | None
    speed_method: str | None
    #: median MB/s of the generation alone, without the call's overhead
    generation_mb_s: float | None


@dataclass
class Predictability:
    """What randqa predict found on a compared source: the fewest observed
    bytes from which a predictor predicted the continuation exactly (None:
    none did), which predictor, and how many bytes it read."""

    predictable_from_bytes: int | None
    predictor: str | None
    predict_bytes_read: int


@dataclass
class RunResult:
    """Everything one run found out; ``to_json`` is the interchange format."""

    source: dict[str, Any]
    suite: str
    results: list[TestResult]
    bytes_tested: int
    bits_tested: int
    elapsed_s: float
    requested: int | None = None  # the --bytes limit, in `unit`s
    unit: str = "bytes"  # "bits" for --format bits
    input_ended_early: bool = False
    interrupted: bool = False
    thresholds: Thresholds = field(default_factory=Thresholds)
    progression: Progression | None = None
    seed_sweep: SweptSeeds | None = None
    #: how the run was executed (in-process or on workers, the split, resumes): the engine's record
    execution: dict[str, Any] | None = None
    provenance: Provenance | None = None
    speed: Speed | None = None
    predictability: Predictability | None = None
    #: a runtime backend's runtime: installed, version, and whether it writes the tested bytes itself
    runtime: dict[str, Any] | None = None
    #: notes beyond those the run's own facts give (``notes``)
    remarks: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> Verdict:
        return worst_verdict([r.verdict for r in self.results if r.verdict is not None])

    @property
    def is_progressive(self) -> bool:
        """Whether the run was judged at doubling lengths (``progression``)."""
        return self.progression is not None

    @property
    def first_failure_bytes(self) -> int | None:
        """Bytes read when the run first failed: the length of a progressive
        run at which it failed, or a single-length run's length when it failed;
        None when nothing failed."""
        if self.progression is not None:
            return self.progression.first_failure_bytes
        return self.bytes_tested if self.verdict == Verdict.FAIL else None

    def judged_lengths(self) -> list[dict[str, Any]]:
        """The lengths the run was judged at, as JSON records ``{"bytes",
        "tests", ...}``: a progressive run's doubling lengths, or one length."""
        if self.progression is not None and self.progression.lengths:
            return self.progression.lengths
        return [{"bytes": self.bytes_tested, "tests": [r.to_json() for r in self.results]}]

    def _checks_by_length(self) -> list[tuple[int, int]]:
        """(bytes, tail checks judged there) for each length judged."""
        return [(entry["bytes"], sum(TestResult.from_json(t).tail_checks() for t in entry["tests"]))
                for entry in self.judged_lengths()]

    def tail_checks(self) -> int:
        """The tail checks this run judged: over every progressive length, or of its results."""
        return sum(checks for _, checks in self._checks_by_length())

    def cut_checks(self) -> int:
        """The tail checks whose retest may be cut short: those at each length
        L whose retest block, from L and up to MAX_RETEST_FACTOR times L long,
        may end past the bytes tested (a plain run's one length, a progressive
        run's last four).  Known from the lengths alone, as where a run stops
        does not depend on its bytes; a source that goes on is counted too."""
        return int(self.false_fail_rate()["cut_checks"])

    def false_fail_rate(self) -> dict[str, Any]:
        """The chance, at most, that a good generator fails this run (the
        union bound over its checks: randqa.results.false_fail_bound), with
        what it counts."""
        by_length = self._checks_by_length()
        checks = sum(n for _, n in by_length)
        cut = sum(n for length, n in by_length if retest_may_be_cut(length, self.bytes_tested))
        return {"at_most": false_fail_bound(checks, self.thresholds, cut), "tail_checks": checks, "cut_checks": cut}

    @property
    def notes(self) -> list[str]:
        notes = []
        if self.input_ended_early:
            got = self.bits_tested if self.unit == "bits" else self.bytes_tested
            notes.append(f"input ended after {got} {self.unit}, before the {self.requested} requested; tested what arrived")
        if self.interrupted:
            notes.append(f"interrupted: results cover the first {self.bytes_tested} bytes only")
        return notes + self.remarks

    def to_json(self) -> dict[str, Any]:
        """The run document (randqa/schema/run.schema.json; a compared run's in compare.schema.json)."""
        data = {
            "randqa_version": __version__,
            "source": self.source,
            "suite": self.suite,
            "bytes_tested": self.bytes_tested,
            "bits_tested": self.bits_tested,
            f"{self.unit}_requested": self.requested,
            "input_ended_early": self.input_ended_early,
            "interrupted": self.interrupted,
            "verdict": self.verdict,
            "elapsed_s": round(self.elapsed_s, 6),
            "thresholds": self.thresholds.to_json(),
            "notes": self.notes,
            "tests": [r.to_json() for r in self.results],
        }
        if self.progression is not None:
            data.update(self.progression.to_json())
        if self.seed_sweep is not None:
            data["seed_sweep"] = asdict(self.seed_sweep)
        if self.execution is not None:
            data["execution"] = self.execution
        if self.provenance is not None:
            data.update(asdict(self.provenance))
        data["false_fail_rate"] = self.false_fail_rate()
        for part in (self.speed, self.predictability):
            if part is not None:
                data.update(asdict(part))
        if self.runtime is not None:
            data["runtime"] = self.runtime
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "RunResult":
        """The run a run document (or a compare document's run) describes: ``to_json``'s inverse."""
        unit = "bits" if "bits_requested" in data else "bytes"
        tested = data.get("bytes_tested", 0)
        run = cls(source=data["source"], suite=data.get("suite", ""),
                  results=[TestResult.from_json(t) for t in data.get("tests", [])],
                  bytes_tested=tested, bits_tested=data.get("bits_tested", 8 * tested),
                  elapsed_s=data.get("elapsed_s") or 0.0, requested=data.get(f"{unit}_requested"), unit=unit,
                  input_ended_early=data.get("input_ended_early", False), interrupted=data.get("interrupted", False),
                  progression=Progression.from_json(data), execution=data.get("execution"),
                  runtime=data.get("runtime"))
        if "thresholds" in data:
            run.thresholds = Thresholds(**data["thresholds"])
        run.seed_sweep = _part(SweptSeeds, data.get("seed_sweep") or {})
        run.provenance, run.speed = _part(Provenance, data), _part(Speed, data)
        run.predictability = _part(Predictability, data)
        stated = list(data.get("notes", []))
        own = run.notes
        run.remarks = stated[len(own):] if stated[:len(own)] == own else stated
        return run



#: the keys of a compare document besides its environment's (``CompareResult.to_json``)
_COMPARE_KEYS = ("randqa_version", "kind", "command", "suite", "bytes_requested", "progressive", "speed_repeats",
                 "elapsed_s", "interrupted", "runs")


@dataclass
class CompareResult:
    """A comparison: every source's run, with its speed, and how the
    comparison was asked for; ``to_json`` writes the compare document
    (randqa/schema/compare.schema.json), ``from_json`` reads one back."""

    command: str
    #: where and when it ran: date, platform, python, cpu (randqa._report.environment)
    environment: dict[str, Any]
    suite: str
    #: bytes one generator's test reads at most (a file: up to this)
    bytes_requested: int
    progressive: bool
    #: timed repeats of each generator's speed, whose median is its MB/s
    speed_repeats: int
    elapsed_s: float
    #: whether Ctrl-C ended it before every source was tested
    interrupted: bool = False
    runs: list[RunResult] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The compare document."""
        return {
            "randqa_version": __version__,
            "kind": "compare",
            "command": self.command,
            **self.environment,
            "suite": self.suite,
            "bytes_requested": self.bytes_requested,
            "progressive": self.progressive,
            "speed_repeats": self.speed_repeats,
            "elapsed_s": round(self.elapsed_s, 3),
            "interrupted": self.interrupted,
            "runs": [run.to_json() for run in self.runs],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "CompareResult":
        """The comparison a compare document describes: ``to_json``'s inverse."""
        return cls(command=data.get("command", ""),
                   environment={key: value for key, value in data.items() if key not in _COMPARE_KEYS},
                   suite=data.get("suite", ""), bytes_requested=data.get("bytes_requested", 0),
                   progressive=data.get("progressive", False), speed_repeats=data.get("speed_repeats", 0),
                   elapsed_s=data.get("elapsed_s") or 0.0, interrupted=data.get("interrupted", False),
                   runs=[RunResult.from_json(run) for run in data.get("runs", [])])

def _part(kind: type, data: dict[str, Any]) -> Any:
    """The ``kind`` record whose fields are keys of ``data``; None when the first is missing."""
    names = [f.name for f in fields(kind)]
    if names[0] not in data:
        return None
    return kind(**{name: data.get(name) for name in names})
