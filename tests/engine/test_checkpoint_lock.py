"""The checkpoint lock (randqa/engine/checkpoint_lock.py): a second run on one
checkpoint path is refused with one line naming the first one's PID, and
the lock file goes with the run."""

from __future__ import annotations

import os

from conftest import run_main
from randqa.engine.checkpoint_lock import CheckpointLock


def test_a_lock_keeps_a_second_run_off_the_checkpoint(tmp_path, capsys):
    path = tmp_path / "c.ckpt"
    with CheckpointLock(str(path)):
        assert (tmp_path / "c.ckpt.lock").read_text().strip() == str(os.getpid())
        code = run_main("test", "pcg64", "-n", "64K", "--suite", "quick", "--jobs", "1", "--checkpoint", str(path))
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"in use by another randqa run (PID {os.getpid()})" in err
    assert not path.exists() and not (tmp_path / "c.ckpt.lock").exists()
    assert run_main("test", "pcg64", "-n", "64K", "--suite", "quick", "--jobs", "1", "--checkpoint", str(path)) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.ckpt"]  # the lock file goes with the run
