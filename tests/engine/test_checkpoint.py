"""Checkpoints (randqa/engine/checkpoint.py): an ``.npz`` of plain arrays and
JSON metadata, read back with ``allow_pickle=False``; a run stopped at any
point and resumed from its checkpoint gives the results of an uninterrupted
run; files that are truncated, corrupt, of another version or of another
run are refused with one line.  A checkpoint is untrusted data: a state
naming a module imports nothing, state and metadata are bound by a digest
and by the counts the progress states, sizes are bounded by the suite's
stated needs before anything is inflated (a deflated member of 64 MiB, an
npy header claiming 2^40 elements), only regular files are opened (devices,
a FIFO, a folder), deep nesting is one line, and an fcntl lock keeps a
second run off the path.  Minimum data: 4 MiB of pcg64 with a save after
the first MiB.
"""

from __future__ import annotations

import io
import json
import os
import sys
import threading
import zipfile

import numpy as np
import pytest

from conftest import rewrite_checkpoint

from randqa import __version__
from randqa.battery.suites import load_suite
from randqa.engine.checkpoint import Checkpoint, read_checkpoint
from randqa.engine.run import Progressive, run_stream
from randqa.engine.execute import Execution, execute
from randqa.engine.feeding import CHUNK_BYTES
from randqa.engine.request import RunRequest, suite_from_json, suite_to_json
from randqa.errors import InputError, UsageError
from randqa.sources import open_source
from small_suites import collision_suite

SEED = 7


def comparable(result) -> dict:
    doc = result.to_json()
    for key in ("elapsed_s", "execution"):
        doc.pop(key, None)
    if "lengths" in doc:
        doc["lengths"] = [{k: v for k, v in entry.items() if k != "elapsed_s"} for entry in doc["lengths"]]
    return doc


