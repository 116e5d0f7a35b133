"""The backend commands (cli/backends.py): `randqa generate` writes a
backend's bytes and records the seed, ends quietly when its pipe closes;
`randqa bench` prints a rate per backend and JSON; an unknown backend name
exits 2 with close matches.
"""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import run_cli_inprocess
from reference_generators import backend_stream


def test_unknown_backend_exits_2_with_close_matches(capsys):
    code, _, err = run_cli_inprocess(capsys, "test", "glibc-rnad", "-n", "1M")
    assert code == 2 and "glibc-rand" in err and err.count("\n") == 1
    code, _, err = run_cli_inprocess(capsys, "bench", "siprnd", "-n", "1M")
    assert code == 2 and "siprand" in err


def test_generate_writes_the_backend_bytes_and_records_the_seed(capsys, tmp_path):
    target = tmp_path / "out.bin"
    code, _, err = run_cli_inprocess(capsys, "generate", "glibc-rand", "-n", "1000", "--seed", "7", "-o", str(target))
    assert code == 0 and "seed 7" in err
    assert target.read_bytes() == backend_stream("glibc-rand", 7, 1000)
    code, _, err = run_cli_inprocess(capsys, "generate", "splitmix64", "-n", "10", "-o", str(target))
    drawn = int(err.split("seed ")[1].split()[0].rstrip(","))
    assert target.read_bytes() == backend_stream("splitmix64", drawn, 10)


def test_generate_ends_quietly_when_the_pipe_closes():
    proc = subprocess.Popen([sys.executable, "-m", "randqa", "generate", "pcg64", "--seed", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    head = proc.stdout.read(100_000)
    proc.stdout.close()
    _, err = proc.communicate(timeout=30)
    assert head == backend_stream("pcg64", 1, 100_000)
    assert proc.returncode == 0
    assert err.decode().count("\n") == 1 and "Traceback" not in err.decode()


def test_bench_prints_a_rate_per_backend_and_json(capsys, tmp_path):
    target = tmp_path / "bench.json"
    code, out, _ = run_cli_inprocess(capsys, "bench", "splitmix64", "lfsr113", "-n", "1M", "--repeats", "3",
                                     "--json", str(target))
    assert code == 0 and "splitmix64" in out and "lfsr113" in out
    rows = json.loads(target.read_text())["backends"]
    assert [r["backend"] for r in rows] == ["splitmix64", "lfsr113"]
    assert all(r["min_mb_per_s"] <= r["mb_per_s"] <= r["max_mb_per_s"] for r in rows)
