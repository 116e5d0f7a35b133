"""Seed search: the kernels reproduce the backends' seeding, and small or
time-like seeds are found from 8 bytes."""

from __future__ import annotations

import random
import time

import numpy as np
import pytest
from reference_generators import backend_bytes

from randqa.errors import UsageError
from randqa.predict import _seed_search
from randqa.predict.base import NoFit
from randqa.predict.runner import run_predictor
from randqa.predict.seed_search import BACKENDS, SeedSearchPredictor


@pytest.mark.parametrize("backend", BACKENDS, ids=lambda b: b.name)
@pytest.mark.parametrize("seed", [0, 5, 2**31 + 12345, 2**32 - 1])
def test_kernel_finds_the_backends_seed(backend, seed):
    data = backend_bytes(backend.name, seed, 8)
    dtype = {1: "u1", 2: "<u2", 4: "<u4"}[backend.word_bytes]
    targets = data.view(dtype).astype(np.uint32)
    found = np.zeros(16, dtype=np.int64)
    lo, hi = max(0, seed - 20), min(2**32, seed + 20)
    count = backend.scan(lo, hi, targets.tobytes(), backend.mask, found)
    hits = set(int(v) for v in found[:count])
    assert seed in hits
    # glibc's srand(0) is srand(1); nothing else matches 32+ bits by chance here
    assert hits - {seed} <= ({0, 1} if backend.name.startswith("glibc") else set())


def test_kernel_refuses_bad_ranges():
    found = np.zeros(4, dtype=np.int64)
    with pytest.raises(ValueError):
        _seed_search.mt19937_init_genrand_scan(5, 2, b"\0\0\0\0", 0xFFFFFFFF, found)
    with pytest.raises(ValueError):
        _seed_search.glibc_srand_scan(0, 2**32 + 1, b"\0\0\0\0", 0xFFFFFFFF, found)
    with pytest.raises(ValueError):
        _seed_search.glibc_srand_scan(0, 10, b"", 0xFFFFFFFF, found)


@pytest.mark.parametrize("name, seed", [("glibc-rand-byte", 4242), ("mt19937", 777_777), ("glibc-rand", 31)])
def test_small_seeds_found_from_8_bytes(name, seed):
    data = backend_bytes(name, seed, 1 << 17)
    result = run_predictor(SeedSearchPredictor(), data)
    assert result.succeeded and result.checked_bytes >= 1 << 16 and result.observed_bytes == 8
    assert result.structure["backend"] == name and seed in result.structure["equivalent_seeds"]


def test_cpython_seed_from_its_own_bytes():
    data = np.frombuffer(random.Random(31337).randbytes(1 << 17), dtype=np.uint8)
    result = run_predictor(SeedSearchPredictor(), data)
    assert result.succeeded
    assert (result.structure["backend"], result.structure["seed"]) == ("python-random", 31337)


def test_time_seeded_generator_found():
    seed = int(time.time()) - 3 * 86400           # srand(time(NULL)) three days ago
    data = backend_bytes("glibc-rand-short", seed, 1 << 17)
    result = run_predictor(SeedSearchPredictor(), data)
    assert result.succeeded and result.structure["seed"] == seed


def test_seeds_outside_the_ranges_are_not_claimed():
    data = backend_bytes("mt19937", 2**31 + 99, 64)
    fit = SeedSearchPredictor().fit(data[:8])
    assert isinstance(fit, NoFit)
    wider = SeedSearchPredictor({"mt19937": [(2**31, 2**31 + 1000)]})
    assert wider.fit(data[:8]).structure["seed"] == 2**31 + 99


def test_bad_seed_ranges_refused():
    with pytest.raises(UsageError):
        SeedSearchPredictor({"siprand": [(0, 10)]})
    with pytest.raises(UsageError):
        SeedSearchPredictor({"mt19937": [(10, 2**33)]})
