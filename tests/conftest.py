"""Shared fixtures: running the CLI as a user would, and reference streams."""

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


def msvc_rand_low_bytes(n: int, seed: int = 1) -> bytes:
    """n bytes of MSVC rand()'s low byte: x = x*214013 + 2531011; (x >> 16) & 0xff.

    Vectorised: 65,536 consecutive states are stepped together by the LCG's
    65,536-step jump (A^65536, C') so no Python loop runs per output.
    """
    a, c, mask = 214013, 2531011, 0xFFFFFFFF
    lanes = 1 << 16
    first = np.empty(lanes, dtype=np.uint64)
    x = seed
    for i in range(lanes):
        x = (x * a + c) & mask
        first[i] = x
    jump_a, jump_c = 1, 0
    for _ in range(lanes):
        jump_a, jump_c = (jump_a * a) & mask, (jump_c * a + c) & mask
    rows = -(-n // lanes)
    states = np.empty((rows, lanes), dtype=np.uint64)
    cur = first
    for r in range(rows):
        states[r] = cur
        cur = (cur * np.uint64(jump_a) + np.uint64(jump_c)) & np.uint64(mask)
    return ((states.ravel()[:n] >> np.uint64(16)) & np.uint64(0xFF)).astype(np.uint8).tobytes()


@pytest.fixture(scope="session")
def e() -> np.ndarray:
    """The first 10^6 bits of e, as NIST SP 800-22's Appendix B tests them (built once)."""
    from nist_reference import e_bytes

    return e_bytes()


def feed_in_pieces(acc, data: bytes | np.ndarray, cuts: list[int]) -> None:
    """Feed ``data`` to an accumulator cut at the given offsets."""
    arr = np.frombuffer(data, dtype=np.uint8)
    bounds = [0, *sorted(cuts), len(arr)]
    for lo, hi in zip(bounds, bounds[1:]):
        acc.update(arr[lo:hi])


def pcg64_bytes(n: int, seed: int) -> bytes:
    return np.random.Generator(np.random.PCG64(seed)).bytes(n)
