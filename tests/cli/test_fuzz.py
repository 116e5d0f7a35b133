"""Fuzzing the inputs a user hands randqa as files or addresses: suite files
(random tables, keys, value types and sizes, around every test's real
parameters), `randqa report` documents (valid results with parts replaced,
removed or added, random JSON, random bytes), checkpoints for `randqa
resume` (metadata fields replaced, removed or added, `$object` class
names, arrays of other shapes and kinds, npy headers declaring other sizes,
members that inflate to 64 MiB, extra and repeated members, deep nesting,
output paths elsewhere, on devices or with control characters, the digest
made again or not, damaged bytes) and `--scheduler` addresses (schemes,
hosts, ports and suffixes, or random text, against a closed port, a silent
listener and an HTTP server, also through RANDQA_SCHEDULER).  No input may
produce a traceback, an exit code other than 0, 1 or 2 (`report`: 0 or 2;
a resumed run may also get Ctrl-C after RESUME_SECONDS, 130; an address: 2),
more than one line on stderr for an error, a peak memory (the child's max
RSS) above the declared limit (``--max-memory`` for `test`, the same 64 MiB
for `report`'s documents and `resume`'s quick-suite checkpoints, plus the
server's own size), or, for `resume`, a file written anywhere but the
checkpoint, the paths on the command line and those resume showed before
its run.  ``RANDQA_FUZZ_EXAMPLES`` raises the checkpoint and address
fuzzers' examples for a thorough run by hand.  Examples are new in every run
by hand, which is how these tests find bugs; under CI (the ``CI`` variable,
which .ci/run sets) they are the same every run, so a submission's result
does not depend on the draw, and a failure there can be reproduced.

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
import time
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from randqa.battery import accumulator_class, available_tests, parameter_defaults  # noqa: E402

settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or not sys.platform.startswith("linux"),
                                reason="forks children and reads /proc")

MIB = 1 << 20
LIMIT = 64 * MIB
#: Python's objects and arenas of one run beyond what --max-memory counts
NOISE = 24 * MIB
EXAMPLE_SECONDS = 60

SERVER = r'''
import json, os, signal, sys, threading, traceback
from randqa.cli import main
from randqa.battery import accumulator_class, available_tests
for name in available_tests():
    accumulator_class(name)  # every test module imported once, before any fork
import randqa._report.html, randqa._report.charts, scipy.fft, scipy.stats, scipy.special, matplotlib.pyplot
import distributed, randqa.engine.checkpoint, randqa.engine.parallel  # --scheduler and resume examples

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
            os.environ.update(request.get("env", {}))
            if request.get("interrupt_after"):  # Ctrl-C then: a long run stops cleanly; the alarm catches a hang
                signal.signal(signal.SIGALRM, lambda *_: os.kill(os.getpid(), signal.SIGINT))
                signal.setitimer(signal.ITIMER_REAL, request["interrupt_after"])
                threading.Timer(request["seconds"], os._exit, (96,)).start()
            else:
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

    def run(self, args: list[str], env: dict[str, str] | None = None, interrupt_after: float | None = None) -> dict:
        out, err, start = self.workdir / "out", self.workdir / "err", self.workdir / "start"
        start.write_text("0")
        request = {"args": args, "out": str(out), "err": str(err), "start": str(start), "cwd": str(self.workdir),
                   "seconds": EXAMPLE_SECONDS, "env": env or {}, "interrupt_after": interrupt_after}
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


# ------------------------------------------------------------------ checkpoints

#: examples per run of the checkpoint and scheduler fuzzers (RANDQA_FUZZ_EXAMPLES=2000 for a thorough run by hand)
FUZZ_EXAMPLES = int(os.environ.get("RANDQA_FUZZ_EXAMPLES", "0")) or None
#: seconds after which a resumed run (a forged checkpoint may ask for a long one) gets Ctrl-C
RESUME_SECONDS = 8
#: class names a forged state might give (randqa.__main__ ran the CLI when it was imported)
OBJECT_NAMES = ["randqa.__main__:X", "os:system", "builtins:object", "randqa.engine.parallel:Workers",
                "randqa.cli:main", "randqa.results:Verdict", "randqa.results:TestResult", "randqa.battery._blocks:WholeBlocks",
                "randqa.battery.base:Accumulator", "randqa.errors:InputError", "", "x:y:z"]
#: where a mutation puts deep nesting (replaced in the JSON text, which Python could not build as objects)
DEEP = "@@deeply nested@@"
DTYPES = ["u1", "i8", "f8", "?", "u8", "<i4", ">i8", "c16", "U4", "V8", "M8[s]"]


def _decode(data: bytes) -> tuple[dict, dict]:
    import io

    import numpy as np

    with np.load(io.BytesIO(data), allow_pickle=False) as npz:
        arrays = {name: npz[name] for name in npz.files}
    return json.loads(arrays.pop("meta").tobytes()), arrays


def _tagged(value, prefix=()):
    """Paths of every ``$object``/``$enum`` name in a state document."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("$object", "$enum"):
                yield prefix + (key,)
            yield from _tagged(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _tagged(item, prefix + (index,))


@st.composite
def checkpoint_inputs(draw, bases: list[bytes], victim: Path) -> tuple[bytes, list[str]]:
    """A checkpoint changed as a hostile user would, and extra command-line arguments."""
    import io
    import zipfile

    import numpy as np

    from randqa.engine.checkpoint import state_digest

    base = draw(st.sampled_from(bases))
    if draw(st.integers(0, 19)) == 0:  # damage to the file itself
        cut = draw(st.integers(0, len(base)))
        flipped = bytearray(base)
        for at in draw(st.lists(st.integers(0, len(base) - 1), max_size=4)):
            flipped[at] ^= 0xFF
        return draw(st.sampled_from([base[:cut], bytes(flipped), base + draw(st.binary(max_size=64))])), []
    meta, arrays = _decode(base)
    members: dict[str, bytes] = {}
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.integers(0, 9))
        if kind <= 2:  # any field of the metadata replaced, removed or added
            paths = [p for p in _paths(meta) if p]
            path = draw(st.sampled_from(paths))
            action = draw(st.integers(0, 2))
            if action == 0:
                meta = _replace(meta, path, draw(json_values))
            elif action == 1:
                meta = _delete(meta, path)
            else:
                meta = {**meta, draw(st.text(max_size=8)): draw(json_values)}
        elif kind == 3:  # a class name
            tags = list(_tagged(meta["state"]))
            if tags:
                meta = _replace(meta, ("state",) + draw(st.sampled_from(tags)),
                                draw(st.one_of(st.sampled_from(OBJECT_NAMES), st.text(max_size=30))))
        elif kind == 4:  # an array of another shape or kind
            name = draw(st.sampled_from(sorted(arrays)))
            shape = tuple(draw(st.lists(st.integers(0, 70), max_size=3)))
            arrays[name] = np.zeros(shape, dtype=draw(st.sampled_from(DTYPES)))
        elif kind == 5:  # a size declared in an npy header, or a member that inflates far
            name = draw(st.sampled_from(sorted(arrays)))
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.zeros(16, dtype=np.uint8))
            claim = draw(st.sampled_from([1 << 40, 1 << 62, 17, 0, 15]))
            members[f"{name}.npy"] = buffer.getvalue().replace(b"(16,)", f"({claim},)".encode())
            if draw(st.booleans()):
                members[f"{name}.npy"] = BOMB
        elif kind == 6:  # nesting, written into the JSON text below
            depth = draw(st.sampled_from([10, 70, 1000, 100_000]))
            meta = _replace(meta, draw(st.sampled_from([p for p in _paths(meta) if p])), DEEP)
        elif kind in (7, 8):  # where the results go
            where = draw(st.sampled_from([
                str(victim / "victim.json"), str(victim), str(victim / "missing" / "r.json"), "fuzz.ckpt", "-",
                "../outside.json", "\x1b[2Jx.json", "a\0b.json", "", "/dev/full", str(victim / "new.json")]))
            meta["outputs"] = {**(meta.get("outputs") if isinstance(meta.get("outputs"), dict) else {}),
                               draw(st.sampled_from(["json", "html", "other"])): where}
        else:  # an extra member, or one named twice
            members[draw(st.sampled_from(["a999.npy", "meta.npy", "../x.npy", "a0.npy"]))] = b"\x93NUMPY"
    text = json.dumps(meta, allow_nan=True)
    if DEEP in text:
        text = text.replace(json.dumps(DEEP), "[" * depth + "1" + "]" * depth)
    elif draw(st.integers(0, 4)) and isinstance(meta, dict):  # a forger makes the digest again
        try:
            meta["digest"] = state_digest(meta, arrays)
        except ValueError:  # arrays randqa never hashes (datetimes): they are refused before
            pass
        text = json.dumps(meta, allow_nan=True)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        array_bytes = io.BytesIO()
        np.lib.format.write_array(array_bytes, np.frombuffer(text.encode(), dtype=np.uint8))
        archive.writestr("meta.npy", array_bytes.getvalue())
        for name, array in arrays.items():
            if f"{name}.npy" not in members:
                one = io.BytesIO()
                np.lib.format.write_array(one, array, allow_pickle=False)
                archive.writestr(f"{name}.npy", one.getvalue())
        for name, data in members.items():
            archive.writestr(name, data, zipfile.ZIP_DEFLATED)
    extra = draw(st.sampled_from([[], [], ["--json", "given.json"], ["--max-memory", "1M"]]))
    return buffer.getvalue(), extra


