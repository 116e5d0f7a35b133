"""Segment-parallel runs on Dask (randqa/engine/loop.py, parallel.py, dispatch.py) give
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

Reaching a scheduler: addresses are checked before any work; a closed port,
a silent listener, an HTTP server and a service that speaks first (all in
this process, shut down by the test) are refused within
--scheduler-timeout; a stop signal while one is silent, while a slow fake
cluster starts or while fake workers stay busy ends the run at once, its
results written and what was started shut down; a tls:// scheduler (an
in-process cluster, certificates made with openssl) works with the right
files and is one line without them.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from schema_check import assert_valid_document

from randqa.battery.suites import load_suite
from randqa.engine.run import Progressive, run_stream
from randqa.engine.segment_policy import segment_size, suite_alignment
from randqa.engine.parallel import WorkerVersionError, Workers, check_version, version_problems
from randqa.errors import UsageError
from randqa.sources import open_source
from randqa.sources.folded import FoldedSource
from fake_dask import DoneFuture
from segment_runs import comparable, write_pcg64
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


@pytest.fixture(scope="module")
def workers():
    with Workers(2, notice=lambda line: None) as pool:
        pool.client()  # started: every segment goes to the workers, none is tested here meanwhile
        yield pool


@pytest.fixture(scope="module")
def stream_file(tmp_path_factory) -> Path:
    """The first bytes of pcg64 seed 1, as a file: pcg64, the file and a
    producer reading it must all give the same results."""
    size = max(case.values[1] for case in CASES)
    return write_pcg64(tmp_path_factory.mktemp("segments") / "pcg64.bin", size, SEED)


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
    assert [r.execution["split"] for r in (jumped, preads, produced)] == ["jump", "pread", "sequential"]
    for result in (jumped, preads, produced):
        assert result.execution["mode"] == "local-cluster"
        assert result.execution["segments_on_workers"] == -(-size // segment)
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
    assert on_workers.execution["segments_on_workers"] == 5
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
    assert result.execution["in_process_bytes"] == 3 << 20
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


def test_retests_on_workers_read_the_block_one_process_reads(workers, tmp_path):
    """A stream whose first MiB is biased (frequency 1.2e-8 there, below the
    fail threshold) and fair after: the 1 MiB length ends the segment run in
    this process, and its retest block, the next MiB, is tested on a
    worker.  The retest reads it again from the file (pread), or takes it from
    the segment this process read for the worker (in order): the JSON of one
    process either way, the failure not repeated."""
    rng = np.random.default_rng(0)
    path = tmp_path / "biased-then-fair.bin"
    path.write_bytes(np.packbits(rng.random(8 << 20) < 0.500967).tobytes() + rng.bytes(3 << 20))
    suite = load_suite("quick")
    progressive = Progressive(1 << 20, 4 << 20)
    with open_source(str(path)) as source:
        expected = comparable(run_stream(source, suite, progressive=progressive))
    frequency = expected["lengths"][0]["tests"][0]
    assert frequency["name"] == "frequency" and 1e-20 < frequency["p_value"] < 1e-6
    assert frequency["verdict"] == "suspicious" and frequency["retest"]["repeated"] is False
    assert frequency["retest"]["from_bytes"] == frequency["retest"]["bytes"] == 1 << 20
    for spec in (str(path), None):
        with open_source(str(path)) as source:
            result = run_stream(source, suite, progressive=progressive, spec=spec, segment=1 << 20, workers=workers)
        assert result.execution["segments_on_workers"] == 3
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
    assert result.execution["segments_on_workers"] == 7
    assert comparable(result) == expected


@pytest.mark.parametrize("name, split, default", [("pcg64", "jump", 1 << 30), ("file", "pread", 1 << 30),
                                                   ("urandom", "independent", 1 << 30),
                                                   ("arc4", "sequential", 32 << 20)])
def test_default_segments_follow_the_split(stream_file, name, split, default):
    """Segments workers open themselves are long (a segment's task, state and
    merge stay under 1% of its test), but four per worker (each at least
    32 MiB) when the run's length is known; a stream handed out in order keeps 32 MiB, of
    which a producer holds two per worker (one per thread and one waiting in threads)."""
    from randqa.engine.segment_policy import default_segment
    from randqa.engine.workloads import StreamWorkload

    spec = str(stream_file) if name == "file" else name
    with open_source(spec, seed=None if name in ("file", "urandom") else SEED) as source:
        workload = StreamWorkload(source, load_suite("quick"), spec=spec)
        assert (workload.split, default_segment(workload.remote_open)) == (split, default)
        # four per worker, so the last round (and what this process tests while a cluster starts) balance out
        shorter = {(1 << 30, 2): 128 << 20, (4 << 30, 2): 512 << 20, (6 << 30, 2): 768 << 20,
                   (16 << 30, 2): 1 << 30, (1 << 30, 16): 32 << 20}
        for (limit, slots), opened in shorter.items():
            assert default_segment(workload.remote_open, limit, slots) == (opened if split != "sequential" else 32 << 20)


def test_short_runs_stay_in_process():
    """A run of one segment, or a progressive run that fails in its first
    segment, never starts a cluster."""
    with Workers(2) as unstarted:
        with open_source("pcg64", seed=SEED) as source:
            result = run_stream(source, load_suite("quick"), limit=1 << 20, spec="pcg64", segment=1 << 20,
                                workers=unstarted)
        assert result.execution == {"mode": "in-process"}
        with open_source("minstd", seed=SEED) as source:
            result = run_stream(source, load_suite("quick"), progressive=Progressive(1 << 10, 1 << 30), spec="minstd",
                                segment=1 << 20, workers=unstarted)
        assert result.first_failure_bytes == 4096  # chi_square of the bytes below 1e-20 at 4 KiB
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


def test_a_seed_sweep_on_workers(workers):
    """Blocks of seeds are segments too: SeedSweep merges in seed order."""
    from randqa.engine.seed_sweep import run_seed_sweep
    from randqa.sources import open_backend

    def sweep(**kwargs):
        return run_seed_sweep("arc4", lambda s: open_backend("arc4", s), 3 * 4096 + 5, positions=64, base_seed=11,
                              **kwargs)

    on_workers = sweep(workers=workers, segment=64 * 4096)
    assert on_workers.execution["split"] == "seeds"
    assert on_workers.execution["segments_on_workers"] == 4
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
    execution = on_workers.execution
    assert execution["segments_on_workers"] + execution["in_process_bytes"] // (128 << 10) == 3
    assert on_workers.bits_tested == expected.bits_tested == len(bits)
    assert comparable(on_workers) == comparable(expected)


# ---------------------------------------------------------------- reaching a scheduler, and stopping on the way


@pytest.mark.parametrize("text, problem", [
    ("garbage", "no port"),
    ("", "no host"),  # an empty --scheduler is not "no scheduler"
    ("tcp://", "no host"),
    ("inproc://x", "not inproc://"),
    ("http://127.0.0.1:8786", "not http://"),
    ("tcp://127.0.0.1", "no port"),
    ("tcp://127.0.0.1:0", "port '0'"),
    ("tcp://127.0.0.1:65536", "port '65536'"),
    ("tcp://127.0.0.1:８７", "port '８７'"),
    ("tcp://a_b:8786", "not a host name"),
    ("tcp://[::1:8786", "not an address"),
    ("tcp://[fe80::zz]:8786", "not an IPv6 address"),
    ("tcp://user@host:8786", "not an address"),
    ("tcp://host:8786/path", "not an address"),
])
def test_a_scheduler_address_is_checked_before_any_work(text, problem):
    # before: `--scheduler garbage` exited 3 after about 61 s, with a Client.__del__ traceback
    from randqa.engine.scheduler import scheduler_address

    with pytest.raises(UsageError, match=f"--scheduler .*{problem}.*tcp://HOST:PORT or tls://HOST:PORT"):
        scheduler_address(text)


def test_good_scheduler_addresses():
    from randqa.engine.scheduler import parse_scheduler_address

    assert parse_scheduler_address("127.0.0.1:8786").url == "tcp://127.0.0.1:8786"  # Dask's default scheme
    assert parse_scheduler_address("TLS://[::1]:8786").url == "tls://[::1]:8786"
    assert parse_scheduler_address("tcp://node-7.cluster.example:8786").port == 8786


class _Servers:
    """Things at a scheduler's address that are not a Dask scheduler, in
    this process: a closed port, a listener that never answers, an HTTP
    server (it answers nothing until asked), a service that speaks first."""

    def __init__(self) -> None:
        import http.server
        import socket
        import threading

        probe = socket.create_server(("127.0.0.1", 0))
        self.closed = probe.getsockname()[1]
        probe.close()
        self.silent = socket.create_server(("127.0.0.1", 0))
        self.http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
        self.talker = socket.create_server(("127.0.0.1", 0))
        self.threads = [threading.Thread(target=self.http.serve_forever, daemon=True),
                        threading.Thread(target=self._talk, daemon=True)]
        for thread in self.threads:
            thread.start()

    def _talk(self) -> None:
        while True:
            try:
                connection, _ = self.talker.accept()
            except OSError:
                return
            with connection:
                connection.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")

    def address(self, kind: str) -> str:
        port = {"closed": self.closed, "silent": self.silent.getsockname()[1],
                "http": self.http.server_address[1], "talker": self.talker.getsockname()[1]}[kind]
        return f"tcp://127.0.0.1:{port}"

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()
        self.silent.close()
        self.talker.close()


@pytest.fixture(scope="module")
def servers():
    started = _Servers()
    yield started
    started.close()


QUICK_ON_WORKERS = ["test", "pcg64", "-n", "1M", "--seed", "1", "--suite", "quick", "--segment", "32K"]
#: a run the signal always reaches first: it cannot end before the cluster
#: is there, and the tests' clusters are not (or never run its tasks)
LONG_ON_WORKERS = ["test", "pcg64", "-n", "1G", "--seed", "1", "--suite", "quick", "--segment", "32K"]
#: generous bounds for what must happen, not how fast: a busy machine is slow
PATIENCE_S = 120


@pytest.fixture
def stop_signals_handled():
    """SIGINT, SIGTERM and SIGHUP as a terminal's randqa meets them: a
    pytest started in the background by a shell inherits SIGINT ignored,
    which randqa rightly leaves ignored, and these tests would never see it."""
    previous = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
    yield
    for signum, handler in previous.items():
        signal.signal(signum, handler)


@pytest.mark.parametrize("kind, says", [
    ("closed", "cannot connect (Connection refused)"),  # before: 31 s
    ("silent", "sent nothing in 0.5 s: not a Dask scheduler"),  # before: no end, SIGINT and SIGTERM ignored
    ("http", "sent nothing in 0.5 s: not a Dask scheduler"),  # before: no end; a 3 EiB frame, "out of memory"
    ("talker", "are not Dask's protocol: not a Dask scheduler"),
])
def test_what_is_not_a_scheduler_is_refused_in_seconds(servers, capsys, kind, says):
    from conftest import run_main

    started = time.monotonic()
    code = run_main(*QUICK_ON_WORKERS, "--scheduler", servers.address(kind), "--scheduler-timeout", "0.5")
    assert time.monotonic() - started < 25  # a few timeouts of 0.5 s, on a busy machine; before: 31 s, or no end
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith(f"randqa: error: --scheduler {servers.address(kind)}")
    assert says in err


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stop_signal_while_a_scheduler_is_silent_ends_the_run(stop_signals_handled, tmp_path, capsys, signum, code):
    import socket
    import threading

    from conftest import run_main

    done = threading.Event()
    with socket.create_server(("127.0.0.1", 0)) as silent:
        def signal_on_connection() -> None:  # the signal comes while randqa waits for the scheduler's answer
            connection, _ = silent.accept()
            os.kill(os.getpid(), signum)
            done.wait(4 * PATIENCE_S)
            connection.close()

        threading.Thread(target=signal_on_connection, daemon=True).start()
        started = time.monotonic()
        # the scheduler's timeout is far past the patience: only the signal ends the wait in time
        assert run_main(*QUICK_ON_WORKERS, "--scheduler", f"tcp://127.0.0.1:{silent.getsockname()[1]}",
                        "--scheduler-timeout", str(3 * PATIENCE_S)) == code
        assert time.monotonic() - started < PATIENCE_S
        done.set()
    assert capsys.readouterr().err == "randqa: error: interrupted\n"


class _FakeFuture:
    """A task that never ends (a worker busy for good)."""

    def __init__(self) -> None:
        self.cancelled = False

    def add_done_callback(self, callback) -> None:
        pass

    def cancel(self) -> None:
        self.cancelled = True


class _FakeClient:
    """A Dask client of two worker threads whose tasks never end; ``on_submit``
    is called with each submission."""

    dashboard_link = "http://127.0.0.1:0/status"

    def __init__(self, on_submit=lambda: None) -> None:
        self.futures: list[_FakeFuture] = []
        self.closed = False
        self.on_submit = on_submit

    def scheduler_info(self, n_workers: int = -1) -> dict:
        return {"workers": {"a": {"nthreads": 1}, "b": {"nthreads": 1}}}

    def submit(self, *args, **kwargs) -> _FakeFuture:
        self.futures.append(_FakeFuture())
        self.on_submit()
        return self.futures[-1]

    def close(self, timeout: float = 0) -> None:
        self.closed = True


def test_a_stop_signal_while_the_cluster_starts_cancels_the_start(stop_signals_handled, tmp_path, capsys, monkeypatch):
    # before: SIGINT was ignored while the cluster started, and the run went on to its end with exit 0
    from conftest import run_main

    from randqa.engine import parallel

    made: list[_FakeClient] = []
    results = tmp_path / "r.json"
    written_first: list[bool] = []

    def slow_start(self):  # a cluster signalled as it begins, which starts only once the results are written
        os.kill(os.getpid(), signal.SIGINT)
        deadline = time.monotonic() + PATIENCE_S
        while not results.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        written_first.append(results.exists())
        made.append(_FakeClient())
        return made[-1], None, None

    monkeypatch.setattr(parallel.Workers, "_start", slow_start)
    assert run_main(*LONG_ON_WORKERS, "--jobs", "2", "--json", str(results)) == 130
    # the first pieces are tested here while the cluster starts in the background
    assert "note: interrupted: results cover the first " in capsys.readouterr().out
    doc = json.loads(results.read_text())
    assert doc["interrupted"] is True and doc["bytes_tested"] < 1 << 30
    # the results are written at once, not after the start; what it made is shut down once it is there
    assert written_first == [True]
    assert made and made[0].closed


def test_a_stop_signal_while_workers_are_busy_is_seen_within_a_poll(stop_signals_handled, tmp_path, capsys, monkeypatch):
    from conftest import run_main

    from randqa.engine import parallel

    signalled: list[float] = []

    def signal_at_first_task() -> None:
        if len(client.futures) == 1:
            signalled.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGTERM)

    client = _FakeClient(on_submit=signal_at_first_task)
    monkeypatch.setattr(parallel.Workers, "_start", lambda self: (client, None, None))
    # the tasks never end: only the signal ends the run (a bound far above a poll, for a hang alone)
    assert run_main(*LONG_ON_WORKERS, "--jobs", "2", "--json", str(tmp_path / "r.json")) == 143
    assert signalled and time.monotonic() - signalled[0] < PATIENCE_S
    assert json.loads((tmp_path / "r.json").read_text())["interrupted"] is True
    assert client.futures and all(f.cancelled for f in client.futures) and client.closed


def _self_signed(folder: Path, name: str) -> tuple[str, str]:
    """A certificate and its key (openssl), each its own CA."""
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    made = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
                           "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1"], capture_output=True)
    assert made.returncode == 0, made.stderr
    return str(cert), str(key)


@pytest.mark.skipif(subprocess.run(["which", "openssl"], capture_output=True).returncode != 0,
                    reason="makes its certificates with openssl")
def test_a_tls_scheduler(tmp_path, capsys):
    """tls:// with Dask's security: the segments go over TLS with the given
    files; without them, or with another CA, one line."""
    from distributed import LocalCluster
    from distributed.security import Security

    from conftest import run_main

    cert, key = _self_signed(tmp_path, "cluster")
    other, other_key = _self_signed(tmp_path, "other")
    security = Security(tls_ca_file=cert, tls_scheduler_cert=cert, tls_scheduler_key=key, tls_worker_cert=cert,
                        tls_worker_key=key, tls_client_cert=cert, tls_client_key=key, require_encryption=True)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tls://", host="127.0.0.1",
                      security=security, dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        args = [*QUICK_ON_WORKERS, "--scheduler", address, "--scheduler-timeout", "2"]
        assert run_main(*args, "--tls-ca-file", cert, "--tls-cert", cert, "--tls-key", key,
                        "--json", str(tmp_path / "r.json")) == 0
        execution = json.loads((tmp_path / "r.json").read_text())["execution"]
        assert execution["scheduler"] == address and execution["segments_on_workers"] == 32
        capsys.readouterr()
        refusals = {"needs the cluster's CA certificate and a client certificate": [],
                    "the TLS handshake failed": ["--tls-ca-file", other, "--tls-cert", other, "--tls-key", other_key]}
        for says, files in refusals.items():
            assert run_main(*args, *files) == 2
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and says in err, err
    assert run_main(*QUICK_ON_WORKERS, "--scheduler", "tcp://127.0.0.1:8786", "--tls-cert", cert) == 2
    assert "are for a tls:// --scheduler" in capsys.readouterr().err
@pytest.mark.parametrize("spec, split", [("mt19937", "jump"), ("java-random", "sequential")])
def test_interleaved_streams_on_workers(workers, spec, split):
    """--streams: a worker jumps every stream to its segment's place, or this
    process hands out the interleaved stream of streams that cannot jump;
    each stream alone and each pair's XOR merge as in one process."""
    from randqa.sources.multistream import StreamLayout, open_streams

    layout = StreamLayout(3, "consecutive")
    suite = load_suite("quick").with_streams(3, 4)
    segment = segment_size(suite_alignment(suite), None, default=1 << 20)
    size = 3 * segment + 1000

    def run(**kwargs):
        with open_streams(spec, SEED, layout) as source:
            return run_stream(source, suite, limit=size, **kwargs)

    on_workers = run(spec=spec, segment=segment, workers=workers)
    assert on_workers.execution["split"] == split
    assert on_workers.execution["segments_on_workers"] == 4
    assert comparable(on_workers) == comparable(run())


