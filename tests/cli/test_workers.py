"""What the commands that run on workers share (randqa/cli/workers.py),
as a user meets it: a run whose checkpoint cannot be written (a full disk:
a real tmpfs, root only) still writes its JSON and prints its table, then
says so on one line and exits 2.  Minimum data: 1 MiB of pcg64."""

from __future__ import annotations

import json

from cli_harness import assert_one_error_line, randqa, small_tmpfs


def test_a_full_disk_at_the_final_checkpoint_keeps_the_results(tmp_path):
    with small_tmpfs(tmp_path / "full", size="8k") as full:  # smaller than the quick suite's checkpoint
        out = tmp_path / "b.json"
        done = randqa("test", "pcg64", "-n", "1M", "--seed", "1", "--suite", "quick", "--no-progress",
                      "--checkpoint", str(full / "b.ckpt"), "--json", str(out))
        assert done.code == 2
        assert_one_error_line(done, f"--checkpoint {full / 'b.ckpt'}", "No space left on device")
        assert "verdict: PASS" in done.out
        doc = json.loads(out.read_text())
        assert doc["bytes_tested"] == 1 << 20 and not doc["interrupted"]
        assert not (full / "b.ckpt").exists()


def test_a_full_disk_at_a_comparisons_last_checkpoint_keeps_the_results(tmp_path):
    with small_tmpfs(tmp_path / "full", size="8k") as full:
        out = tmp_path / "c.json"
        done = randqa("compare", "pcg64", "-n", "1M", "--seed", "1", "--suite", "quick", "--no-progress",
                      "--no-predict", "--checkpoint", str(full / "c.ckpt"), "--json", str(out), "--no-html")
        assert done.code == 2
        assert_one_error_line(done, f"--checkpoint {full / 'c.ckpt'}", "No space left on device")
        doc = json.loads(out.read_text())
        assert [run["bytes_tested"] for run in doc["runs"]] == [1 << 20] and not doc["interrupted"]
        assert not (full / "c.ckpt").exists()
