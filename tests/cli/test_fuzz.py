"""Fuzzing the two inputs a user hands randqa as files: suite files (random
tables, keys, value types and sizes, around every test's real parameters)
and `randqa report` documents (valid results with parts replaced, removed
or added, random JSON, random bytes).  No input may produce a traceback,
an exit code other than 0, 1 or 2 (`report`: 0 or 2), more than one line
on stderr for an error, or a peak memory (the child's max RSS) above the
declared limit: ``--max-memory`` for `test`, the same 64 MiB for `report`'s
small documents, plus the server's own size.

Source: property-based testing with Hypothesis (MacIver et al., JOSS 2019).
Each example runs `randqa.cli.main` in a child forked from a server that has
imported everything once, so an example costs milliseconds, memory is that
one child's (wait4), and no example's caches leak into the next.  Minimum
data: 4 KiB per `test` run (what is fuzzed is the input files, not the
statistics).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from randqa.battery import accumulator_class, available_tests, parameter_defaults  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or not sys.platform.startswith("linux"),
                                reason="forks children and reads /proc")

MIB = 1 << 20
LIMIT = 64 * MIB
#: Python's objects and arenas of one run beyond what --max-memory counts
NOISE = 24 * MIB
EXAMPLE_SECONDS = 60

SERVER = r'''
import json, os, signal, sys, traceback
from randqa.cli import main
from randqa.battery import accumulator_class, available_tests
for name in available_tests():
    accumulator_class(name)  # every test module imported once, before any fork
import randqa.report.html, randqa.report.charts, scipy.fft, scipy.stats, scipy.special, matplotlib.pyplot

def rss():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS"))

print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    sys.stdout.flush(); sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 98
        try:
            for fd, path in ((1, request["out"]), (2, request["err"])):
                os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), fd)
            os.chdir(request["cwd"])
            with open(request["start"], "w") as f:
                f.write(str(rss()))  # a fork shares the server's pages: its own size starts here
            signal.alarm(request["seconds"])
            try:
                main(request["args"])
                code = 0
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 97)
            except BaseException:
                traceback.print_exc()
                code = 99
            sys.stdout.flush(); sys.stderr.flush()
        finally:
            os._exit(code)
    _, status, usage = os.wait4(pid, 0)
    print(json.dumps({"code": os.waitstatus_to_exitcode(status), "max_rss": usage.ru_maxrss * 1024}), flush=True)
'''


class ForkServer:
    """A Python process that has imported randqa and forks one child per request."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "RANDQA_DEBUG": ""}
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env)
        assert json.loads(self.proc.stdout.readline())["ready"]

    def run(self, args: list[str]) -> dict:
        out, err, start = self.workdir / "out", self.workdir / "err", self.workdir / "start"
        start.write_text("0")
        request = {"args": args, "out": str(out), "err": str(err), "start": str(start), "cwd": str(self.workdir),
                   "seconds": EXAMPLE_SECONDS}
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        reply["base"] = int(start.read_text())
        reply["out"] = out.read_text(errors="replace")
        reply["err"] = err.read_text(errors="replace")
        return reply

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    started = ForkServer(tmp_path_factory.mktemp("fuzz"))
    yield started
    started.close()


def check(reply: dict, codes: tuple[int, ...], limit: int) -> None:
    err = reply["err"]
    assert reply["code"] in codes, f"exit {reply['code']}:\n{err}"
    assert "Traceback" not in err, err
    if reply["code"] == 2:
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("randqa: error: "), err
        assert "No such option" not in err, err  # the command line is fixed: only the input may be wrong
    grown = reply["max_rss"] - reply["base"]
    assert grown <= limit + NOISE, f"the child grew {grown >> 20} MiB from its {reply['base'] >> 20} MiB at the start"


# ------------------------------------------------------------------ suites

