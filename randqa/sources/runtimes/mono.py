""".NET: ``System.Random(seed)`` as Mono 6.8 runs it (Mono's corlib takes
the .NET Framework's referencesource/mscorlib/system/random.cs).

What it does.  Knuth's subtractive generator (TAOCP vol. 2, 3.6) in the
form of Numerical Recipes' ``ran3``: 55 ints mod MBIG = 2^31 - 1, seeded
from MSEED - |seed| (MSEED = 161803398) spread over the array in steps of
21 and stirred four times; each ``Next()`` is x[i] - x[i + 21] (indices
mod 55, from 1), wrapped into [0, 2^31 - 1) and stored back.

How it differs from the textbook.  Knuth's lags are (55, 24), i.e. an
index 31 ahead; .NET's second index starts 21 ahead, so the recurrence is
x[n] = x[n-55] - x[n-34], lags Knuth never analysed, kept ever since for
compatibility (.NET Core only bypasses it for unseeded Randoms).  Seeds
s and -s give the same stream (``Math.Abs``), and the int arithmetic wraps
for seeds above MSEED.  ``Next()`` never returns 2^31 - 1.

The stream: the 31 bits of each ``Next()``, packed (8 calls = 31 bytes).
``--seed`` is the constructor's int, in [0, 2**31).
"""

from __future__ import annotations

from randqa.sources.runtimes.driver import CompiledDriver


DRIVER = CompiledDriver("mono", programs=("mono", "mcs"), sources=("MonoDriver.cs",),
                        compiler_version_command=("mcs", "--version"),
                        build=[["mcs", "-optimize+", "-out:MonoDriver.exe", "MonoDriver.cs"]],
                        command=("mono", "{built}/MonoDriver.exe"), version_command=("mono", "--version"))