def _bomb() -> bytes:
    """An npy member of 64 MiB of zeros (about 64 KiB deflated): more than a quick suite's state."""
    import io

    import numpy as np

    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.zeros(64 << 20, dtype=np.uint8))
    return buffer.getvalue()


BOMB = b""


def snapshot(*folders: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``folders``: (size, mtime)."""
    found = {}
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file():
                status = path.stat()
                found[str(path)] = (status.st_size, status.st_mtime_ns)
    return found


def shown_outputs(err: str, workdir: Path) -> set[str]:
    """The paths resume said it writes, before the run ("randqa: resuming from C (...); writing its JSON
    to X and its HTML to Y, where the run wrote them (...)")."""
    import ast
    import shlex

    shown = set()
    for line in err.splitlines():
        if line.startswith("randqa: resuming from ") and "; writing its " in line:
            for part in line.split("; writing its ", 1)[1].split(", where the run")[0].split(" and its "):
                text = part.split(" to ", 1)[1]
                if text == "stdout":
                    continue
                path = ast.literal_eval(text) if "\\" in text else shlex.split(text)[0]  # repr, or shell-quoted
                shown.add(os.path.abspath(os.path.join(workdir, path)))
    return shown


class _Checkpoints(list):
    """The base checkpoints (their repr stays short in Hypothesis's reports)."""

    def __repr__(self) -> str:
        return f"<{len(self)} base checkpoints>"


@pytest.fixture(scope="module")
def checkpoints(server) -> list[bytes]:
    """Checkpoints of a finished run, a progressive run stopped after its first save, and a comparison."""
    global BOMB
    BOMB = _bomb()
    made = []
    for args in (["test", "pcg64", "-n", "64K", "--seed", "1", "--suite", "quick", "--jobs", "1"],
                 ["test", "pcg64", "--progressive", "--max", "4M", "--seed", "1", "--suite", "quick", "--jobs", "1",
                  "--segment", "1M", "--checkpoint-every", "0", "--keep-going"],
                 ["compare", "pcg64", "minstd", "-n", "16K", "--seed", "1", "--suite", "quick", "--speed-repeats", "1",
                  "--no-html", "--no-predict", "--jobs", "1", "--no-progressive"]):
        path = server.workdir / "base.ckpt"
        path.unlink(missing_ok=True)
        reply = server.run([*args, "--checkpoint", str(path)])
        assert reply["code"] in (0, 1), reply["err"]
        made.append(path.read_bytes())
        path.unlink()
    return _Checkpoints(made)


@pytest.mark.filterwarnings("ignore:Duplicate name:UserWarning")  # a member named twice is one of the forgeries
def test_any_checkpoint_resumes_or_is_refused_in_one_line(server, checkpoints, tmp_path_factory):
    victim = tmp_path_factory.mktemp("victim")
    (victim / "victim.json").write_text("{}")

    @settings(max_examples=FUZZ_EXAMPLES or 25, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(case=checkpoint_inputs(checkpoints, victim))
    def resume_one(case):
        content, extra = case
        workdir = server.workdir
        for leftover in ("given.json", "fuzz.ckpt.lock"):
            (workdir / leftover).unlink(missing_ok=True)
        (workdir / "fuzz.ckpt").write_bytes(content)
        before = snapshot(workdir, victim)
        reply = server.run(["resume", "fuzz.ckpt", "--jobs", "1", "--no-progress", *extra],
                           interrupt_after=RESUME_SECONDS)
        err = reply["err"]
        assert reply["code"] in (0, 1, 2, 130), f"exit {reply['code']}:\n{err}"
        assert "Traceback" not in err and "Exception ignored" not in err, err
        lines = [line for line in err.splitlines() if line.strip()]
        errors = [line for line in lines if line.startswith("randqa: error:")]
        assert len(errors) == (reply["code"] == 2), err
        # besides the error, only the "resuming from" line, printed once the checkpoint passed every check
        # (an output that fails at the end, /dev/full, comes after it)
        if "writing its JSON to stdout" not in err:  # else the table is on stderr
            assert all(line.startswith(("randqa: resuming from ", "report: ")) for line in lines
                       if line not in errors), err
        grown = reply["max_rss"] - reply["base"]
        assert grown <= LIMIT + NOISE, f"the child grew {grown >> 20} MiB"
        # nothing written but the checkpoint itself, the server's own files, what the command line named
        # and what resume showed before it ran
        allowed = {str(workdir / name) for name in ("fuzz.ckpt", "out", "err", "start", "given.json")}
        allowed |= shown_outputs(err, workdir)
        after = snapshot(workdir, victim)
        changed = {path for path, state in after.items() if before.get(path) != state}
        assert changed <= allowed, f"wrote {sorted(changed - allowed)}:\n{err}"
        assert not (workdir / "fuzz.ckpt.lock").exists()
        outcomes[reply["code"]] = outcomes.get(reply["code"], 0) + 1

    outcomes: dict[int, int] = {}
    resume_one()
    print(f"checkpoint fuzzer: {sum(outcomes.values())} resumes, by exit code {dict(sorted(outcomes.items()))}")


# ------------------------------------------------------------------ scheduler addresses

@st.composite
def scheduler_addresses(draw, targets: dict[str, int]) -> str:
    if draw(st.integers(0, 4)) == 0:
        return draw(st.text(min_size=1, max_size=40).filter(lambda t: "\0" not in t and not t.startswith("-")))
    scheme = draw(st.sampled_from(["tcp://", "tls://", "TCP://", "", "http://", "inproc://", "ucx://", "ws://",
                                   "tcp:/", "://"]))
    host = draw(st.sampled_from(["127.0.0.1", "localhost", "[::1]", "[::1", "::1", "", "a_b", "127.0.0.1.",
                                 "-bad-", "x" * 300, "ｌｏｃａｌｈｏｓｔ", "127.0.0.1 ", "user@127.0.0.1"]))
    port = draw(st.one_of(st.sampled_from([str(p) for p in targets.values()]),
                          st.sampled_from(["", "0", "65536", "-1", "８７８６", "8786x", "99999999999999999999"])))
    tail = draw(st.sampled_from(["", "", "", "/", "/path", "?q=1", "#f", "\n", " "]))
    return f"{scheme}{host}{':' if port or draw(st.booleans()) else ''}{port}{tail}"


def test_any_scheduler_address_is_refused_in_one_line(server, tmp_path_factory):
    import http.server
    import socket
    import threading

    closed = socket.create_server(("127.0.0.1", 0))
    targets = {"closed": closed.getsockname()[1]}
    closed.close()
    silent = socket.create_server(("127.0.0.1", 0))
    web = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=web.serve_forever, daemon=True).start()
    targets.update(silent=silent.getsockname()[1], http=web.server_address[1])

    @settings(max_examples=FUZZ_EXAMPLES or 20, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(address=scheduler_addresses(targets), through_environment=st.booleans())
    def refuse_one(address, through_environment):
        assume(address or not through_environment)  # an empty variable names no scheduler
        args = ["test", "pcg64", "-n", "64K", "--seed", "1", "--suite", "quick", "--jobs", "2", "--segment", "32K",
                "--scheduler-timeout", "0.3"]
        env = {"RANDQA_SCHEDULER": address} if through_environment else {}
        before = snapshot(server.workdir)
        started = time.monotonic()
        reply = server.run(args if through_environment else [*args, "--scheduler", address], env=env)
        assert time.monotonic() - started < 60  # a few timeouts of 0.3 s, on a busy machine
        assert reply["code"] == 2, f"exit {reply['code']}: {reply['err']}"
        check(reply, (2,), LIMIT)
        changed = {p for p, state in snapshot(server.workdir).items() if before.get(p) != state}
        assert changed <= {str(server.workdir / name) for name in ("out", "err", "start")}
        tried.append(address)

    tried: list[str] = []
    try:
        refuse_one()
        print(f"scheduler fuzzer: {len(tried)} addresses refused, {len(set(tried))} distinct")
    finally:
        web.shutdown()
        web.server_close()
        silent.close()