# ---------------------------------------------------------------- background start


class _InlineClient:
    """A Dask client of two worker threads whose tasks run when submitted."""

    dashboard_link = "http://127.0.0.1:0/status"

    def __init__(self) -> None:
        self.closed = False
        self.submitted = 0

    def scheduler_info(self, n_workers: int = -1) -> dict:
        return {"workers": {"a": {"nthreads": 1}, "b": {"nthreads": 1}}}

    def scatter(self, data, hash=False):
        return data

    def submit(self, function, *args, **kwargs) -> DoneFuture:
        self.submitted += 1
        return DoneFuture(function, args)

    def close(self, timeout: float = 0) -> None:
        self.closed = True


def test_a_run_shorter_than_the_start_never_waits_for_it(monkeypatch):
    """The cluster starts in the background while the run is tested here;
    a run that ends first returns at once, and what the start makes is shut
    down when it ends."""
    from randqa.engine import parallel

    release, made = threading.Event(), []

    def slow_start(self):
        release.wait(4 * PATIENCE_S)
        made.append(_InlineClient())
        return made[-1], None, None

    monkeypatch.setattr(parallel.Workers, "_start", slow_start)
    begin = time.monotonic()
    with Workers(2, notice=lambda line: None) as workers:
        with open_source("pcg64", seed=SEED) as source:
            result = run_stream(source, load_suite("quick"), limit=4 << 20, spec="pcg64", segment=1 << 20,
                                workers=workers)
    assert time.monotonic() - begin < PATIENCE_S  # the start ends only when released, after this
    execution = result.execution
    assert (execution["mode"], execution["run_mode"]) == ("in-process", "cluster")
    assert not workers.started and not made
    assert comparable(result) == one_process("quick", 4 << 20)
    release.set()
    deadline = time.monotonic() + PATIENCE_S
    while not (made and made[0].closed) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert made and made[0].closed and made[0].submitted == 0


def test_the_cluster_takes_over_once_it_is_up(monkeypatch):
    """Pieces are tested here until the background start ends; the segments
    after that go to the workers, and the results are one process's."""
    from randqa.engine import parallel

    tested, client = threading.Event(), _InlineClient()

    def start_after_a_piece(self):
        assert tested.wait(30)
        return client, None, None

    monkeypatch.setattr(parallel.Workers, "_start", start_after_a_piece)
    size, segment = (12 << 20) + 123, 1 << 20
    with Workers(2, notice=lambda line: None) as workers:
        def progressed(count: int) -> None:
            if not tested.is_set():
                tested.set()
                while not workers.ready:  # the start has ended before the next piece
                    time.sleep(0.01)

        with open_source("pcg64", seed=SEED) as source:
            result = run_stream(source, load_suite("quick"), limit=size, spec="pcg64", segment=segment,
                                workers=workers, on_progress=progressed)
    execution = result.execution
    assert (execution["mode"], execution["run_mode"]) == ("local-cluster", "cluster")
    assert execution["in_process_bytes"] == segment
    assert execution["segments_on_workers"] == client.submitted == -(-(size - segment) // segment)
    assert comparable(result) == one_process("quick", size)
