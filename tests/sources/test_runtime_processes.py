"""randqa.sources.runtimes.processes: a runtime's short command (version
query, build, timing run) keeps at most a bounded output, and leaves no
process behind: not what it forked, not after a timeout, too much output
or a Ctrl-C.  The commands are ``sh`` scripts that write the pids to kill
into a file."""

from __future__ import annotations

import os
import time

import pytest

from process_checks import GONE_WITHIN_S, gone, pids
from randqa.sources.runtimes.processes import CommandFailed, run_bounded

def test_a_command_that_prints_without_end_is_stopped_with_bounded_output():
    with pytest.raises(CommandFailed, match="printed more than 65536 bytes"):
        run_bounded(["yes"], timeout=GONE_WITHIN_S, max_bytes=1 << 16)


def test_the_exit_status_and_output_are_the_commands():
    done = run_bounded(["sh", "-c", "echo out; echo err >&2; exit 3"], timeout=GONE_WITHIN_S)
    assert (done.returncode, done.stdout, done.stderr) == (3, "out\n", "err\n")


def test_what_a_command_forks_is_killed_when_it_ends(tmp_path):
    # before: a driver's background child outlived it
    record = tmp_path / "pids"
    done = run_bounded(["sh", "-c", f"sleep 300 & echo $! > {record}; echo done"], timeout=GONE_WITHIN_S)
    assert done.returncode == 0 and done.stdout == "done\n"
    assert gone(pids(record)[0])


def test_a_child_holding_the_output_open_does_not_hold_the_answer(tmp_path):
    record = tmp_path / "pids"
    started = time.monotonic()
    done = run_bounded(["sh", "-c", f"sleep 300 & echo $! > {record}; echo done; exit 0"], timeout=250)
    assert done.stdout == "done\n" and time.monotonic() - started < 200
    assert gone(pids(record)[0])


def test_a_hung_command_and_its_children_are_killed_at_the_timeout(tmp_path):
    # before: subprocess.run killed the hung `node --version` alone, then waited on the pipes its children held
    record = tmp_path / "pids"
    with pytest.raises(CommandFailed, match="took more than 0.5 s"):
        run_bounded(["sh", "-c", f"sleep 300 & echo $$ $! > {record}; wait"], timeout=0.5)
    assert all(gone(pid) for pid in pids(record))


def test_a_ctrl_c_while_waiting_kills_the_command_and_its_children(tmp_path):
    # before: Ctrl-C during compare's speed timing left the timing process running
    record = tmp_path / "pids"
    # the Ctrl-C comes once the command runs, as a user's does (not while Popen starts it)
    script = f"sleep 300 & echo $$ $! > {record}; sleep 1; kill -INT {os.getpid()}; wait"
    with pytest.raises(KeyboardInterrupt):
        run_bounded(["sh", "-c", script], timeout=GONE_WITHIN_S * 4)
    assert all(gone(pid) for pid in pids(record))


def test_a_command_that_cannot_start_is_one_line():
    with pytest.raises(CommandFailed, match="cannot start it"):
        run_bounded(["/nonexistent/program"], timeout=1)
