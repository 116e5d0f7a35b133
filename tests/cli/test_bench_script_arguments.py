"""benchmarks/bench_suite_vs_ent.py passes its arguments to randqa as
argument lists, never through a shell: shell syntax in --suite is just a
(bad) suite name.

Source: subprocess's documentation on shell=True ("Security
Considerations"): a command string built from arguments runs whatever
shell syntax they hold.  Minimum data: 64 KiB of generated stream.
"""

from __future__ import annotations

import subprocess
import sys

from cli_harness import REPO


def test_shell_syntax_in_an_argument_is_not_run(tmp_path):
    marker = tmp_path / "INJECTED"
    proc = subprocess.run([sys.executable, str(REPO / "benchmarks" / "bench_suite_vs_ent.py"), "--size", "64K",
                           "--repeats", "1", "--suite", f"quick; touch {marker} #"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert not marker.exists()
    # the odd suite name reaches randqa whole, which refuses it: no timing of a failed command
    assert proc.returncode != 0
    assert "exited 2: no timing" in proc.stderr