class StopAfter(Checkpoint):
    """A checkpoint that raises KeyboardInterrupt (Ctrl-C) after ``saves`` writes."""

    def __init__(self, *args, saves: int, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.saves = saves

    def save(self, progress, accumulators) -> None:
        super().save(progress, accumulators)
        self.saves -= 1
        if self.saves == 0:
            raise KeyboardInterrupt


def _run(tmp_path, suite_name, *, limit=None, progressive=None, stop_after=None, segment=1 << 20):
    suite = load_suite(suite_name) if isinstance(suite_name, str) else suite_name
    spec = RunRequest(kind="test", source="pcg64", suite=suite_to_json(suite), seed=SEED, limit=limit,
                   progressive=None if progressive is None else vars(progressive), segment=segment)
    path = str(tmp_path / "run.ckpt")
    saver = None
    if stop_after is not None:
        saver = StopAfter(path, 0.0, spec, saves=stop_after)
    with open_source("pcg64", seed=SEED) as source:
        result = run_stream(source, suite, limit=limit, progressive=progressive, spec="pcg64", segment=segment,
                            saver=saver)
    return result, path, spec


@pytest.mark.parametrize("suite_name, kwargs, saves", [
    ("quick", {"limit": (5 << 20) + 3}, 2),
    ("standard", {"progressive": Progressive(1 << 10, 6 << 20, keep_going=True), "segment": None}, 10),
    ("nist-sp800-22", {"limit": 3 * 125_000 + 10, "segment": 125_000}, 2),
    (collision_suite(), {"limit": (5 << 20) + 8}, 3),  # sets of kept values and a block across segments
], ids=["quick", "standard", "nist-sp800-22", "collisions"])
def test_a_run_stopped_and_resumed_gives_the_uninterrupted_results(tmp_path, suite_name, kwargs, saves):
    expected, _, _ = _run(tmp_path, suite_name, **kwargs)
    stopped, path, spec = _run(tmp_path, suite_name, stop_after=saves, **kwargs)
    assert stopped.interrupted
    saved = read_checkpoint(path)
    assert 0 < saved.progress.position < expected.bytes_tested and not saved.progress.complete
    resumed = execute(spec, Execution(checkpoint=path, notice=lambda line: None))
    assert not resumed.interrupted
    assert comparable(resumed) == comparable(expected)
    assert resumed.execution["resumed_at_bytes"] == saved.progress.position
    # the finished run's checkpoint reports the same results again
    again = execute(spec, Execution(checkpoint=path, notice=lambda line: None))
    assert comparable(again) == comparable(expected)


def test_the_file_is_arrays_and_json_only(tmp_path):
    _, path, _ = _run(tmp_path, "standard", limit=1 << 20, stop_after=1, segment=None)
    with np.load(path, allow_pickle=False) as npz:
        arrays = {name: npz[name] for name in npz.files}
    assert all(a.dtype != object for a in arrays.values())
    meta = json.loads(arrays.pop("meta").tobytes())
    assert meta["format"] == "randqa-checkpoint" and meta["randqa_version"] == __version__
    assert meta["run"]["source"] == "pcg64" and meta["run"]["seed"] == SEED
    assert meta["progress"]["position"] == 1 << 20
    assert len(arrays) > 10 and set(arrays) == {f"a{i}" for i in range(len(arrays))}
    assert suite_from_json(meta["run"]["suite"]).build()[0].name == "frequency"


def test_damaged_checkpoints_are_refused(tmp_path):
    _, path, spec = _run(tmp_path, "quick", limit=4 << 20, stop_after=1)
    data = open(path, "rb").read()
    cases = {
        "truncated": data[: len(data) // 2],
        "corrupt": data[:200] + bytes(b ^ 0xFF for b in data[200:260]) + data[260:],
        "empty": b"",
        "not a checkpoint": b"PK\x03\x04 hello",
    }
    for name, content in cases.items():
        with open(path, "wb") as f:
            f.write(content)
        with pytest.raises(InputError, match="checkpoint .*run.ckpt: "):
            read_checkpoint(path)
    with open(path, "wb") as f:
        f.write(data)
    read_checkpoint(path)
    rewrite_checkpoint(path, lambda meta, arrays: meta.update(randqa_version="0.0.0"))
    with pytest.raises(InputError, match="written by randqa 0.0.0"):
        read_checkpoint(path)
    with open(path, "wb") as f:
        f.write(data)

    def wrong_dtype(meta, arrays):
        name = meta["state"][2]["counts"]["$array"]  # chi_square's int64 counts made uint8
        arrays[name] = arrays[name].astype(np.uint8)

    rewrite_checkpoint(path, wrong_dtype)
    with pytest.raises(InputError, match="does not fit"):
        execute(spec, Execution(checkpoint=path, notice=lambda line: None))


def test_a_checkpoint_of_another_run_is_refused(tmp_path):
    _, path, spec = _run(tmp_path, "quick", limit=4 << 20, stop_after=1)
    others = {
        "suite 'quick', not 'standard'": dict(suite=suite_to_json(load_suite("standard"))),
        "source pcg64, not chacha": dict(source="chacha"),
        f"seed {SEED}, not 8": dict(seed=8),
        "limit 4194304, not 8388608": dict(limit=8 << 20),
    }
    for problem, change in others.items():
        other = RunRequest(**dict(spec.to_json(), **change))
        with pytest.raises(UsageError, match=problem):
            execute(other, Execution(checkpoint=path, notice=lambda line: None))
    # a seed not given is the checkpoint's
    unseeded = RunRequest(**dict(spec.to_json(), seed=None))
    assert execute(unseeded, Execution(checkpoint=path, notice=lambda line: None)).source["seed"] == SEED


def test_a_changed_file_is_another_run(tmp_path):
    from randqa.engine.request import identity_of

    data_path = tmp_path / "data.bin"
    data_path.write_bytes(np.random.default_rng(1).bytes(2 << 20))
    suite = load_suite("quick")
    spec = RunRequest(kind="test", source=str(data_path), suite=suite_to_json(suite), segment=1 << 20,
                   identity=identity_of(str(data_path)))
    path = str(tmp_path / "file.ckpt")
    execute(spec, Execution(checkpoint=path, notice=lambda line: None))
    data_path.write_bytes(np.random.default_rng(2).bytes(2 << 20))
    changed = RunRequest(**dict(spec.to_json(), identity=identity_of(str(data_path))))
    with pytest.raises(UsageError, match="other data"):
        execute(changed, Execution(checkpoint=path, notice=lambda line: None))
    assert zipfile.is_zipfile(path)
    # `randqa resume` continues the checkpoint's own run: only the data can tell
    saved = read_checkpoint(path)
    with pytest.raises(UsageError, match="other data"):
        execute(saved.run, Execution(checkpoint=path, notice=lambda line: None), saved=saved)


# ---------------------------------------------------------------- a checkpoint as untrusted data


@pytest.fixture
def quick_checkpoint(tmp_path) -> str:
    """A checkpoint of 4 MiB of pcg64 through the quick suite, stopped after its first save."""
    return _run(tmp_path, "quick", limit=4 << 20, stop_after=1)[1]


def _members(path: str) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _write_members(path: str, members: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> None:
    with zipfile.ZipFile(path, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def test_a_state_naming_a_module_imports_nothing(quick_checkpoint, monkeypatch):
    # before: "randqa.__main__:X" imported randqa/__main__.py, which ran the CLI inside the load
    monkeypatch.delitem(sys.modules, "randqa.__main__", raising=False)

    def name_main(meta, arrays):
        blocks = meta["state"][4]["_blocks"]  # birthday spacings' pending block, a nested object
        assert blocks["$object"] == "randqa.battery._blocks:WholeBlocks"
        blocks["$object"] = "randqa.__main__:X"

    rewrite_checkpoint(quick_checkpoint, name_main)
    with pytest.raises(InputError, match="not one of the classes a randqa state holds"):
        execute(read_checkpoint(quick_checkpoint).run, Execution(checkpoint=quick_checkpoint, notice=lambda line: None))
    assert "randqa.__main__" not in sys.modules


def test_state_and_metadata_are_bound_by_a_digest(quick_checkpoint):
    # before: a pcg64 state under metadata saying mt19937 resumed with exit 0
    rewrite_checkpoint(quick_checkpoint, lambda meta, arrays: meta["run"].update(source="mt19937"), digest=False)
    with pytest.raises(InputError, match="the digest differs"):
        read_checkpoint(quick_checkpoint)


def test_a_state_must_have_counted_what_the_progress_says(quick_checkpoint):
    # even with its digest made again, a state of the first MiB cannot claim 8 MiB done
    rewrite_checkpoint(quick_checkpoint, lambda meta, arrays: meta["progress"].update(position=8 << 20))
    with pytest.raises(InputError, match="counted 1048576 bytes_seen, the run 8388608"):
        read_checkpoint(quick_checkpoint)


@pytest.mark.parametrize("counted", [[], {"a": 1}, {"$tuple": [1]}, 5])
def test_a_shared_statistic_whose_count_was_changed_is_refused_in_one_line(quick_checkpoint, counted):
    # found by the checkpoint fuzz test: a list where frequency's shared counts hold an int
    # gave "internal error (RuntimeError ...)" and exit 3; a different int did the same
    def change(meta, arrays):
        shared = meta["state"][0]["shared"]
        assert shared["$object"] == "randqa.battery._shared:ByteCounts"
        shared["attrs"]["bytes_seen"] = counted

    rewrite_checkpoint(quick_checkpoint, change)
    with pytest.raises(InputError, match="its state does not fit the run .*bytes_seen|its state does not fit the run "
                                         ".*saw 1048576 bytes but its shared statistic 5"):
        execute(read_checkpoint(quick_checkpoint).run,
                Execution(checkpoint=quick_checkpoint, notice=lambda line: None))


def test_sizes_are_bounded_by_the_suite_before_anything_is_inflated(quick_checkpoint):
    # before: every member was inflated, referenced or not (574 KB of zip held 512 MiB: a 565 MB peak)
    members = _members(quick_checkpoint)
    name = next(n for n in members if n != "meta.npy")
    bomb = dict(members, **{name: _npy(np.zeros(64 << 20, dtype=np.uint8))})
    _write_members(quick_checkpoint, bomb, zipfile.ZIP_DEFLATED)
    with pytest.raises(InputError, match="its arrays declare 64.0 MiB; a state of suite 'quick' holds at most"):
        read_checkpoint(quick_checkpoint)
    _write_members(quick_checkpoint, dict(members, **{"a999.npy": _npy(np.zeros(1, dtype=np.uint8))}))
    with pytest.raises(InputError, match="its state and its arrays do not match"):
        read_checkpoint(quick_checkpoint)
    # an npy header claiming 2^40 elements in a few bytes: before, "out of memory" (numpy allocated them first)
    header = _npy(np.zeros(1 << 10, dtype=np.uint8)).replace(b"(1024,)", b"(1099511627776,)")
    _write_members(quick_checkpoint, dict(members, **{name: header}))
    with pytest.raises(InputError, match="does not match its size"):
        read_checkpoint(quick_checkpoint)


@pytest.mark.parametrize("kind", ["/dev/zero", "/dev/full", "symlink to /dev/zero", "fifo", "folder"])
def test_only_a_regular_file_is_read(tmp_path, kind):
    # before: /dev/zero and /dev/full were read until memory ran out, and a FIFO blocked
    path = tmp_path / "c.ckpt"
    if kind.startswith("/dev/"):
        path = kind
    elif kind == "symlink to /dev/zero":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    outcome: list[BaseException] = []
    reader = threading.Thread(target=lambda: outcome.append(pytest.raises(InputError, read_checkpoint, str(path)).value),
                              daemon=True)
    reader.start()
    reader.join(timeout=10)
    assert outcome, f"reading {kind} did not end"
    assert "not a regular file" in str(outcome[0])


def test_deep_nesting_is_one_line(quick_checkpoint):
    # before: a RecursionError, exit 3
    members = _members(quick_checkpoint)
    text = np.lib.format.read_array(io.BytesIO(members["meta.npy"])).tobytes().decode()
    deep = text.replace('"context": null', '"context": ' + "[" * 100_000 + "]" * 100_000)
    _write_members(quick_checkpoint, dict(members, **{"meta.npy": _npy(np.frombuffer(deep.encode(), np.uint8))}))
    with pytest.raises(InputError, match="nested too deeply"):
        read_checkpoint(quick_checkpoint)


def test_interleaved_streams_stopped_and_resumed(tmp_path):
    """A run of --streams saves the run's streams (scheme, interleave) and every
    stream's and pair's state; resumed, it gives the uninterrupted results."""
    from randqa.engine.request import open_request
    from randqa.engine.plan import TestOptions, plan_test

    plan = plan_test(TestOptions(size=(3 << 20) + 5, seed=SEED, suite="quick", streams=3, stream_seeds="spawn"))
    spec = plan.request("pcg64", segment=10 * 3 * 32768)
    assert spec.streams == {"count": 3, "scheme": "spawn", "interleave": 8}
    suite = suite_from_json(spec.suite)

    def run(saver=None):
        with open_request(spec) as source:
            return run_stream(source, suite, limit=spec.limit, spec="pcg64", segment=spec.segment, saver=saver)

    expected = run()
    path = str(tmp_path / "streams.ckpt")
    assert run(StopAfter(path, 0.0, spec, saves=2)).interrupted
    resumed = execute(spec, Execution(checkpoint=path, notice=lambda line: None))
    assert comparable(resumed) == comparable(expected) and resumed.execution["sessions"] == 2
    other = RunRequest(**dict(spec.to_json(), streams=dict(spec.streams, scheme="jump")))
    with pytest.raises(UsageError, match="streams"):
        execute(other, Execution(checkpoint=path, notice=lambda line: None))


# ---------------------------------------------------------------- a file stopped and resumed


def stop_at(at_least: int):
    """A progress bar for ``execute`` that stops the run (Ctrl-C) once it
    has counted ``at_least`` bytes: a stop mid-piece, whatever the run mode."""
    import contextlib

    @contextlib.contextmanager
    def bar(total):
        done = 0

        def on_progress(count: int) -> None:
            nonlocal done
            done += count
            if done >= at_least:
                raise KeyboardInterrupt
        yield on_progress
    return bar


def _file_run(tmp_path, data: bytes, segment: int | None):
    from randqa.engine.request import identity_of

    data_path = tmp_path / "data.bin"
    data_path.write_bytes(data)
    return RunRequest(kind="test", source=str(data_path), suite=suite_to_json(load_suite("quick")),
                      segment=segment, identity=identity_of(str(data_path))), data_path


@pytest.mark.parametrize("mode", ["jobs-1", "default", "segment"])
def test_a_file_stopped_and_resumed_is_tested_to_its_end(tmp_path, mode):
    """A file's resumed run reads from where it stopped to the file's end, in
    every run mode: --jobs 1, the default (its threads), and --segment (a
    local cluster, which takes over once it is up), and gives the
    uninterrupted run's statistics."""
    from randqa.engine.parallel import Workers

    size = 4 * CHUNK_BYTES  # a stop comes after at most two chunks: the one read and the one in flight
    spec, _ = _file_run(tmp_path, np.random.default_rng(1).bytes(size), 1 << 20 if mode == "segment" else None)
    expected = execute(spec, Execution(notice=lambda line: None))
    path = str(tmp_path / "file.ckpt")

    def run(bar=None):
        workers = None if mode == "jobs-1" else Workers(2, notice=lambda line: None)
        execution = Execution(workers=workers, threads=1 if mode == "jobs-1" else 2, checkpoint=path,
                              notice=lambda line: None)
        try:
            return execute(spec, execution, bar)
        finally:
            if workers is not None:
                workers.close()

    stopped = run(stop_at(2 << 20))
    assert stopped.interrupted and 0 < stopped.bytes_tested == read_checkpoint(path).progress.position < size
    resumed = run()
    assert not resumed.interrupted and resumed.bytes_tested == size
    assert comparable(resumed) == comparable(expected)


def test_bad_data_after_where_a_file_stopped_fails_when_resumed(tmp_path):
    """Zeros written into the part a stopped run had not tested yet are
    tested when it resumes (the file's first MiB, its identity, is unchanged)."""
    size = 4 * CHUNK_BYTES
    spec, data_path = _file_run(tmp_path, np.random.default_rng(2).bytes(size), None)
    path = str(tmp_path / "file.ckpt")
    stopped = execute(spec, Execution(checkpoint=path, notice=lambda line: None), stop_at(2 << 20))
    assert stopped.interrupted and stopped.bytes_tested <= 2 * CHUNK_BYTES
    with open(data_path, "r+b") as f:
        f.seek(3 * CHUNK_BYTES)
        f.write(bytes(1 << 20))
    resumed = execute(spec, Execution(checkpoint=path, notice=lambda line: None))
    assert resumed.bytes_tested == size and resumed.verdict == "fail"


def test_a_stop_signal_during_the_final_save_stops_the_run(tmp_path):
    """A stop signal that arrives while the finished run's checkpoint is
    written waits for the file to be whole, and the run is then reported as
    stopped (its command exits 128 + N), not as one that ended by itself."""
    import signal

    class SignalledDuringFinalSave(Checkpoint):
        def save(self, progress, accumulators) -> None:
            if progress.complete:
                os.kill(os.getpid(), signal.SIGINT)
            super().save(progress, accumulators)

    suite = load_suite("quick")
    spec = RunRequest(kind="test", source="pcg64", suite=suite_to_json(suite), seed=SEED, limit=1 << 20)
    path = str(tmp_path / "run.ckpt")
    with open_source("pcg64", seed=SEED) as source:
        result = run_stream(source, suite, limit=1 << 20, spec="pcg64", saver=SignalledDuringFinalSave(path, 1e9, spec))
    assert result.interrupted and result.bytes_tested == 1 << 20
    assert read_checkpoint(path).progress.complete


def test_a_checkpoint_that_cannot_be_written_leaves_the_run_going(tmp_path, monkeypatch):
    """A save that fails (a full disk) is recorded, not raised: the run goes
    on to its end and its results are reported; a later save that succeeds
    clears it."""
    from randqa.engine import checkpoint as checkpoint_module

    def full_disk(path, arrays):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(checkpoint_module, "_write_npz_atomically", full_disk)
    suite = load_suite("quick")
    spec = RunRequest(kind="test", source="pcg64", suite=suite_to_json(suite), seed=SEED, limit=4 << 20,
                      segment=1 << 20)
    execution = Execution(checkpoint=str(tmp_path / "run.ckpt"), checkpoint_every_s=0.0, notice=lambda line: None)
    result = execute(spec, execution)
    assert result.bytes_tested == 4 << 20 and not result.interrupted
    assert "No space left on device" in execution.checkpoint_failure
    monkeypatch.undo()
    again = Execution(checkpoint=str(tmp_path / "run.ckpt"), notice=lambda line: None)
    execute(spec, again)
    assert again.checkpoint_failure is None and read_checkpoint(str(tmp_path / "run.ckpt")).progress.complete


def test_a_stream_read_once_resumes_only_on_the_same_data(tmp_path):
    """A stream that cannot be opened again (stdin) is known by its first
    MiB, as a file is: a checkpoint saves its SHA-256, and a run resumed on
    another stream is refused with one line, on the same one it gives the
    uninterrupted results."""
    import hashlib

    from randqa.sources.streams import ByteStream

    data = np.random.default_rng(4).bytes(3 << 20)
    other = bytearray(data)
    other[100] ^= 1
    (tmp_path / "same.bin").write_bytes(data)
    (tmp_path / "other.bin").write_bytes(bytes(other))
    suite = load_suite("quick")
    spec = RunRequest(kind="test", source="-", suite=suite_to_json(suite), segment=1 << 20)
    path = str(tmp_path / "stdin.ckpt")

    def run(name: str, **kwargs):
        with ByteStream(str(tmp_path / name)) as source:  # no spec: read once, in order, as stdin is
            return run_stream(source, suite, segment=1 << 20, **kwargs)

    expected = run("same.bin")
    assert run("same.bin", saver=StopAfter(path, 0.0, spec, saves=2)).interrupted
    saved = read_checkpoint(path)
    assert saved.progress.position == 2 << 20
    assert saved.progress.head == {"bytes": 1 << 20, "sha256": hashlib.sha256(data[:1 << 20]).hexdigest()}
    with pytest.raises(InputError, match=r"other\.bin: not the stream the checkpoint tested \(its first "
                                         r"1,048,576 bytes differ\)"):
        run("other.bin", resume=(saved.progress, saved.states))
    saved = read_checkpoint(path)
    assert comparable(run("same.bin", resume=(saved.progress, saved.states))) == comparable(expected)


def test_saving_takes_at_most_one_copy_of_the_largest_array(tmp_path):
    """A checkpoint is streamed into its file: saving a state whose largest
    part is 16 MB of values compared takes little memory (the zip was built
    whole in memory, and the set's table copied with it), and its file grows
    with the values, not with the table (a capacity of 2^23)."""
    import tracemalloc

    from randqa.battery.suites import parse_suite

    suite = parse_suite(b'[[tests]]\ntest = "decimated_collisions"\nbits = 40\nvalues = 8388608\n', "big.toml")
    spec = RunRequest(kind="test", source="pcg64", suite=suite_to_json(suite), seed=SEED, limit=16 << 20)
    accumulators = suite.build()
    with open_source("pcg64", seed=SEED) as source:
        data = np.empty(16 << 20, dtype=np.uint8)
        source.readinto(memoryview(data))
    for acc in accumulators:
        acc.update(data)
    del data
    saver = Checkpoint(str(tmp_path / "big.ckpt"), 0.0, spec)
    from randqa.engine.records import CheckpointRecord

    from randqa.battery._state import state_classes

    state_classes()  # the first save imports the battery's modules, which is no copy of the state
    tracemalloc.start()
    try:
        saver.save(CheckpointRecord(position=16 << 20), accumulators)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    values = 8 * (2 << 20)  # 2 Mi words of 8 bytes, each a value compared
    assert peak < 4 << 20, peak  # at most one copy of the largest array is allowed: none is taken
    assert os.path.getsize(tmp_path / "big.ckpt") < values + (1 << 20)
    saved = read_checkpoint(str(tmp_path / "big.ckpt"))
    resumed = suite.build()
    for acc, state in zip(resumed, saved.states):
        acc.load_state(state)
    assert [r.to_json() for acc in resumed for r in acc.finalize()] == \
        [r.to_json() for acc in accumulators for r in acc.finalize()]


def test_a_checkpoint_over_max_memory_is_not_called_damaged(quick_checkpoint):
    with pytest.raises(InputError, match=r"needs .* over --max-memory 1.0 KiB: resume it with a larger --max-memory$"
                       ) as refused:
        read_checkpoint(quick_checkpoint, max_memory=1 << 10)
    assert "damaged" not in str(refused.value)
