"""The runtime-backend framework (randqa/sources/runtimes/): the registry's
NAME / NAME-live pairs and their seeds, the live source's process (its own
session, killed and reaped on close, a death reported in one line), the
refusal of a runtime that is not installed, and the build cache of compiled
drivers (keyed by sources and compiler, built once).  Everything here runs
``sh`` or nothing; the runtimes themselves are in test_runtime_<runtime>.py.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from conftest import run_cli_inprocess
from randqa.errors import InputError, UsageError
from randqa.sources.backends import find_backend, open_backend
from randqa.sources.runtimes import LIVE_SUFFIX, driver_for, find_runtime_backend, runtime_backends
from randqa.files import cache_root
from randqa.sources.runtimes.driver import CompiledDriver, RuntimeDriver
from randqa.sources.runtimes.live import LiveSource


def live(command: list[str]) -> LiveSource:
    return LiveSource("fake-live", 1, command, runtime="sh", runtime_version="sh", output="bytes", seeding="none")


def test_every_runtime_backend_is_listed_twice_in_group_runtimes():
    for rb in runtime_backends():
        for name in (rb.name, rb.name + LIVE_SUFFIX):
            backend = find_backend(name)
            assert backend is not None and backend.group == "runtimes", name
        assert driver_for(rb.name + LIVE_SUFFIX).name == rb.runtime
        assert 0 < rb.bits_per_call <= 64


def test_a_seed_outside_the_runtimes_range_is_refused():
    with pytest.raises(UsageError, match=r"--seed for v8-math-random must be in \[1, 2\*\*31\)"):
        open_backend("v8-math-random", 0)
    with pytest.raises(UsageError, match=r"v8-math-random must be in"):
        open_backend("v8-math-random-live", 2**31)


def test_a_drawn_seed_is_in_range_and_recorded():
    backend = find_runtime_backend("v8-math-random")
    low, high = backend.seed_range
    with open_backend("v8-math-random", None) as source:
        assert low <= source.seed < high
        assert source.describe()["seed"] == source.seed


def test_a_runtime_not_on_path_is_refused_in_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    code, _, err = run_cli_inprocess(capsys, "test", "v8-math-random-live", "-n", "1K")
    assert code == 2
    assert err.strip() == "randqa: error: backend v8-math-random-live needs node (not found on PATH)"


def test_the_live_process_is_in_its_own_session_and_reaped_on_close():
    source = live(["cat", "/dev/zero"])
    buffer = bytearray(1 << 16)
    assert source.readinto(memoryview(buffer)) > 0
    pid = source._process.pid
    assert os.getsid(pid) != os.getsid(0)  # a Ctrl-C at the terminal does not reach it
    source.close()
    assert not Path(f"/proc/{pid}").exists()  # killed, and no zombie left


def test_a_runtime_that_dies_ends_the_run_with_its_last_words():
    source = live(["sh", "-c", "printf ab; echo 'Exception: out of memory' >&2; exit 3"])
    buffer = memoryview(bytearray(16))
    got = 0
    with pytest.raises(InputError, match=r"^backend fake-live: sh exited with status 3 after 2 bytes: "
                                         r"Exception: out of memory$"):
        while True:
            got += source.readinto(buffer[got:])
    source.close()


def test_a_program_that_cannot_start_is_one_line():
    with pytest.raises(InputError, match="backend fake-live: cannot start /nonexistent/runtime"):
        live(["/nonexistent/runtime"])


def counting_driver(folder: Path, compiler: str, build: str = "cp prog.txt prog.out && echo x >> ../builds.log"):
    """A 'compiler' that copies its source and counts its runs."""
    driver = CompiledDriver("counting", programs=("sh",), sources=("prog.txt",), compiler_version_command=("echo", compiler),
                            build=[["sh", "-c", build]], command=("cat", "{built}/prog.out"))
    driver.source_folder = folder
    return driver


def test_compiled_drivers_build_once_per_source_and_compiler(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert cache_root() == tmp_path / "cache" / "randqa"
    sources = tmp_path / "src"
    sources.mkdir()
    (sources / "prog.txt").write_text("one")
    first = counting_driver(sources, "cc 1").built()
    assert counting_driver(sources, "cc 1").built() == first
    assert (first / "prog.out").read_text() == "one"
    assert (cache_root() / "drivers" / "builds.log").read_text().count("x") == 1
    (sources / "prog.txt").write_text("two")
    edited = counting_driver(sources, "cc 1").built()
    upgraded = counting_driver(sources, "cc 2").built()
    assert len({first, edited, upgraded}) == 3
    assert (edited / "prog.out").read_text() == "two"
    assert sorted(p.name.split("-")[0] for p in (cache_root() / "drivers").iterdir() if p.is_dir()) == ["counting"] * 3


def test_a_failed_build_is_one_line_and_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))

    (tmp_path / "prog.txt").write_text("one")
    with pytest.raises(InputError, match=r"building the counting driver: sh exited with status 1: "
                                         r"prog.txt:1: syntax error"):
        counting_driver(tmp_path, "cc 1", "echo 'prog.txt:1: syntax error' >&2; exit 1").built()
    assert [p for p in (cache_root() / "drivers").iterdir() if p.is_dir()] == []


def test_a_drivers_command_takes_the_seed_and_the_built_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    script = RuntimeDriver("script", command=("prog", "--seed={seed}", "driver.js"), version_command=("echo", "1"))
    assert script.programs == ("prog",)
    assert script.stream_command("b", 5) == ["prog", "--seed=5", "driver.js", "stream", "b", "5"]
    assert script.time_command("b", 5, 100) == ["prog", "--seed=5", "driver.js", "time", "b", "5", "100"]
    (tmp_path / "prog.txt").write_text("one")
    compiled = counting_driver(tmp_path, "cc 1")
    assert compiled.program(7) == ["cat", f"{compiled.built()}/prog.out"]


def test_close_kills_what_the_live_driver_forked(tmp_path):
    # before: only the driver itself was killed; its children went on
    from process_checks import gone, pids

    record = tmp_path / "pids"
    source = live(["sh", "-c", f"sleep 300 & echo $! > {record}; cat /dev/zero"])
    assert source.readinto(memoryview(bytearray(1 << 12))) > 0
    child = pids(record)[0]
    source.close()
    assert gone(child)


def test_what_a_killed_runtime_leaves_in_its_temporary_folder_goes_with_it(tmp_path):
    # R makes /tmp/RtmpXXXXXX and removes it only when it exits by itself;
    # a live source's driver is killed when the run has read enough
    record = tmp_path / "made"
    source = live(["sh", "-c", f'made=$(mktemp -d) && echo "$made" > {record} && exec cat /dev/zero'])
    assert source.readinto(memoryview(bytearray(1 << 12))) > 0
    made = Path(record.read_text().strip())
    assert made.is_dir() and not made.parent.samefile(tempfile.gettempdir())  # in a folder of its own
    source.close()
    assert not made.exists() and not made.parent.exists()


def test_a_hung_version_query_and_its_children_are_killed(tmp_path, monkeypatch):
    # before: the query's timeout killed the program alone, and waited on the pipe its child held
    from process_checks import gone, pids
    from randqa.sources.runtimes import driver as driver_module

    record = tmp_path / "pids"
    monkeypatch.setattr(driver_module, "VERSION_TIMEOUT_S", 0.5)
    with pytest.raises(InputError, match=r"^node: sh -c .* failed \(took more than 0.5 s\)$"):
        driver_module.command_output(["sh", "-c", f"sleep 300 & echo $$ $! > {record}; wait"], "node")
    assert all(gone(pid) for pid in pids(record))
