"""SQLite: the SQL function ``random()`` as SQLite 3.40 computes it
(src/random.c, src/func.c, src/os.c and main.c of 3.40.1).

What SQLite does.  3.40.1's ``sqlite3_randomness`` is ChaCha20 (RFC 7539's
block function, 20 rounds; earlier releases used RC4).  Its first
call fills the 16-word state with ChaCha20's constants and 44 bytes from
the VFS's xRandomness (/dev/urandom), moves word 12 to word 15 and sets the
block counter, word 12, to 0; each refill increments the counter and runs
one block, and callers take bytes from the end of the 64-byte block
backwards, 8 at a time for ``random()``, which reads them as a native
int64 and maps a negative r to -(r & 0x7fffffffffffffff) (so that abs()
never overflows: 0x8000000000000000 becomes 0, and 0 comes twice as often
as any other value).

Seeding.  An application cannot seed ``random()``; the test interface can:
``sqlite3_test_control(SQLITE_TESTCTRL_PRNG_SEED, seed, 0)`` (the shell's
``.testctrl prng_seed``) makes xRandomness give the seed's 32 bits followed
by zeros and resets the state.  With it the key is the seed in word 4 and
zeros.  The live backend calls it on the installed libsqlite3 and then runs
``SELECT random()`` row after row; a library built with SQLITE_UNTESTABLE
refuses, and then only the real runtime, unseeded, would be a reference.
No predictor applies: ChaCha20's output reveals nothing of its key.

The stream: each ``random()`` value as 8 little-endian bytes (two's
complement).  ``--seed`` is the test-control's int, in [1, 2**32) (0 means
unseeded).
"""

from __future__ import annotations

import os

from randqa.sources.runtimes.driver import CompiledDriver, command_output

#: where the C compiler looks for sqlite3.h (libsqlite3-dev), besides CPATH
_INCLUDE_DIRS = ("/usr/include", "/usr/local/include", "/opt/homebrew/include")


class SqliteDriver(CompiledDriver):
    def missing_program(self) -> str | None:
        missing = super().missing_program()
        if missing is not None:
            return missing
        folders = [*os.environ.get("CPATH", "").split(os.pathsep), *_INCLUDE_DIRS]
        if not any(folder and os.path.exists(os.path.join(folder, "sqlite3.h")) for folder in folders):
            return "sqlite3.h (libsqlite3-dev)"
        return None

    def version(self) -> str:
        return command_output([*self.program(0), "version"], "sqlite").strip()


DRIVER = SqliteDriver("sqlite", programs=("cc",), sources=("sqlite_driver.c",), compiler_version_command=("cc", "--version"),
                      build=[["cc", "-O2", "-o", "sqlite_driver", "sqlite_driver.c", "-lsqlite3"]],
                      command=("{built}/sqlite_driver",))
