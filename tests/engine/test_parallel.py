"""Segment-parallel runs on Dask (randqa/engine/execute.py, parallel.py) give
the JSON of a one-process run, apart from timings and the ``execution``
block that says how the run went: for every shipped suite, on a generator
that jumps (pcg64), a file read with pread, and the same file read in order
by a producer (what stdin and RC4 get), with a segment size as small as the
suite allows; with folded sources and progressive lengths judged inside a
segment; when a worker process is killed in the middle of a run; and on a
real cluster (``dask scheduler`` and two ``dask worker`` processes).

Rule relied on: an accumulator's ``merge`` is concatenation at a multiple of
its ``alignment`` (randqa/battery/base.py), the right part placed where it
starts (``begin_at``), so the segment size is a multiple of the lcm of the
suite's alignments (3840 KiB for the standard suite, whose longest
bit_linear_complexity sequences are 640 KiB of 64-bit words).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from schema_check import assert_valid_document

from randqa.battery.suites import load_suite
from randqa.engine.execute import Progressive, run_stream, segment_size, suite_alignment
from randqa.engine.parallel import WorkerVersionError, Workers, check_version, version_problems
from randqa.errors import UsageError
from randqa.sources import open_source, read_full
from randqa.sources.folded import FoldedSource
from small_suites import collision_suite

SEED = 1
#: (suite, bytes tested, segment): every suite at its smallest useful segment, ending inside a segment
CASES = [
    pytest.param("quick", (5 << 20) + 123, 1 << 20, id="quick"),
    pytest.param("rc4", (1 << 20) + 77, 256 << 10, id="rc4"),
    pytest.param("nist-sp800-22", 4 * 125_000 + 1000, 125_000, id="nist-sp800-22"),
    pytest.param("standard", 2 * (15 << 20) + (5 << 20), 15 << 20, id="standard"),
]


def shipped_suite(name: str):
    """The suite as shipped; a segment of the standard suite is a multiple of 3840 KiB."""
    suite = load_suite(name)
    if name == "standard":
        assert suite_alignment(suite) == 3840 << 10
    return suite


def comparable(result) -> dict:
    """A run's JSON without what may differ between executions: timings and how it ran."""
    doc = result.to_json() if not isinstance(result, dict) else dict(result)
    for key in ("elapsed_s", "execution", "command", "date", "source"):
        doc.pop(key, None)
    if "lengths" in doc:
        doc["lengths"] = [{k: v for k, v in entry.items() if k != "elapsed_s"} for entry in doc["lengths"]]
    return doc


@pytest.fixture(scope="module")
def workers():
    with Workers(2, notice=lambda line: None) as pool:
        yield pool


@pytest.fixture(scope="module")
def stream_file(tmp_path_factory) -> Path:
    """The first bytes of pcg64 seed 1, as a file: pcg64, the file and a
    producer reading it must all give the same results."""
    size = max(case.values[1] for case in CASES)
    data = np.empty(size, dtype=np.uint8)
    with open_source("pcg64", seed=SEED) as source:
        assert read_full(source, memoryview(data)) == size
    path = tmp_path_factory.mktemp("segments") / "pcg64.bin"
    data.tofile(path)
    return path


def one_process(suite_name: str, size: int, **kwargs) -> dict:
    with open_source("pcg64", seed=SEED) as source:
        return comparable(run_stream(source, shipped_suite(suite_name), limit=size, **kwargs))


