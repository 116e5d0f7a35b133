"""Speed as each runtime gets its own generator.

The runtime calls its generator in its own tight loop, as an application
would (``Math.random()`` in a Node loop, ``nextInt()`` in Java), and prints
the seconds it measured itself: the driver's ``time_command``
(randqa/sources/runtimes/driver.py).  The process's start-up and the build
of a compiled driver stay out of the figure; a JIT warms up in the driver
before its clock starts.  MB/s counts the output bits each call gives, as
the stream carries them (``bytes_per_call``: 6.5 for V8's 52-bit doubles,
4 for nextInt()), so runtimes compare with each other and with every other
backend on the same footing.

A runtime backend's speed is the runtime's, whether the tests read randqa's
bit-exact C (``NAME``) or the runtime itself (``NAME-live``); never randqa's
reimplementation, whose rate is only the feed rate (``generation_mb_s``).
A runtime that is not installed gives no speed, and says why.

Each timed run is sized from one probe run to take about TARGET_SECONDS
inside the runtime; the median of ``repeats`` runs is reported.
"""

from __future__ import annotations

from dataclasses import dataclass

from randqa.errors import InputError
from randqa.sources.runtimes import RuntimeBackend, driver_for, find_runtime_backend
from randqa.sources.runtimes.driver import RuntimeDriver
from randqa.sources.runtimes.processes import CommandFailed, run_bounded
from randqa.speed.generation import REPEATS, TARGET_SECONDS, Speed

#: calls of the probe run that sizes the timed runs
PROBE_CALLS = 1 << 20
#: bounds on the calls of one timed run
MAX_CALLS = 1 << 32
#: seconds a timed run may take, start-up included, before it counts as failed
RUN_TIMEOUT_S = 300
#: the most a timed run may print: its seconds, and a runtime's warnings
TIMING_OUTPUT_BYTES = 64 << 10


def is_runtime_backend(name: str) -> bool:
    """Whether ``name`` is a runtime backend (``NAME`` or ``NAME-live``)."""
    return find_runtime_backend(name) is not None


def _backend(name: str) -> tuple[RuntimeBackend, RuntimeDriver]:
    backend = find_runtime_backend(name)
    if backend is None:
        raise KeyError(name)
    return backend, driver_for(backend.name)


def runtime_method(name: str) -> str:
    """The ``speed_method`` of runtime backend ``name``: the call, in which runtime's loop."""
    backend, driver = _backend(name)
    return f"{backend.call} in {driver.name}'s own loop, timed by {driver.name} itself"


def missing_note(name: str) -> str | None:
    """Why runtime backend ``name`` has no speed here (its runtime is not installed), or None."""
    backend, driver = _backend(name)
    missing = driver.missing_program()
    if missing is None:
        return None
    return f"no speed: {backend.call} is timed in {driver.name} itself, and {missing} is not on PATH"


def time_calls(name: str, seed: int, calls: int) -> float:
    """Seconds the runtime took for ``calls`` calls of backend ``name``'s generator, as it measured them."""
    backend, driver = _backend(name)
    command = driver.time_command(backend.name, seed, calls)
    what = f"timing {backend.name} in {driver.name}"
    try:  # its output bounded, its process group killed at the end (or at Ctrl-C)
        done = run_bounded(command, timeout=RUN_TIMEOUT_S, max_bytes=TIMING_OUTPUT_BYTES)
    except CommandFailed as exc:
        raise InputError(f"{what}: {command[0]} failed ({exc})") from None
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    if done.returncode != 0 or not lines:
        errors = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        raise InputError(f"{what}: {command[0]} exited with status {done.returncode}"
                         + (f": {errors[-1]}" if errors else ""))
    try:
        seconds = float(lines[-1])
    except ValueError:
        raise InputError(f"{what}: expected the seconds on its last line, got {lines[-1][:60]!r}") from None
    if not seconds > 0:
        raise InputError(f"{what}: {calls} calls took {seconds} s, too few to time")
    return seconds


@dataclass(frozen=True)
class RuntimeTiming:
    """A runtime backend's speed as its runtime gets it (None with a note when it cannot be timed)."""

    speed: Speed | None
    method: str
    note: str | None = None


def runtime_speed(name: str, seed: int | None, repeats: int = REPEATS) -> RuntimeTiming:
    """Time runtime backend ``name`` in its runtime: ``repeats`` runs of as
    many calls as take about TARGET_SECONDS there (KeyError: not a runtime backend)."""
    backend, _driver = _backend(name)
    method = runtime_method(name)
    note = missing_note(name)
    if note is not None:
        return RuntimeTiming(None, method, note)
    s = backend.resolve_seed(seed)
    probe = time_calls(name, s, PROBE_CALLS)
    calls = int(min(MAX_CALLS, max(PROBE_CALLS, PROBE_CALLS * TARGET_SECONDS / probe)))
    calls -= calls % 8  # whole stream words: bytes_per_call * calls is a whole number of bytes
    nbytes = calls * backend.bits_per_call // 8
    rates = [nbytes / time_calls(name, s, calls) / 1e6 for _ in range(repeats)]
    return RuntimeTiming(Speed(name, nbytes, rates), method)
