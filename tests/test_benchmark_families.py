"""benchmarks/c_reference/families.c, the generators of
benchmarks/bench_families_vs_practrand.py, matches the published outputs it
cites, and writes each value in its own width.

Sources: the values in families.c's `check` (ISO C++ [rand.predef] for the
ranlux bases' 10000th values, L'Ecuyer's RngStreams for MRG32k3a, TinyMT's
check32.out.txt, Marsaglia's 1999 post, Vigna's reference C, the Java SE
specification of java.util.Random).  Minimum data: the first 9 bytes of one
stream.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from cli_harness import REPO

SOURCE = REPO / "benchmarks" / "c_reference" / "families.c"


@pytest.fixture(scope="module")
def families(tmp_path_factory) -> str:
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler")
    exe = str(tmp_path_factory.mktemp("families") / "families")
    subprocess.run([cc, "-O2", "-o", exe, str(SOURCE)], check=True, capture_output=True)
    return exe


def test_every_known_answer_matches(families):
    done = subprocess.run([families, "check"], capture_output=True, text=True, timeout=120)
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout
    assert len(lines) >= 17 and all(line.endswith(" OK") for line in lines)


def test_a_24_bit_generator_writes_three_bytes_per_value(families):
    # std::ranlux24_base(1)'s first values, as libstdc++ gives them (families.c's check)
    proc = subprocess.Popen([families, "ranlux24_base", "1"], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    head = proc.stdout.read(9)
    proc.stdout.close()  # the closed pipe ends it, quietly
    assert proc.wait(timeout=30) == 0
    assert [int.from_bytes(head[i:i + 3], "little") for i in (0, 3, 6)] == [8871692, 3740959, 5241959]


@pytest.mark.parametrize("args", [["nosuch", "1"], ["lfsr88", "-1"], ["lfsr88", "1x"], ["lfsr88"]])
def test_a_bad_name_or_seed_is_one_line_and_exit_2(families, args):
    done = subprocess.run([families, *args], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stdout == "" and len(done.stderr.strip().splitlines()) == 1