SIZES = [0, 1, 2, 7, 8, 9, 16, 20, 21, 24, 25, 31, 63, 64, 65, 100, 4096, 65536, 100_000, 2**20, 2**24, 2**26,
         2**30, 2**33, 2**34, 2**62, 2**63 - 1, 10**18, -1, -(2**63)]

texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20)  # TOML cannot escape surrogates
numbers = st.one_of(st.sampled_from(SIZES), st.integers(-10, 300), st.integers(-(2**64), 2**64),
                    st.floats(allow_nan=True, allow_infinity=True), st.booleans())
bit_strings = st.text(alphabet="01", min_size=0, max_size=30)
scalars = st.one_of(numbers, bit_strings, st.sampled_from(["exact", "sts", ""]), texts)
values = st.one_of(scalars, st.lists(scalars, max_size=70), st.dictionaries(texts, scalars, max_size=3))


def near(bounds) -> st.SearchStrategy:
    """Values around a parameter's range: inside, on and just past its bounds."""
    if bounds.text:
        one = st.text(alphabet="01", min_size=max(0, int(bounds.low) - 1), max_size=int(bounds.high) + 1)
        one = st.one_of(one, st.sampled_from(["exact", "sts"]))
    elif isinstance(bounds.low, float) or isinstance(bounds.high, float):
        one = st.floats(bounds.low - 0.5, bounds.high + 0.5)
    else:
        low, high = int(bounds.low), int(bounds.high)
        one = st.one_of(st.sampled_from([low, high, low - 1, high + 1]), st.integers(low, min(high, low + 64)),
                        st.integers(low, high))
    return st.lists(one, min_size=0, max_size=(bounds.items or 0) + 2) if bounds.items else one


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # JSON's escapes are TOML's basic string escapes
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


@st.composite
def suite_entries(draw) -> dict:
    test = draw(st.sampled_from(available_tests())) if draw(st.integers(0, 19)) else draw(scalars)
    cls = accumulator_class(test) if test in available_tests() else None
    names = list(parameter_defaults(cls)) if cls else []
    keys = draw(st.lists(st.one_of(st.sampled_from(names or ["x"]),
                                   st.sampled_from(["sequence_bits", "fold_word_bits", "fold_low_bits"]),
                                   st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8)),
                         max_size=4, unique=True).filter(lambda ks: "test" not in ks))
    entry = {"test": test}
    for key in keys:
        kind = draw(st.integers(0, 9))
        ranges = getattr(cls, "parameter_ranges", {})
        if key in ranges and kind < 6:
            entry[key] = draw(near(ranges[key]))
        elif key == "sequence_bits" and kind < 6:
            entry[key] = draw(st.one_of(st.sampled_from([8, 64, 1024, 1_000_000, 2**40, 2**62]), st.integers(0, 4096)))
        elif key.startswith("fold_") and kind < 6:
            entry[key] = draw(st.sampled_from([1, 2, 4, 8, 16, 32, 64, 0, 65]))
        else:
            entry[key] = draw(values if kind < 9 else numbers)
    return entry


@st.composite
def suite_files(draw) -> bytes:
    if draw(st.integers(0, 19)) == 0:
        return draw(st.binary(max_size=200))  # not TOML, or not UTF-8, at all
    lines = []
    if draw(st.booleans()):
        name = draw(st.text(alphabet="abcdefghij-", min_size=1, max_size=10)) if draw(st.integers(0, 9)) else draw(scalars)
        lines.append(f"name = {toml_value(name)}")
    kind = draw(st.integers(0, 19))
    if kind == 0:
        lines.append(f"thresholds = {toml_value(draw(values))}")
    elif kind == 1:
        lines.append(f"thresholds = {toml_value({'suspicious': draw(numbers), 'fail': draw(numbers)})}")
    if draw(st.integers(0, 19)) == 0:
        lines.append(f"{draw(st.sampled_from(['tests', 'extra', 'description']))} = {toml_value(draw(values))}")
    for entry in draw(st.lists(suite_entries(), min_size=0 if draw(st.integers(0, 19)) == 0 else 1, max_size=4)):
        lines.append("[[tests]]")
        lines += [f"{json.dumps(k)} = {toml_value(v)}" for k, v in entry.items()]
    return ("\n".join(lines) + "\n").encode()


@settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(suite=suite_files(), jobs=st.sampled_from(["1", "2"]))
def test_any_suite_file_is_a_run_or_one_line(server, suite, jobs):
    (server.workdir / "fuzz.toml").write_bytes(suite)
    reply = server.run(["test", "pcg64", "-n", "4K", "--seed", "1", "--suite", "fuzz.toml", "-j", jobs,
                        "--max-memory", str(LIMIT)])
    check(reply, (0, 1, 2), LIMIT)


# ------------------------------------------------------------------ reports

#: text that matplotlib would read as mathtext, some of it invalid TeX
MATHTEXT = ["$x$", "a$b", r"$\bad{$", "$^$", r"gen$\frac{1}{$"]

json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False, allow_infinity=False),
              st.text(max_size=30), st.sampled_from(MATHTEXT)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)),
    max_leaves=12)


def _paths(value, prefix=()):
    """Every path (a tuple of keys and indices) into a JSON value."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, prefix + (index,))


def _replace(value, path, new):
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _replace(value[path[0]], path[1:], new)
    return copy


def _delete(value, path):
    if len(path) == 1:
        copy = dict(value) if isinstance(value, dict) else list(value)
        del copy[path[0]]
        return copy
    return _replace(value, path[:1], _delete(value[path[0]], path[1:]))


@pytest.fixture(scope="module")
def valid_documents(server) -> list[dict]:
    documents = []
    for args in (["test", "pcg64", "-n", "64K", "--seed", "1", "--suite", "quick", "--json", "run.json"],
                 ["test", "pcg64", "--progressive", "--max", "16K", "--seed", "1", "--suite", "quick",
                  "--json", "run.json"],
                 ["compare", "pcg64", "minstd", "-n", "16K", "--seed", "1", "--suite", "quick", "--speed-repeats", "1",
                  "--no-html", "--json", "run.json"]):
        reply = server.run(args)
        assert reply["code"] in (0, 1), reply["err"]
        documents.append(json.loads((server.workdir / "run.json").read_text()))
    return documents


@st.composite
def report_inputs(draw, documents: list[dict]) -> bytes:
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(st.binary(max_size=300))
    if kind == 1:
        return json.dumps(draw(json_values)).encode()
    if kind == 2:
        depth = draw(st.sampled_from([100_000, 5000, 10]))
        return (draw(st.sampled_from(["[", "{\"a\":"])) * depth).encode()
    document = draw(st.sampled_from(documents))
    if kind in (3, 4):  # a generator's name, which the speed chart draws (as TeX, unless told not to)
        document = next(d for d in documents if d.get("kind") == "compare")
        run = draw(st.integers(0, len(document["runs"]) - 1))
        return json.dumps(_replace(document, ("runs", run, "source", "name"), draw(st.sampled_from(MATHTEXT)))).encode()
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(document))
        path = draw(st.sampled_from(paths))
        action = draw(st.integers(0, 2))
        if action == 0 or not path:
            document = _replace(document, path, draw(json_values))
        elif action == 1:
            document = _delete(document, path)
        elif isinstance(document, dict):
            document = _replace(document, (), {**document, draw(st.text(max_size=8)): draw(json_values)})
    special = draw(st.sampled_from([None] * 9 + [float("nan"), float("inf"), -1e309]))
    if special is not None and isinstance(document, dict):
        document = {**document, "elapsed_s": special}
    return json.dumps(document, allow_nan=True).encode()


@settings(max_examples=50, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_any_report_input_is_a_report_or_one_line(server, valid_documents, data):
    (server.workdir / "fuzz.json").write_bytes(data.draw(report_inputs(valid_documents)))
    reply = server.run(["report", "fuzz.json", "-o", "fuzz.html"])
    check(reply, (0, 2), LIMIT)
