"""``randqa.test`` on a name or a path takes the CLI's path: the request
opens the source, and its segments are made as ``randqa test``'s are (a
generator's by jumping, a file's by reading at an offset), not read in
order in one thread.

Source: issue 34 ("the API opens sources where the CLI does").  The run
loop is stopped as soon as it is built, so a 4 GiB run costs nothing: what
it would run (how the source is split, the segments, the mode, what the
workers open) is compared between ``randqa.test(..., threads=2)`` and
``randqa test ... --jobs 2``.
"""

from __future__ import annotations

import os

import pytest

import randqa
from randqa.cli import main
from randqa.engine.loop import RunLoop


class _Built(Exception):
    """Raised by the stand-in run loop once the run is built."""


@pytest.fixture
def built(monkeypatch) -> list[dict]:
    """What each run would do, recorded by a run loop that stops before reading anything."""
    seen: list[dict] = []

    def record(loop: RunLoop):
        job = loop.workload.job
        seen.append({"split": loop.workload.split, "limit": loop.limit, "segment": loop.segment_units,
                     "segments": len(range(0, loop.limit, loop.segment_units)), "mode": loop.mode.kind,
                     "side_by_side": loop.mode.side_by_side, "opens": getattr(job, "spec", None),
                     "seed": getattr(job, "seed", None)})
        raise _Built

    monkeypatch.setattr(RunLoop, "run", record)
    return seen


@pytest.fixture
def four_gib_file(tmp_path) -> str:
    path = tmp_path / "zeros.bin"
    with open(path, "wb") as f:
        f.truncate(4 << 30)  # sparse: nothing is written, nothing is read
    return str(path)


@pytest.mark.parametrize("source, seed, split", [("pcg64", 1, "jump"), ("four_gib_file", None, "pread")])
def test_a_name_or_path_is_split_as_the_cli_splits_it(request, capsys, built, source, seed, split):
    spec = request.getfixturevalue(source) if source == "four_gib_file" else source
    with pytest.raises(_Built):
        randqa.test(spec, n="4G", threads=2, seed=seed)
    seed_args = [] if seed is None else ["--seed", str(seed)]
    with pytest.raises(SystemExit):
        main(["test", spec, "-n", "4G", "--jobs", "2", *seed_args])
    capsys.readouterr()
    api, cli = built
    assert api == cli
    assert api["split"] == split and api["segments"] > 1 and api["opens"] == spec
    assert os.path.basename(api["opens"]) == os.path.basename(spec)



def test_a_class_randqa_knows_runs_as_its_name(capsys, built):
    import numpy as np

    with pytest.raises(_Built):
        randqa.test(np.random.PCG64, n="4G", threads=2, seed=1)
    with pytest.raises(SystemExit):
        main(["test", "pcg64", "-n", "4G", "--jobs", "2", "--seed", "1"])
    capsys.readouterr()
    assert built[0] == built[1] and built[0]["split"] == "jump"
