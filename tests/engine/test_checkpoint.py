"""Checkpoints (randqa/engine/checkpoint.py): an ``.npz`` of plain arrays and
JSON metadata, read back with ``allow_pickle=False``; a run stopped at any
point and resumed from its checkpoint gives the results of an uninterrupted
run; files that are truncated, corrupt, of another version or of another
run are refused with one line.
"""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest

from randqa import __version__
from randqa.battery.suites import load_suite
from randqa.engine.checkpoint import Checkpoint, RunSpec, read_checkpoint, suite_from_json, suite_to_json
from randqa.engine.execute import Progressive, run_stream
from randqa.engine.launch import Execution, launch
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
    spec = RunSpec(kind="test", source="pcg64", suite=suite_to_json(suite), seed=SEED, limit=limit,
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
    resumed = launch(spec, Execution(checkpoint=path, notice=lambda line: None))
    assert not resumed.interrupted
    assert comparable(resumed) == comparable(expected)
    assert resumed.extra["execution"]["resumed_at_bytes"] == saved.progress.position
    # the finished run's checkpoint reports the same results again
    again = launch(spec, Execution(checkpoint=path, notice=lambda line: None))
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


def _rewrite_meta(path: str, change) -> None:
    with np.load(path, allow_pickle=False) as npz:
        arrays = {name: npz[name] for name in npz.files}
    meta = json.loads(arrays["meta"].tobytes())
    change(meta)
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    with open(path, "wb") as f:
        f.write(buffer.getvalue())


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
    _rewrite_meta(path, lambda meta: meta.update(randqa_version="0.0.0"))
    with pytest.raises(InputError, match="written by randqa 0.0.0"):
        read_checkpoint(path)
    with open(path, "wb") as f:
        f.write(data)

    with np.load(path, allow_pickle=False) as saved:
        small = next(name for name in saved.files if name != "meta" and saved[name].dtype == np.uint8)

    def wrong_dtype(meta):
        meta["state"][2]["counts"] = {"$array": small}  # chi_square's int64 counts replaced by a uint8 array

    _rewrite_meta(path, wrong_dtype)
    with pytest.raises(InputError, match="does not fit"):
        launch(spec, Execution(checkpoint=path, notice=lambda line: None))


def test_a_checkpoint_of_another_run_is_refused(tmp_path):
    _, path, spec = _run(tmp_path, "quick", limit=4 << 20, stop_after=1)
    others = {
        "suite 'quick', not 'standard'": dict(suite=suite_to_json(load_suite("standard"))),
        "source pcg64, not chacha": dict(source="chacha"),
        f"seed {SEED}, not 8": dict(seed=8),
        "limit 4194304, not 8388608": dict(limit=8 << 20),
    }
    for problem, change in others.items():
        other = RunSpec(**dict(spec.to_json(), **change))
        with pytest.raises(UsageError, match=problem):
            launch(other, Execution(checkpoint=path, notice=lambda line: None))
    # a seed not given is the checkpoint's
    unseeded = RunSpec(**dict(spec.to_json(), seed=None))
    assert launch(unseeded, Execution(checkpoint=path, notice=lambda line: None)).source["seed"] == SEED


def test_a_changed_file_is_another_run(tmp_path):
    from randqa.engine.launch import identity_of

    data_path = tmp_path / "data.bin"
    data_path.write_bytes(np.random.default_rng(1).bytes(2 << 20))
    suite = load_suite("quick")
    spec = RunSpec(kind="test", source=str(data_path), suite=suite_to_json(suite), segment=1 << 20,
                   identity=identity_of(str(data_path)))
    path = str(tmp_path / "file.ckpt")
    launch(spec, Execution(checkpoint=path, notice=lambda line: None))
    data_path.write_bytes(np.random.default_rng(2).bytes(2 << 20))
    changed = RunSpec(**dict(spec.to_json(), identity=identity_of(str(data_path))))
    with pytest.raises(UsageError, match="other data"):
        launch(changed, Execution(checkpoint=path, notice=lambda line: None))
    assert zipfile.is_zipfile(path)
    # `randqa resume` continues the checkpoint's own run: only the data can tell
    saved = read_checkpoint(path)
    with pytest.raises(UsageError, match="other data"):
        launch(saved.run, Execution(checkpoint=path, notice=lambda line: None), saved=saved)
