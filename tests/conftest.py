"""Shared fixtures, and running the CLI as a user would (in a subprocess or in process)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass

import numpy as np
import pytest


@dataclass
class CliResult:
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> dict:
        return json.loads(self.stdout)


def run_cli(*args: str, input: bytes | None = None, timeout: float = 300) -> CliResult:
    """Run `python -m randqa ARGS` in a subprocess (stdin closed to empty unless given)."""
    proc = subprocess.run(
        [sys.executable, "-m", "randqa", *args],
        input=input if input is not None else b"",
        capture_output=True,
        timeout=timeout,
    )
    return CliResult(proc.returncode, proc.stdout.decode(), proc.stderr.decode())


@pytest.fixture
def cli():
    return run_cli


def run_main(*args: str) -> int:
    """Run randqa's CLI in this process; its exit code."""
    from randqa.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    return exit_info.value.code


def assert_report_refuses(tmp_path, capsys, content: bytes, problem: str):
    """Write ``content`` as bad.json and check that `randqa report` refuses
    it: exit 2, one line on stderr naming the file and ``problem``, no
    report written.  The file's path."""
    path, report = tmp_path / "bad.json", tmp_path / "refused.html"
    path.write_bytes(content)
    assert run_main("report", str(path), "-o", str(report)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{path}: " in err and problem in err, err
    assert not report.exists()
    return path


def rewrite_checkpoint(path: str, change, digest: bool = True) -> None:
    """Apply ``change(meta, arrays)`` to the checkpoint at ``path``; with
    ``digest``, as a forger would, make its digest again, so that only the
    reader's other checks stand in the way."""
    import io

    from randqa.engine.checkpoint import state_digest

    with np.load(path, allow_pickle=False) as npz:
        arrays = {name: npz[name] for name in npz.files}
    meta = json.loads(arrays.pop("meta").tobytes())
    change(meta, arrays)
    if digest:
        meta["digest"] = state_digest(meta, arrays)
    buffer = io.BytesIO()
    np.savez(buffer, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **arrays)
    with open(path, "wb") as f:
        f.write(buffer.getvalue())


def run_cli_inprocess(capsys, *args: str) -> tuple[int, str, str]:
    """run_main, with what it printed: (exit code, stdout, stderr)."""
    code = run_main(*args)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def in_tmp_folder(monkeypatch, tmp_path):
    """`randqa compare` writes randqa-report.html to the current folder by default."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def counter_file(tmp_path):
    """A file source that fails: bytes 0, 1, ..., 255, 0, 1, ..."""
    path = tmp_path / "counter.bin"
    path.write_bytes(np.arange(1 << 20, dtype=np.uint32).astype(np.uint8).tobytes())
    return str(path)


@pytest.fixture
def random_file(tmp_path):
    path = tmp_path / "random.bin"
    path.write_bytes(np.random.Generator(np.random.PCG64(7)).bytes(1 << 20))
    return str(path)


@pytest.fixture(scope="session")
def e() -> np.ndarray:
    """The first 10^6 bits of e, as NIST SP 800-22's Appendix B tests them (built once)."""
    from nist_reference import e_bytes

    return e_bytes()
