"""decimated_collisions (O'Neill's decimated birthday test, SmokeRand's
coll64dec): its set counts repeats as a Python set does and never fills past
three quarters, the repeats equal a plain numpy count per block, the mean is
the birthday problem's exact one and P(no repeat) its exact product (mpmath),
a stream cut into parts placed anywhere merges into the one-pass result
(with blocks and capacity overflows across the cuts), and the scale model
fails where predicted: SplitMix's algorithm on a 40-bit state, whose
outputs never repeat, at the first doubling length past
2^e sqrt(2 ln(10^6) 2^(b-e)) words, where PCG64 passes (benchmarks/bench_collisions.py
runs 40 to 48 bits)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from accumulators import feed_in_pieces
from randqa.battery import _counts
from randqa.battery.decimated_collisions import DecimatedCollisions, block_capacity, table_slots
from randqa.battery.suites import parse_suite
from randqa.engine import run_progressive
from randqa.sources import open_backend

rng = np.random.default_rng(20240611)


def test_the_set_counts_repeats_as_a_python_set():
    seen: set[int] = set()
    table, fill = np.zeros(table_slots(300_000), dtype=np.uint64), np.zeros(2, dtype=np.int64)
    for size in (1, 5, 1000, 70_000, 3, 200_000, 17):
        batch = rng.integers(0, 150_000, size=size, dtype=np.uint64)  # many repeats, zero among them
        expected = 0
        for v in batch.tolist():
            expected += v in seen
            seen.add(v)
        assert _counts.set_insert(table, fill, batch) == expected
    assert fill[0] == len(seen) and fill[1] == (0 in seen)
    assert set(table[table != 0].tolist()) == seen - {0}


def test_the_set_refuses_to_fill_past_three_quarters():
    table, fill = np.zeros(100, dtype=np.uint64), np.zeros(2, dtype=np.int64)
    assert _counts.set_insert(table, fill, np.arange(1, 76, dtype=np.uint64)) == 0
    with pytest.raises(ValueError, match="three quarters"):
        _counts.set_insert(table, fill, np.arange(76, 78, dtype=np.uint64))
    assert fill[0] == 75  # nothing of the refused values went in


def reference_repeats(data: bytes, word_bytes: int, bits: int, zero_bits: int, values: int) -> tuple[int, list[int]]:
    """Per block of values << zero_bits words: repeats among the first
    capacity kept values, and how many were compared."""
    words = np.frombuffer(data[: len(data) // word_bytes * word_bytes], dtype=f"<u{word_bytes}").astype(np.uint64)
    block = values << zero_bits
    repeats, compared = 0, []
    for lo in range(0, len(words), block):
        v = words[lo : lo + block] & np.uint64((1 << bits) - 1)
        kept = v[(v & np.uint64((1 << zero_bits) - 1)) == 0][: block_capacity(values)]
        repeats += len(kept) - len(np.unique(kept))
        compared.append(len(kept))
    return repeats, compared


PARAMS = dict(word_bytes=4, bits=24, zero_bits=2, values=600)  # 2^22 cells, blocks of 2400 words (9600 bytes)


def crowded_stream(nbytes: int) -> np.ndarray:
    # values from a small range (many repeats) and stretches of zero words
    # (every word kept: blocks over capacity)
    words = rng.integers(0, 1 << 14, size=nbytes // 4, dtype=np.uint32) << np.uint32(2)
    words[5000:9000] = 0
    words[30_000:31_000] = 0
    return words.astype("<u4").view(np.uint8)


def test_repeats_per_block_equal_numpy():
    data = crowded_stream(200_000)
    acc = DecimatedCollisions(**PARAMS)
    feed_in_pieces(acc, data, [1, 4095, 9601, 100_000])
    repeats, compared = reference_repeats(data.tobytes(), **PARAMS)
    (result,) = acc.finalize()
    assert result.statistic == repeats > 100
    assert max(compared) == block_capacity(600)  # the zero words overflowed a block


def test_parts_placed_anywhere_merge_into_one_pass():
    data = crowded_stream(160_000)
    whole = DecimatedCollisions(**PARAMS)
    whole.update(data)
    for cuts in ([4], [9600, 19_200], [100, 9604, 9608, 50_000], list(range(4 * 997, len(data), 4 * 997)),
                 [21_000, 22_000, 23_000]):  # the zero words' blocks, cut
        bounds = [0, *cuts, len(data)]
        merged = None
        for lo, hi in zip(bounds, bounds[1:]):
            part = DecimatedCollisions(**PARAMS)
            part.begin_at(lo)
            part.update(data[lo:hi])
            sent = DecimatedCollisions(**PARAMS)  # a state sent by a worker
            sent.begin_at(lo)
            sent.load_state(part.state())
            if merged is None:
                merged = sent
            else:
                merged.merge(sent)
        assert [r.to_json() for r in merged.finalize()] == [r.to_json() for r in whole.finalize()], cuts



def test_a_state_holds_the_values_compared_not_the_table():
    """The state of a block holds the values it compared, not its table's
    empty slots: it grows with the data, whatever the capacity (collisions64's
    table is 2.86 GB), and loaded into a fresh test it goes on as the one
    that was never saved (a repeat of a value from before the save counts)."""
    params = dict(bits=64, zero_bits=4, values=1 << 24)  # a table of 179 MB, of which little is written
    sizes = []
    for words in (1 << 14, 1 << 16):
        data = rng.integers(0, 1 << 63, words, dtype=np.uint64) << np.uint64(4)
        saved = DecimatedCollisions(**params)
        saved.update(data.view(np.uint8))
        state = saved.state()
        sizes.append(sum(a.nbytes for a in _arrays(state)))
        assert sizes[-1] <= 8 * words + 4096
        loaded = DecimatedCollisions(**params)
        loaded.load_state(state)
        more = np.concatenate([data[:100], rng.integers(0, 1 << 63, 1000, dtype=np.uint64) << np.uint64(4)])
        saved.update(more.view(np.uint8))
        loaded.update(more.view(np.uint8))
        assert [r.to_json() for r in loaded.finalize()] == [r.to_json() for r in saved.finalize()]
        assert loaded.finalize()[0].statistic >= 100
    assert sizes[1] > 3 * sizes[0]


def test_a_state_whose_repeats_its_values_do_not_hold_is_refused():
    from randqa.battery._state import StateError

    test = DecimatedCollisions(bits=64, values=1 << 10)
    test.update((np.arange(1, 65, dtype=np.uint64)).view(np.uint8))
    state = test.state()
    compared = state["current"]["attrs"]["compared_values"].copy()
    compared[1] = compared[0]
    state["current"]["attrs"]["compared_values"] = compared
    loaded = DecimatedCollisions(bits=64, values=1 << 10)
    loaded.load_state(state)
    with pytest.raises(StateError, match="0 repeats among values that hold 1"):
        loaded.update(np.arange(100, 164, dtype=np.uint64).view(np.uint8))


def _arrays(tree):
    if isinstance(tree, np.ndarray):
        yield tree
    elif isinstance(tree, dict):
        for value in tree.values():
            yield from _arrays(value)
    elif isinstance(tree, list):
        for value in tree:
            yield from _arrays(value)


@pytest.mark.parametrize("n, cell_bits", [(2, 16), (300, 20), (2000, 32), (50_000, 40)])
def test_mean_and_no_repeat_probability_are_the_birthday_problems(n, cell_bits):
    acc = DecimatedCollisions(word_bytes=8, bits=max(cell_bits, 16), zero_bits=0, values=max(2, n))
    distinct = np.arange(n, dtype=np.uint64) * np.uint64(7919)  # n distinct values: no repeat
    acc.update(distinct.astype("<u8").view(np.uint8))
    (result,) = acc.finalize()
    mpmath.mp.dps = 60
    k = mpmath.mpf(2) ** cell_bits
    exact_mean = n - k + k * (1 - 1 / k) ** n
    exact_none = mpmath.exp(mpmath.loggamma(k + 1) - mpmath.loggamma(k - n + 1) - n * mpmath.log(k))  # k! / (k-n)! / k^n
    assert result.statistic == 0
    assert result.details["expected"] == pytest.approx(float(exact_mean), rel=1e-12)
    assert result.pvalue_low == pytest.approx(float(exact_none), rel=1e-12)


def scale_model_suite(bits: int, zero_bits: int, values: int):
    # collisions64's thresholds: a tail below 1e-6 fails at once, no retest
    text = (f'name = "scale"\n[thresholds]\nfail_at_once = 1e-6\n[[tests]]\ntest = "decimated_collisions"\n'
            f'bits = {bits}\nzero_bits = {zero_bits}\nvalues = {values}\n')
    return parse_suite(text.encode(), "scale.toml")


def predicted_words(bits: int, zero_bits: int, alpha: float = 1e-6) -> float:
    """Words at which P(no repeat) among the kept values falls below alpha: n^2 / 2k = ln(1/alpha)."""
    return 2**zero_bits * math.sqrt(2 * math.log(1 / alpha) * 2 ** (bits - zero_bits))


def test_scale_model_fails_at_the_predicted_length_and_pcg64_passes():
    suite = scale_model_suite(40, 6, 1 << 20)  # one block, 512 MiB, holds the whole run
    predicted = 8 * predicted_words(40, 6)  # 336 MiB
    first_doubling = 1 << math.ceil(math.log2(predicted))
    with open_backend("splitmix:40", 1) as source:
        result = run_progressive(source, suite, first_doubling // 2, 1 << 30)
    assert result.first_failure_bytes == first_doubling
    with open_backend("pcg64", 1) as source:
        assert run_progressive(source, suite, first_doubling, first_doubling).verdict == "pass"


@pytest.mark.parametrize("params", [dict(word_bytes=2), dict(bits=15), dict(bits=33, word_bytes=4), dict(zero_bits=49),
                                    dict(bits=32, zero_bits=17), dict(values=1), dict(bits=30, values=1 << 20)])
def test_bad_parameters_are_refused(params):
    with pytest.raises(ValueError):
        DecimatedCollisions(**params)
