"""How randqa runs a real runtime's generator: one ``RuntimeDriver`` per runtime.

A driver names the programs the runtime needs, its version, and the command
that runs its driver program, which takes ``stream BACKEND SEED`` or ``time
BACKEND SEED CALLS``; so for each of its backends:

- ``stream_command(backend, seed)``: a process that seeds the runtime's own
  generator with ``seed`` and writes the backend's byte stream to stdout
  until the reader closes the pipe (then it ends quietly);
- ``time_command(backend, seed, calls)``: a process that calls the runtime's
  generator ``calls`` times in the runtime's own tight loop, as an
  application would, and prints the seconds it took, measured inside the
  runtime, as one line.

Each runtime's program is a small source file in ``drivers/`` next to this
module (package data).  Interpreted runtimes (Node, PHP) run it as it is;
compiled ones (Java, Go, C#, C) are built on first use into a cache folder,
``$XDG_CACHE_HOME/randqa/drivers`` (else ``~/.cache/randqa/drivers``), in a
subfolder named by a hash of the driver's sources, its build commands and
the compiler's version, so an edited driver or a new compiler builds afresh
and concurrent first uses do not collide (each builds in a temporary folder
and renames it into place; the first rename wins).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from randqa.errors import InputError, UsageError
from randqa.files import cache_root
from randqa.sources.runtimes.processes import CommandFailed, run_bounded

#: the driver programs' sources (package data)
DRIVER_SOURCES = Path(__file__).parent / "drivers"

#: seconds a version query or a build may take before it counts as failed
VERSION_TIMEOUT_S = 30
BUILD_TIMEOUT_S = 600


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else ""


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def command_output(command: list[str], what: str) -> str:
    """stdout and stderr of a short command (a version query); InputError if it fails."""
    try:
        done = run_bounded(command, timeout=VERSION_TIMEOUT_S)
    except CommandFailed as exc:
        raise InputError(f"{what}: {' '.join(command)} failed ({exc})") from None
    if done.returncode != 0:
        raise InputError(f"{what}: {' '.join(command)} exited with status {done.returncode}: "
                         f"{_last_line(done.stderr or done.stdout)}")
    return done.stdout + done.stderr


@lru_cache(maxsize=None)
def program_version(*command: str) -> str:
    """The first line a version query prints (asked once per process)."""
    return _first_line(command_output(list(command), command[0]))


class RuntimeDriver:
    """One runtime (``name``: "node", "java", ...) and how to run its
    generators, described as data: the ``command`` that runs its driver
    program (``{seed}`` in it becomes the seed, for a runtime that takes its
    seed as an option of its own, as Node's V8 does), the programs that must
    be on PATH (by default the command's first word) and the command whose
    first line of output is the runtime's version."""

    def __init__(self, name: str, *, command: Sequence[str], version_command: Sequence[str],
                 version_prefix: str = "", programs: Sequence[str] | None = None) -> None:
        #: the runtime's short name, as `randqa list` and the refusal messages say it
        self.name = name
        self.command = tuple(command)
        self.version_command = tuple(version_command)
        self.version_prefix = version_prefix
        #: the programs that must be on PATH (the first missing one is named when refused)
        self.programs = tuple(programs) if programs is not None else self.command[:1]

    def missing_program(self) -> str | None:
        """The first of ``programs`` not found on PATH, or None."""
        for program in self.programs:
            if shutil.which(program) is None:
                return program
        return None

    def available(self) -> bool:
        """Whether the runtime is installed (its programs are on PATH)."""
        return self.missing_program() is None

    def require(self, backend: str) -> None:
        """UsageError naming the missing program unless the runtime is installed."""
        missing = self.missing_program()
        if missing is not None:
            raise UsageError(f"backend {backend} needs {missing} (not found on PATH)")

    def version(self) -> str:
        """The installed runtime's version, one line (e.g. "node v20.20.2")."""
        return self.version_prefix + program_version(*self.version_command)

    def program(self, seed: int) -> list[str]:
        """The command that runs the driver program, before its arguments."""
        return [part.replace("{seed}", str(seed)) for part in self.command]

    def stream_command(self, backend: str, seed: int) -> list[str]:
        """A command writing ``backend``'s stream, seeded with ``seed``, to stdout forever."""
        return [*self.program(seed), "stream", backend, str(seed)]

    def time_command(self, backend: str, seed: int, calls: int) -> list[str]:
        """A command calling the generator ``calls`` times in the runtime's own
        loop and printing the elapsed seconds, measured inside the runtime."""
        return [*self.program(seed), "time", backend, str(seed), str(calls)]


class CompiledDriver(RuntimeDriver):
    """A runtime whose driver program is compiled before it runs (Java, Go, C#, C).

    Besides a runtime's data it names its ``sources`` (files in
    ``drivers/``), the command that prints the compiler's version and the
    commands that build the sources, copied into a folder, into that same
    folder; ``{built}`` in its command is that folder.
    """

    #: the driver's source files, in ``source_folder``
    sources: tuple[str, ...]
    source_folder: Path = DRIVER_SOURCES
    #: the command whose output identifies the compiler (part of the cache key)
    compiler_version_command: list[str]

    def __init__(self, name: str, *, sources: Sequence[str], compiler_version_command: Sequence[str],
                 build: Sequence[Sequence[str]], command: Sequence[str], version_command: Sequence[str] = (),
                 programs: Sequence[str] | None = None) -> None:
        super().__init__(name, command=command, version_command=version_command, programs=programs)
        self.sources = tuple(sources)
        self.compiler_version_command = list(compiler_version_command)
        self.build = tuple(tuple(step) for step in build)

    def build_commands(self, folder: Path) -> list[list[str]]:
        """The commands that build the sources copied into ``folder``, run in it."""
        return [list(step) for step in self.build]

    def build_environment(self) -> dict[str, str] | None:
        """Environment for the build commands (None: randqa's own)."""
        return None

    def program(self, seed: int) -> list[str]:
        command = super().program(seed)
        if any("{built}" in part for part in command):
            built = str(self.built())
            command = [part.replace("{built}", built) for part in command]
        return command

    def _key(self) -> str:
        digest = hashlib.sha256()
        for source in self.sources:
            digest.update(source.encode() + b"\0" + (self.source_folder / source).read_bytes() + b"\0")
        digest.update(repr(self.build_commands(Path("."))).encode())
        digest.update(command_output(self.compiler_version_command, f"{self.name} compiler").encode())
        return digest.hexdigest()[:16]

    def built(self) -> Path:
        """The folder holding the built driver, built now if it is not in the cache."""
        root = cache_root() / "drivers"
        folder = root / f"{self.name}-{self._key()}"
        if (folder / ".complete").exists():
            return folder
        root.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{self.name}-build-", dir=root))
        try:
            for source in self.sources:
                shutil.copyfile(self.source_folder / source, work / source)
            for command in self.build_commands(work):
                try:
                    done = run_bounded(command, cwd=work, timeout=BUILD_TIMEOUT_S, env=self.build_environment())
                except CommandFailed as exc:
                    raise InputError(f"building the {self.name} driver: {' '.join(command)} failed ({exc})") from None
                if done.returncode != 0:
                    raise InputError(f"building the {self.name} driver: {command[0]} exited with status "
                                     f"{done.returncode}: {_first_line(done.stderr or done.stdout)}")
            (work / ".complete").touch()
            try:
                os.rename(work, folder)
            except OSError:
                if not (folder / ".complete").exists():  # not a concurrent build that won the race
                    raise
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return folder
