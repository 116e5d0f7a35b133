"""Memory stays bounded for any accepted suite: every test states what it
takes for its parameters (``memory_need``, computed without allocating),
every parameter has a range the suite validator enforces, and a suite over
``--max-memory`` is refused before the run with one line naming the entry
and the figure.

Source: the accumulator protocol (randqa/battery/base.py) and the README's
promise of memory independent of stream length.  A statement is checked
against the real peak: the rise of a child process's resident set (Linux
/proc/self/status VmHWM after resetting it through /proc/self/clear_refs)
while one accumulator is built, fed and finalized, and a whole run's max RSS
(wait4) over that of the same command on 1 KiB.  Minimum data: enough to
fill each test's kept bits or blocks (1-24 MiB per case).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc

import pytest

from cli_harness import assert_one_error_line, randqa
from randqa.battery import Accumulator, accumulator_class, available_tests, parameter_defaults
from randqa.battery.suites import TestSpec, load_suite, parse_suite, suite_names
from randqa.errors import SuiteError

MIB = 1 << 20
CHUNK = 4 * MIB
#: what a resident-set peak includes beyond the arrays: Python's object
#: arenas and malloc's caches, which no statement can know
ALLOCATOR_NOISE = MIB


@pytest.mark.parametrize("name", available_tests())
def test_every_test_states_its_memory_and_a_range_for_every_parameter(name):
    from randqa.battery.base import MemoryNeed

    cls = accumulator_class(name)
    assert cls.memory_need.__func__ is not Accumulator.memory_need.__func__, f"{name} states no memory need"
    assert set(cls.parameter_ranges) == set(parameter_defaults(cls)), f"{name}: a parameter without a range"
    need = cls.memory_need(CHUNK)
    assert isinstance(need, MemoryNeed) and need.held > 0 and need.working >= 0 and need.results >= 1


def _largest(bounds):
    value = bounds.high
    if bounds.text:
        value = "1" * int(bounds.high)
    return [value] if bounds.items else value


@pytest.mark.parametrize("name", available_tests())
def test_statements_allocate_nothing_even_at_the_largest_values(name):
    cls = accumulator_class(name)
    for key, bounds in cls.parameter_ranges.items():
        if bounds.text:
            continue  # strings (templates, probabilities) are checked by the test itself
        tracemalloc.start()
        need = cls.memory_need(CHUNK, **{key: _largest(bounds)})
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < MIB, f"{name}.memory_need({key}=max) allocated {peak} bytes"
        assert need.peak > 0


# each case: test, parameters, bytes fed, and optionally sequence_bits / fold
CASES = [
    ("approximate_entropy", {}, 4 * MIB, None, None),
    ("approximate_entropy", {"m": 18, "max_bits": 1 << 23}, 2 * MIB, None, None),
    ("bcfn", {"block_bits": [8, 1 << 20], "letters": 16, "tuple_length": 5}, 16 * MIB, None, None),
    ("birthday_spacings", {"points": 1 << 20, "word_bytes": 8}, 24 * MIB, None, None),
    ("bit_linear_complexity", {"length": 65536, "bits": list(range(16)), "word_bits": 16}, 4 * MIB, None, None),
    ("bit_linear_complexity", {"length": 1 << 18, "word_bits": 64, "bits": [0]}, 3 * MIB, None, None),
    ("decimated_collisions", {"values": 1 << 20}, 12 * MIB, None, None),
    ("decimated_spacings", {"points": 1 << 14, "bits_per_word": 6}, 12 * MIB, None, None),
    ("gap16", {"max_distance": 1 << 22}, 4 * MIB, None, None),
    ("block_frequency", {"M": 1 << 26}, 12 * MIB, None, None),
    ("chi_square", {"bits": 16}, 4 * MIB, None, (16, 4)),
    ("cumulative_sums", {"max_bits": 1 << 26}, 9 * MIB, None, None),
    ("dft", {"max_bits": 1 << 22}, MIB, None, None),
    ("dft", {}, 4 * MIB, 1_000_000, None),
    ("digraph", {"position_mod": 64}, 8 * MIB, None, None),
    ("fluhrer_mcgrew", {}, 68 * MIB, None, None),
    ("gap", {"max_gap": 100_000, "beta": 0.0001, "word_bytes": 4}, 4 * MIB, None, None),
    ("linear_complexity", {"M": 4096}, 2 * MIB, None, None),
    ("matrix_rank", {"size": 4096}, 5 * MIB, None, None),
    ("non_overlapping_template", {"m": 14, "blocks": 20, "max_bits": 1 << 23}, 2 * MIB, None, None),
    ("overlapping_serial", {"m": 20}, 4 * MIB, None, None),
    ("overlapping_template", {"block_bits": 1 << 23, "max_bits": 1 << 25, "m": 12}, 5 * MIB, None, None),
    ("random_excursions", {"max_bits": 1 << 25}, 5 * MIB, None, None),
    ("random_excursions_variant", {"max_bits": 1 << 25}, 5 * MIB, None, None),
    ("serial", {"m": 22, "max_bits": 1 << 24}, 3 * MIB, None, None),
    ("serial_correlation", {"lags": [1, 1 << 20]}, 12 * MIB, None, None),
    ("universal", {"max_bits": 1 << 25}, 5 * MIB, None, None),
    ("bcfn", {}, 8 * MIB, None, (32, 1)),
    ("binary_rank", {"max_size": 8192, "every": 1}, 16 * MIB, None, None),
    ("binary_rank", {}, 8 * MIB, None, (64, 16)),
    ("mod3", {"levels": 16, "tuple_length": 11}, 8 * MIB, None, None),
    ("hamming_patterns", {"block_bits": [8, 64], "tuple_length": 8}, 8 * MIB, None, None),
    ("fpf", {}, 8 * MIB, None, (32, 1)),
    ("hamming_dependency", {"word_bits": 32, "dim": 8}, 8 * MIB, None, None),
]

MEASURE = r'''
import ctypes, gc, json, sys
import numpy as np
from randqa.battery.suites import TestSpec

libc = ctypes.CDLL(None)

def status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1]) * 1024

chunk = 4 << 20
data = np.random.default_rng(1).integers(0, 256, chunk, dtype=np.uint8)
for test, params, nbytes, sequence_bits, fold in json.loads(sys.argv[1]):
    spec = TestSpec(test, params, sequence_bits, tuple(fold) if fold else None)
    # imports and caches (scipy.fft...) load here, outside the measured window: the
    # warm-up reads as much as the measurement, so it completes a sequence too
    warm = spec.build(); warm.update(data[:min(chunk, nbytes)]); warm.finalize(); del warm
    gc.collect(); libc.malloc_trim(0)
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # the peak (VmHWM) starts again from the current size
    start = status("VmRSS")
    acc = spec.build()
    for fed in range(0, nbytes, chunk):
        acc.update(data[:min(chunk, nbytes - fed)])
    acc.finalize()
    print(json.dumps([test, params, status("VmHWM") - start]), flush=True)
    del acc; gc.collect(); libc.malloc_trim(0)
'''


def _can_reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux") or not _can_reset_peak(),
                    reason="measures peaks through Linux /proc/self/clear_refs")
def test_statements_bound_the_measured_peak():
    proc = subprocess.run([sys.executable, "-c", MEASURE, json.dumps(CASES)], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    measured = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(measured) == len(CASES)
    over = []
    for (test, params, nbytes, sequence_bits, fold), (_, _, peak) in zip(CASES, measured):
        stated = TestSpec(test, params, sequence_bits, fold).memory_need(CHUNK).peak
        if peak > stated + ALLOCATOR_NOISE:
            over.append(f"{test} {params} seq={sequence_bits} fold={fold}: measured {peak >> 10} KiB > stated {stated >> 10} KiB")
    assert not over, "\n".join(over)


def _suite_file(tmp_path, body: str):
    path = tmp_path / "suite.toml"
    path.write_text(f'name = "hostile"\n[[tests]]\n{body}\n')
    return path


# the cases found by hand: each was accepted and allocated gigabytes (or overflowed)
@pytest.mark.parametrize("body, says", [
    ('test = "block_frequency"\nM = 1000000000000000000', "M must be from 1 to 2^30"),
    ('test = "dft"\nmax_bits = 1000000000000', "max_bits must be from 1 to 2^33"),
    ('test = "cumulative_sums"\nmax_bits = 1000000000000', "max_bits must be from 1 to 2^33"),
    ('test = "serial_correlation"\nlags = [1000000000000000000]', "every value of lags must be from 1 to 2^20"),
    ('test = "bit_linear_complexity"\nevery = 1000000000000000000', "every must be from 1 to 2^24"),
])
def test_unbounded_parameters_are_refused_with_one_line(tmp_path, body, says):
    suite = _suite_file(tmp_path, body)
    result = randqa("test", "pcg64", "-n", "1M", "--suite", str(suite))
    assert result.code == 2
    test = body.split('"')[1]
    assert_one_error_line(result, f"suite file {suite}", f"[[tests]] entry 1 ({test})", says)
    assert result.max_rss < 400 * MIB


def test_a_suite_over_max_memory_is_refused_before_the_run(tmp_path):
    suite = _suite_file(tmp_path, 'test = "digraph"\nposition_mod = 4096')
    result = randqa("test", "pcg64", "-n", "1M", "--suite", str(suite), "--max-memory", "1G")
    assert result.code == 2
    assert_one_error_line(result, "[[tests]] entry 1 (digraph) needs 2.0 GiB of memory", "over --max-memory 1.0 GiB")
    assert result.max_rss < 400 * MIB


def test_jobs_count_against_max_memory(tmp_path):
    from randqa.engine.memory import check_run_memory

    suite = load_suite("standard")
    one, eight = (check_run_memory(suite, 1 << 62, jobs=jobs, length=1 << 20) for jobs in (1, 8))  # -n 1M: no cluster
    assert eight > one
    limit = str((one + eight) // 2)
    fits = randqa("test", "pcg64", "-n", "1M", "--max-memory", limit, "-j", "1", "--json", str(tmp_path / "r.json"))
    assert fits.code == 0, fits.err
    over = randqa("test", "pcg64", "-n", "1M", "--max-memory", limit, "-j", "8")
    assert over.code == 2
    assert_one_error_line(over, "suite file standard.toml", "for the whole run, over --max-memory")


@pytest.mark.parametrize("body, says", [
    ('test = "block_frequency"\nM = 2147483648', "M must be from 1 to 2^30"),
    ('test = "overlapping_template"\nblock_bits = 134217728', "block_bits must be from 1 to 2^26"),
    ('test = "overlapping_template"\ndegrees_of_freedom = 21', "degrees_of_freedom must be from 1 to 20"),
    ('test = "linear_complexity"\nM = 16777216', "M must be from 7 to 2^20"),
    ('test = "serial_correlation"\nlags = [' + ", ".join(str(k) for k in range(1, 66)) + "]",
     "lags must list 1 to 64 values"),
    ('test = "frequency"\nsequence_bits = 9223372036854775800', "sequence_bits must be a positive multiple of 8"),
    ('test = "non_overlapping_template"\nm = 22', "m must be from 2 to 21"),
    ('test = "non_overlapping_template"\nm = 9\ntemplates = [' + ", ".join(['"000000001"'] * 2) + ', 7]',
     "every value of templates must be a string"),
])
def test_parameters_out_of_their_range_are_refused(body, says):
    with pytest.raises(SuiteError) as refused:
        parse_suite(f'[[tests]]\n{body}\n'.encode(), "x.toml")
    message = str(refused.value)
    assert message.startswith("suite file x.toml: [[tests]] entry 1") and says in message and "\n" not in message


@pytest.mark.parametrize("name", suite_names())
def test_shipped_suites_fit_in_a_gigabyte(name):
    from randqa.battery.suites import check_memory

    # but collisions64, whose memory decides how long a run must be (a set of
    # 2.7 GiB for a 16 TiB block, and 2 GiB more while its state is saved;
    # suites/collisions64.toml)
    limit = 6 << 30 if name == "collisions64" else 1 << 30
    assert check_memory(load_suite(name), limit, chunk_bytes=CHUNK, jobs=2, lengths=22) < limit


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="max RSS of a child from wait4, in Linux's units")
@pytest.mark.parametrize("suite, args, length", [("nist-sp800-22", ["--sequences", "8", "-j", "2"], 1_000_000),
                                                 ("rc4", ["-n", "64M", "-j", "1"], 64 << 20),
                                                 ("standard", ["-n", "64M", "-j", "2"], 64 << 20)])
def test_a_whole_run_stays_within_its_statement(suite, args, length):
    from randqa.engine.memory import check_run_memory

    # the statement randqa checks before this very run: its length and its
    # threads, each of which keeps the temporaries of the updates it ran
    # (glibc gives every thread its own arena, and frees into it)
    stated = check_run_memory(load_suite(suite), 1 << 62, jobs=int(args[args.index("-j") + 1]), length=length)
    # RSS in 4 KiB pages: numpy asks for transparent huge pages for large
    # arrays, which the kernel grants or not, so RSS would move in 2 MiB steps
    pages = {"NUMPY_MADVISE_HUGEPAGE": "0"}
    base = randqa("test", "pcg64", "--seed", "1", "--suite", suite, "-n", "1K", env=pages)
    full = randqa("test", "pcg64", "--seed", "1", "--suite", suite, *args, env=pages)
    assert base.code in (0, 1) and full.code in (0, 1), full.err
    assert full.max_rss - base.max_rss <= stated, (full.max_rss >> 20, base.max_rss >> 20, stated >> 20)
