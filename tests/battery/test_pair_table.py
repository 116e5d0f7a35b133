"""The overlapping byte-pair table kernel (randqa/battery/_pair_table.c)
against numpy, and the counts of six tests derived from the table
(tests/pair_table_reference.py) against the counts those tests' own kernels make
on the same bytes: every one must be the same integer."""

from __future__ import annotations

import numpy as np
import pytest

import pair_table_reference as ref
from randqa.battery import _counts, _pair_table
from randqa.battery.overlapping_serial import OverlappingSerial

rng = np.random.default_rng(5)


def lcg_bytes(n: int) -> np.ndarray:
    """The top bytes of a 32-bit LCG: strongly dependent pairs."""
    x = (np.arange(n, dtype=np.uint64) * 1103515245 + 12345) & 0xFFFFFFFF
    return (x >> np.uint64(24)).astype(np.uint8)


SAMPLES = {
    "random": rng.integers(0, 256, size=(1 << 20) + 13, dtype=np.uint8),
    # one cell gets every pair: its byte counter wraps thousands of times
    "zeros": np.zeros(300_001, dtype=np.uint8),
    "two values": rng.choice(np.array([0x0F, 0xF0], dtype=np.uint8), size=200_003),
    "lcg": lcg_bytes(500_000),
    "short": rng.integers(0, 256, size=1000, dtype=np.uint8),
    "one byte": np.array([7], dtype=np.uint8),
}


def kernel_table(data: np.ndarray, previous: int = -1) -> np.ndarray:
    counts = np.zeros(65536, dtype=np.int64)
    _pair_table.add_pair_counts(data, previous, counts)
    return counts.reshape(256, 256)


@pytest.mark.parametrize("sample", SAMPLES)
def test_pair_table_matches_numpy(sample):
    data = SAMPLES[sample]
    assert np.array_equal(kernel_table(data), ref.pair_table(data))
    with_previous = ref.pair_table(np.concatenate([[200], data]).astype(np.uint8))
    assert np.array_equal(kernel_table(data, 200), with_previous)


def test_pair_table_does_not_depend_on_chunking():
    data = SAMPLES["random"]
    whole = kernel_table(data)
    for cuts in ([1], [70_000], [8, 9, 65_537, 65_545, 400_000], list(range(99_999, len(data), 99_999))):
        counts = np.zeros(65536, dtype=np.int64)
        previous = -1
        bounds = [0, *cuts, len(data)]
        for lo, hi in zip(bounds, bounds[1:]):
            _pair_table.add_pair_counts(data[lo:hi], previous, counts)
            previous = int(data[hi - 1])
        assert np.array_equal(counts.reshape(256, 256), whole)


@pytest.mark.parametrize("sample", ["random", "zeros", "two values", "lcg", "short"])
def test_counts_derived_from_the_pair_table_equal_each_tests_own(sample):
    data = SAMPLES[sample]
    first, last = int(data[0]), int(data[-1])
    pairs = kernel_table(data)
    circular = ref.circular(pairs, first, last)

    histogram = np.zeros(256, dtype=np.int64)  # chi_square, serial_correlation
    _counts.byte_histogram(data, histogram)
    assert np.array_equal(ref.byte_histogram(pairs, last), histogram)
    assert np.array_equal(circular.sum(axis=0), histogram) and np.array_equal(circular.sum(axis=1), histogram)

    assert ref.ones_and_transitions(pairs, last) == _counts.bit_counts(data)  # frequency, runs

    assert ref.lag1_products(pairs) == _counts.lag_product_sum(data, 1)  # serial_correlation
    assert ref.lag1_products(circular) == _counts.lag_product_sum(np.append(data, data[0]), 1)

    digraph = np.zeros(65536, dtype=np.int64)  # digraph (position_mod 0)
    _counts.digraph_scan(data, -1, 0, 0, digraph)
    assert np.array_equal(pairs.ravel(), digraph)

    for m in range(2, 10):  # overlapping_serial takes its m <= 9 counts from pairs too
        acc = OverlappingSerial(m=m)
        acc.update(data)
        expected, bits = acc.pattern_counts()
        assert bits == 8 * len(data)
        assert np.array_equal(ref.pattern_counts(circular, m), expected), m


def test_pair_table_refuses_bad_input():
    with pytest.raises(ValueError, match="previous"):
        _pair_table.add_pair_counts(b"abc", 256, np.zeros(65536, dtype=np.int64))
    with pytest.raises(ValueError, match="counts"):
        _pair_table.add_pair_counts(b"abc", -1, np.zeros(65535, dtype=np.int64))
    with pytest.raises(ValueError, match="counts"):
        _pair_table.add_pair_counts(b"abc", -1, np.zeros(65536, dtype=np.float64))
    counts = np.zeros(65536, dtype=np.int64)
    _pair_table.add_pair_counts(b"", 5, counts)  # nothing to pair with
    assert not counts.any()
