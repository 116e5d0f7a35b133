"""C: musl's ``rand()`` and ``random()`` (musl 1.2.3, src/prng/rand.c and
random.c), as a C program linked with musl (``musl-gcc -static``) calls them.

- ``rand()``: one 64-bit LCG, seed = 6364136223846793005 seed + 1 mod
  2^64, returning seed >> 33.  ``srand(s)`` sets seed = s - 1 in unsigned
  int arithmetic (``srand(0)`` gives 2^32 - 1), so the unseeded default is
  ``srand(1)``.  Knuth's MMIX multiplier with increment 1 rather than MMIX's
  1442695040888963407; the 31 bits returned are the state's top bits, whose
  low ones have periods 2^34 and up, but the state is 64 bits and a few
  outputs reveal it.
- ``random()``: the additive feedback generator r[i] = r[i-31] + r[i-3] mod
  2^32, returning r[i] >> 1 (glibc's TYPE_3 recurrence).  It differs from
  glibc in its seeding: ``srandom(s)`` fills the 31 words with the top
  halves of the 64-bit LCG above started at s, makes the first word odd,
  and discards nothing (glibc runs Park-Miller and discards 310 outputs).
  One consequence: the LCG's state after one step from 0 is 1, so
  ``srandom(1)``'s words are ``srandom(0)``'s shifted by one, and the
  first eight values of their streams coincide, one place apart.

The stream: each call's 31 bits, eight calls packed into 31 bytes.
``--seed`` is srand's / srandom's unsigned int.
"""

from __future__ import annotations

import re

from randqa.sources.runtimes.driver import VERSION_TIMEOUT_S, CompiledDriver, program_version
from randqa.sources.runtimes.processes import CommandFailed, run_bounded


#: musl's dynamic loader prints musl's version when run as a program
_LOADERS = "/lib/ld-musl-*.so.1"
_LOADER_VERSION = f"for l in {_LOADERS}; do \"$l\" 2>&1; done; true"


def _loader_banner() -> str:
    try:
        done = run_bounded(["sh", "-c", _LOADER_VERSION], timeout=VERSION_TIMEOUT_S)
    except CommandFailed:
        return ""
    return done.stdout


class MuslDriver(CompiledDriver):
    def version(self) -> str:
        found = re.search(r"Version\s+(\S+)", _loader_banner())
        if found:
            return f"musl {found.group(1)}"
        return "musl (version unknown; " + program_version("musl-gcc", "--version") + ")"


# the driver links musl statically: a new musl as well as a new gcc rebuilds it
DRIVER = MuslDriver("musl", programs=("musl-gcc",), sources=("musl_driver.c",),
                    compiler_version_command=("sh", "-c", f"musl-gcc --version && {{ {_LOADER_VERSION}; }}"),
                    build=[["musl-gcc", "-O2", "-static", "-o", "musl_driver", "musl_driver.c"]],
                    command=("{built}/musl_driver",))