@pytest.mark.parametrize("suite_name, size, segment", CASES)
def test_workers_give_the_one_process_results(workers, stream_file, suite_name, size, segment):
    suite = shipped_suite(suite_name)
    assert segment % suite_alignment(suite) == 0
    expected = one_process(suite_name, size)
    with open_source("pcg64", seed=SEED) as source:
        jumped = run_stream(source, suite, limit=size, spec="pcg64", segment=segment, workers=workers)
    with open_source(str(stream_file)) as source:
        preads = run_stream(source, suite, limit=size, spec=str(stream_file), segment=segment, workers=workers)
    with open_source(str(stream_file)) as source:
        produced = run_stream(source, suite, limit=size, segment=segment, workers=workers)  # no spec: read in order
    assert [r.extra["execution"]["split"] for r in (jumped, preads, produced)] == ["jump", "pread", "sequential"]
    for result in (jumped, preads, produced):
        assert result.extra["execution"]["mode"] == "local-cluster"
        assert result.extra["execution"]["segments_on_workers"] == -(-size // segment)
        assert comparable(result) == expected


def test_a_folded_source_on_workers(workers):
    suite = load_suite("quick")
    fold = (32, 3)  # 3 low bits of 32-bit words: segments must be whole words and whole bytes
    segment = segment_size(suite_alignment(suite, fold), 3 << 18)
    size = 4 * segment + 1000

    def run(**kwargs):
        with FoldedSource(open_source("pcg64", seed=SEED), *fold) as source:
            return run_stream(source, suite, limit=size, fold=fold, **kwargs)

    on_workers = run(spec="pcg64", segment=segment, workers=workers)
    assert on_workers.extra["execution"]["segments_on_workers"] == 5
    assert comparable(on_workers) == comparable(run())


def test_progressive_lengths_inside_segments(workers):
    """Short lengths are judged here before any worker is used; longer ones
    inside a segment come from the worker's snapshot merged onto the prefix."""
    suite = load_suite("quick")
    progressive = Progressive(1 << 10, 24 << 20)
    with open_source("pcg64", seed=SEED) as source:
        expected = comparable(run_stream(source, suite, progressive=progressive))
    with open_source("pcg64", seed=SEED) as source:
        result = run_stream(source, suite, progressive=progressive, spec="pcg64", segment=3 << 20, workers=workers)
    assert result.extra["execution"]["in_process_bytes"] == 3 << 20
    assert comparable(result) == expected
    inside = [e["bytes"] for e in expected["lengths"] if e["bytes"] > 3 << 20 and e["bytes"] % (3 << 20)]
    assert inside == [4 << 20, 8 << 20, 16 << 20]


def test_progressive_stop_inside_a_segment(workers, tmp_path):
    """A stream that turns bad at 1 MiB fails at the 2 MiB length, inside the
    second segment: the run stops there, as in one process."""
    path = tmp_path / "turns-bad.bin"
    path.write_bytes(np.random.default_rng(5).bytes(1 << 20) + bytes(3 << 20))
    suite = load_suite("quick")
    progressive = Progressive(64 << 10, 1 << 62)
    with open_source(str(path)) as source:
        expected = comparable(run_stream(source, suite, progressive=progressive))
    assert expected["first_failure_bytes"] == 2 << 20
    for spec in (str(path), None):
        with open_source(str(path)) as source:
            result = run_stream(source, suite, progressive=progressive, spec=spec, segment=768 << 10, workers=workers)
        assert comparable(result) == expected


def test_collision_blocks_across_segments_on_workers(workers):
    """decimated_collisions' values of a block span many segments: each
    worker keeps its segment's kept values until they are merged in order."""
    suite = collision_suite()
    size, segment = (24 << 20) + 8 * 123, 4 << 20
    with open_source("pcg64", seed=SEED) as source:
        expected = comparable(run_stream(source, suite, limit=size))
    assert all(test["statistic"] > 0 for test in expected["tests"])
    with open_source("pcg64", seed=SEED) as source:
        result = run_stream(source, suite, limit=size, spec="pcg64", segment=segment, workers=workers)
    assert result.extra["execution"]["segments_on_workers"] == 7
    assert comparable(result) == expected


@pytest.mark.parametrize("name, split, default", [("pcg64", "jump", 1 << 30), ("file", "pread", 1 << 30),
                                                   ("urandom", "independent", 1 << 30),
                                                   ("arc4", "sequential", 256 << 20)])
def test_default_segments_follow_the_split(stream_file, name, split, default):
    """Segments workers open themselves are long (a segment's task, state and
    merge stay under 1% of its test), but at least two per worker when the
    run's length is known; a stream handed out in order keeps 256 MiB, of
    which a producer holds two per worker."""
    from randqa.engine.execute import StreamWorkload, default_segment

    spec = str(stream_file) if name == "file" else name
    with open_source(spec, seed=None if name in ("file", "urandom") else SEED) as source:
        workload = StreamWorkload(source, load_suite("quick"), spec=spec)
        assert (workload.split, default_segment(workload)) == (split, default)
        shorter = {(1 << 30, 2): 256 << 20, (3 << 30, 2): 768 << 20, (16 << 30, 2): 1 << 30, (1 << 30, 16): 256 << 20}
        for (limit, slots), opened in shorter.items():
            assert default_segment(workload, limit, slots) == (opened if split != "sequential" else 256 << 20)


def test_short_runs_stay_in_process():
    """A run of one segment, or a progressive run that fails in its first
    segment, never starts a cluster."""
    with Workers(2) as unstarted:
        with open_source("pcg64", seed=SEED) as source:
            result = run_stream(source, load_suite("quick"), limit=1 << 20, spec="pcg64", segment=1 << 20,
                                workers=unstarted)
        assert result.extra["execution"] == {"mode": "in-process"}
        with open_source("minstd", seed=SEED) as source:
            result = run_stream(source, load_suite("quick"), progressive=Progressive(1 << 10, 1 << 30), spec="minstd",
                                segment=1 << 20, workers=unstarted)
        assert result.extra["first_failure_bytes"] == 2048
        assert not unstarted.started


@pytest.mark.parametrize("read_in_order", [False, True], ids=["jump", "producer"])
def test_a_killed_worker_loses_nothing(workers, stream_file, read_in_order):
    """SIGKILL one worker process after the first merged segment: its
    segments are computed again (Dask reschedules them; a producer's data
    is sent again) and the results do not change."""
    suite = load_suite("quick")
    size, segment = 5 << 20, 256 << 10
    expected = one_process("quick", size)
    killed = []

    def kill_one(_n: int) -> None:
        if not killed:
            pids = workers.client().run(os.getpid)
            victim = sorted(pids.values())[0]
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    with open_source(str(stream_file) if read_in_order else "pcg64", seed=None if read_in_order else SEED) as source:
        result = run_stream(source, suite, limit=size, spec=None if read_in_order else "pcg64", segment=segment,
                            workers=workers, on_progress=kill_one)
    assert killed
    assert comparable(result) == expected
    workers.client().wait_for_workers(2, timeout=60)  # the nanny restarted it for the next tests


def test_segment_must_be_a_multiple_of_the_alignment():
    assert segment_size(16384, None) == 256 << 20
    assert segment_size(3840 << 10, None, default=1 << 30) == 273 * (3840 << 10)
    assert segment_size(192 << 20, None) == 192 << 20
    assert segment_size(125_000, None) % 125_000 == 0
    with pytest.raises(UsageError, match="not a multiple of 192 MiB"):
        segment_size(192 << 20, 256 << 20)


def test_a_worker_of_another_version_is_refused():
    from randqa import __version__

    assert version_problems({"tcp://a:1": __version__}) == []
    problems = version_problems({"tcp://a:1": __version__, "tcp://b:2": "0.0.0", "tcp://c:3": ImportError("randqa")})
    assert problems == [f"worker tcp://b:2 runs randqa 0.0.0, this client randqa {__version__}",
                        "worker tcp://c:3 cannot run randqa (ImportError: randqa)"]
    with pytest.raises(WorkerVersionError, match="a worker runs randqa"):
        check_version("0.0.0")


# --------------------------------------------------------------------------
# A real cluster


def _dask(*args: str, log: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_" + args[0], *args[1:]],
                            stdout=subprocess.DEVNULL, stderr=log.open("wb"), start_new_session=True)


@pytest.fixture
def real_cluster(tmp_path):
    """``dask scheduler`` and two single-threaded ``dask worker`` processes on
    127.0.0.1, torn down (process groups killed) whatever happens."""
    scheduler_file = tmp_path / "scheduler.json"
    processes = [_dask("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                       "--scheduler-file", str(scheduler_file), log=tmp_path / "scheduler.log")]
    try:
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() or not scheduler_file.read_text().strip():
            assert time.monotonic() < deadline, (tmp_path / "scheduler.log").read_text()
            time.sleep(0.2)
        address = json.loads(scheduler_file.read_text())["address"]
        for i in range(2):
            processes.append(_dask("worker", address, "--nthreads", "1", "--nworkers", "1", "--no-dashboard",
                                   "--host", "127.0.0.1", log=tmp_path / f"worker{i}.log"))
        from distributed import Client

        with Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
        yield address
    finally:
        for process in processes:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait(timeout=30)


def _cli(*args: str, stdin: bytes = b"", env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "randqa", *args], input=stdin, capture_output=True, timeout=180,
                          env=env)


def test_a_real_cluster_gives_the_one_process_results(real_cluster, stream_file):
    size = "5M"
    common = ["--suite", "quick", "-n", size, "--json", "-", "--no-progress"]
    reference = _cli("test", "pcg64", "--seed", str(SEED), "--jobs", "1", *common)
    assert reference.returncode == 0, reference.stderr
    expected = comparable(json.loads(reference.stdout))
    on_cluster = _cli("test", "pcg64", "--seed", str(SEED), "--scheduler", real_cluster, "--segment", "1M", *common)
    assert on_cluster.returncode == 0, on_cluster.stderr
    doc = json.loads(on_cluster.stdout)
    assert assert_valid_document(doc) == "run"
    assert doc["execution"]["mode"] == "scheduler" and doc["execution"]["workers"] == 2
    assert "Dask dashboard" in on_cluster.stderr.decode()
    assert comparable(doc) == expected
    # stdin, read by this process and sent to the workers; the scheduler from the environment
    data = stream_file.read_bytes()[:5 << 20]
    env = dict(os.environ, RANDQA_SCHEDULER=real_cluster)
    piped = _cli("test", "-", "--segment", "1M", *common, stdin=data, env=env)
    assert piped.returncode == 0, piped.stderr
    doc = json.loads(piped.stdout)
    assert doc["execution"]["split"] == "sequential" and doc["execution"]["segments_on_workers"] == 5
    assert comparable(doc) == expected


class _DoneFuture:
    """Stands for a Dask future whose task ran at once, in this process."""

    def __init__(self, function, args) -> None:
        self.value = function(*args)

    def add_done_callback(self, callback) -> None:
        callback(self)

    def result(self):
        return self.value

    def cancel(self) -> None:
        pass


class _InlineWorkers:
    """Workers whose client runs every task when it is submitted."""

    started = True

    def __init__(self, slots: int) -> None:
        self._slots = slots

    def slots(self) -> int:
        return self._slots

    def client(self):
        return self

    def scatter(self, data, hash=False):
        return data

    def submit(self, function, *args, **kwargs):
        return _DoneFuture(function, args)


def test_a_producer_holds_at_most_two_segments_per_worker():
    """Segments are read from the stream only as far as two per worker ahead of the merged prefix."""
    from randqa.engine.execute import StreamJob
    from randqa.engine.parallel import Segment, in_stream_order

    job = StreamJob(load_suite("quick"))
    pulled, merged, ahead = [], [], []

    def segments():
        for index in range(40):
            pulled.append(index)
            ahead.append(len(pulled) - len(merged))
            yield Segment(index, index * 32768, 32768, (), np.zeros(32768, dtype=np.uint8))

    for segment, result in in_stream_order(_InlineWorkers(3), job, segments(), lambda: False):
        merged.append(segment.index)
        assert result["count"] == 32768
    assert merged == list(range(40))
    assert max(ahead) == 2 * 3


def test_a_seed_sweep_on_workers(workers):
    """Blocks of seeds are segments too: SeedSweep merges in seed order."""
    from randqa.engine.seed_sweep import run_seed_sweep
    from randqa.sources import open_backend

    def sweep(**kwargs):
        return run_seed_sweep("arc4", lambda s: open_backend("arc4", s), 3 * 4096 + 5, positions=64, base_seed=11,
                              **kwargs)

    on_workers = sweep(workers=workers, segment=64 * 4096)
    assert on_workers.extra["execution"]["split"] == "seeds"
    assert on_workers.extra["execution"]["segments_on_workers"] == 4
    assert comparable(on_workers) == comparable(sweep())


def test_bit_text_with_its_final_bits(workers, tmp_path):
    """ASCII 0/1 text is read in order and handed out; its last 1-7 bits are fed here at the end."""
    path = tmp_path / "bits.txt"
    bits = np.random.default_rng(3).integers(0, 2, 8 * (3 << 17) + 5)
    path.write_bytes(bytes(48 + bits.astype(np.uint8)))
    suite = load_suite("quick")

    def run(**kwargs):
        with open_source(str(path), fmt="bits") as source:
            return run_stream(source, suite, **kwargs)

    expected = run()
    on_workers = run(segment=128 << 10, workers=workers, spec=str(path))
    execution = on_workers.extra["execution"]
    assert execution["segments_on_workers"] + execution["in_process_bytes"] // (128 << 10) == 3
    assert on_workers.bits_tested == expected.bits_tested == len(bits)
    assert comparable(on_workers) == comparable(expected)


ALLOCATION_PROBE = """
import ctypes
import numpy as np
from randqa.engine.parallel import _keep_large_allocations

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

mallinfo2 = ctypes.CDLL(None).mallinfo2
mallinfo2.restype = MallInfo2

def mapped_on_its_own():
    # whether a chunk-sized temporary gets an mmap of its own (hblkhd: bytes so mapped)
    before = mallinfo2().hblkhd
    block = np.ones(4 << 20, dtype=np.uint8)
    return mallinfo2().hblkhd - before >= block.nbytes

first = mapped_on_its_own()
_keep_large_allocations()
print(first, mapped_on_its_own())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or os.confstr("CS_GNU_LIBC_VERSION") is None,
                    reason="glibc's mallopt and mallinfo2")
@pytest.mark.parametrize("threshold, tuned", [("65536", True), ("131072", False)])
def test_workers_keep_chunk_temporaries_in_the_heap(threshold, tuned):
    """Dask's workers run with MALLOC_TRIM_THRESHOLD_=65536, which makes glibc
    map and unmap every large temporary afresh; the segment task undoes
    that, and only that value."""
    env = {**os.environ, "MALLOC_TRIM_THRESHOLD_": threshold}
    out = subprocess.run([sys.executable, "-c", ALLOCATION_PROBE], env=env, capture_output=True, text=True,
                         check=True, timeout=60).stdout
    assert out.split() == ["True", str(not tuned)], out
