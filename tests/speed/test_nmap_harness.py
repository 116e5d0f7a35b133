"""nmap-dev's PRNG benchmark harness: get_random_u32() over nmap's 2 KiB cache.

Each option's words must be the bytes that option gives (libc rand() via
ctypes, libdnet's ARC4 as the dnet-arc4 backend), across cache refills; the
timed entry point must do the same work as the one that writes the words;
the mail's ranking is recomputed from its times as quoted in
nmap-prng-benchmark.txt (Xeon: rand_short 2.165 s < dnet_rand 2.573 <
rand_byte 3.766 < /dev/urandom 75.351 < openssl 82.565).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json

import numpy as np
import pytest

from randqa.cli import main
from randqa.sources.backends import open_backend
from randqa.sources.base import read_full
from randqa.speed import _as_called
from randqa._report.speed_notes import NMAP_MAIL_BACKENDS, nmap_answer, ranking, what_changed
from randqa.run_result import RunResult
from randqa.speed.nmap import NMAP_OPTIONS, harness_times, nmap_table, rand_bytes_address

HAVE_LIBCRYPTO = ctypes.util.find_library("crypto") is not None
#: spans four refills of the 2 KiB cache
NBYTES = 4 * 2048 + 16


def harness_bytes(option: str, seed: int, nbytes: int = NBYTES) -> bytes:
    buffer = bytearray(nbytes)
    address = rand_bytes_address() if option == "openssl" else 0
    _as_called.nmap_harness_fill(option, buffer, seed, address)
    return bytes(buffer)


def libc_rand(seed: int, count: int) -> list[int]:
    lib = ctypes.CDLL(ctypes.util.find_library("c"))
    lib.srand.argtypes = [ctypes.c_uint]
    lib.srand(seed)
    return [lib.rand() for _ in range(count)]


@pytest.mark.parametrize("seed", [1, 99, 2**32 - 1])
def test_rand_options_give_libc_rand_a_byte_or_a_short_at_a_time(seed):
    assert list(harness_bytes("rand-byte", seed)) == [r & 0xFF for r in libc_rand(seed, NBYTES)]
    shorts = np.frombuffer(harness_bytes("rand-short", seed), dtype="<u2").tolist()
    assert shorts == [r & 0xFFFF for r in libc_rand(seed, NBYTES // 2)]


@pytest.mark.parametrize("seed", [1, 2024])
def test_dnet_arc4_option_is_the_dnet_arc4_backend(seed):
    expected = bytearray(NBYTES)
    with open_backend("dnet-arc4", seed) as source:
        read_full(source, memoryview(expected))
    assert harness_bytes("dnet-arc4", seed) == bytes(expected)


def test_timed_run_does_the_same_work_as_the_written_words():
    for option in ("rand-byte", "rand-short", "dnet-arc4"):
        words = np.frombuffer(harness_bytes(option, 5), dtype=np.uint32)
        assert _as_called.nmap_harness_run(option, NBYTES, 5) == int(np.bitwise_xor.reduce(words)), option


def test_os_and_library_options_give_fresh_bytes():
    options = ["urandom"] + (["openssl"] if HAVE_LIBCRYPTO else [])
    for option in options:
        a, b = harness_bytes(option, 1), harness_bytes(option, 1)
        assert a != b and len(set(a)) > 200, option


def test_harness_refuses_bad_input():
    with pytest.raises(ValueError, match="option must be one of"):
        _as_called.nmap_harness_run("rand", 16)
    with pytest.raises(ValueError, match="multiple of 4"):
        _as_called.nmap_harness_run("dnet-arc4", 15)
    with pytest.raises(ValueError, match="RAND_bytes"):
        _as_called.nmap_harness_run("openssl", 16, 1, 0)
    with pytest.raises(ValueError, match="multiple of 4"):
        _as_called.nmap_harness_fill("dnet-arc4", bytearray(6))


def test_mail_ranking_and_what_changed():
    rows = nmap_table(nbytes=1 << 16, repeats=1, api_shapes=False)
    assert [r.backend for r in rows] == [o.backend for o in NMAP_OPTIONS] == list(NMAP_MAIL_BACKENDS)
    times = harness_times(rows)
    ranks = ranking(times)
    assert [label for label, _ in ranks.xeon] == ["rand_short()", "dnet_rand", "rand_byte()", "/dev/urandom", "openssl"]
    assert [label for label, _ in ranks.p4] == ["dnet_rand", "rand_short()", "rand_byte()", "openssl", "/dev/urandom"]
    assert ranks.xeon[0][1] == 1.0 and ranks.xeon[-1][1] == pytest.approx(82.565 / 2.165)
    assert sorted(label for label, _ in ranks.here) == sorted(o.mail_label for o in NMAP_OPTIONS)
    assert [t for _, t in ranks.here] == sorted(t for _, t in ranks.here)
    sentence = what_changed(times)
    assert sentence.startswith(f"What changed: {ranks.here[0][0]} is fastest here")
    assert "rand_byte() " in sentence and "(Xeon 1.5x)" in sentence  # 3.766 / 2.573


def test_bench_nmap_prints_the_mail_columns_and_ranking(capsys, tmp_path):
    target = tmp_path / "nmap.json"
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", "--nmap", "-n", "64K", "--repeats", "1", "--json", str(target)])
    out = capsys.readouterr().out
    assert exit_info.value.code == 0
    for option in NMAP_OPTIONS:
        assert f"{option.mail_xeon_s:.3f}" in out and f"{option.mail_p4_s:.3f}" in out
    assert "ranking through the harness" in out and "What changed:" in out
    for size in ("16 B", "2 KiB", "1 MiB"):
        assert f"read() {size} per call" in out
    report = json.loads(target.read_text())["nmap"]
    assert sum(r["harness"] for r in report["rows"]) == 5 and len(report["rows"]) == 8
    assert [label for label, _ in report["ranking"]["mail_xeon"]][0] == "rand_short()"


def run(name: str, speed: float, verdict: str, failure: int | None, tested: int = 2 << 30) -> dict:
    return {"source": {"name": name, "seed": 1}, "suite": "standard", "bytes_tested": tested, "verdict": verdict,
            "tests": [], "speed_mb_s": speed, "progressive": {"min_bytes": 1024, "max_bytes": tested, "keep_going": False},
            "lengths": [], "first_failure_bytes": failure}


def test_answer_names_the_fastest_and_the_bytes_to_fail():
    runs = [run("glibc-rand-byte", 90.0, "fail", 2048, 2048), run("dnet-arc4", 700.0, "pass", None),
            run("urandom", 400.0, "pass", None), run("pcg64", 5000.0, "pass", None)]
    lines = nmap_answer([RunResult.from_json(r) for r in runs])
    assert lines[1].strip().startswith("fastest: dnet-arc4 at 700.0 MB/s")  # pcg64 is no nmap option
    assert "glibc-rand-byte 90.0 (7.8x slower)" in lines[1]
    failures = next(line for line in lines if "bytes to fail" in line)
    assert "glibc-rand-byte 2 KiB" in failures and "dnet-arc4 none up to 2 GiB" in failures
    arc4 = next(line for line in lines if "long streams" in line)
    assert "`randqa test dnet-arc4 --suite rc4 --tests fluhrer_mcgrew --progressive --min 1G --max 64G`" in arc4
    assert "fails at 16-32 GiB" in arc4 and "stopped at 2 GiB, where dnet-arc4 still passes" in arc4


def test_answer_points_to_the_fastest_survivor_and_needs_two_options():
    runs = [run("glibc-rand-short", 300.0, "fail", 4096, 4096), run("dnet-arc4", 200.0, "pass", None)]
    lines = nmap_answer([RunResult.from_json(r) for r in runs])
    assert "fastest: glibc-rand-short" in lines[1]
    assert any("fastest that did not fail: dnet-arc4" in line for line in lines)
    one_option = [run("dnet-arc4", 200.0, "pass", None), run("pcg64", 900.0, "pass", None)]
    assert nmap_answer([RunResult.from_json(r) for r in one_option]) == []
