"""conditional_walsh: the tables equal a direct numpy computation over the
sampled windows in any chunking and across merges (and a saved state), the
p-value is the Bonferroni'd chi-square tail of the largest mask statistic
computed independently, bad parameters and kernel inputs are refused, a
planted dependence of the carry-free bits fails while PCG64 passes, and too
little data is insufficient and says how much is needed.

Source: randqa/battery/conditional_walsh.py (its docstring's formula);
scipy.stats.chi2 and an explicit +-1 sign matrix for the reference
statistics, computed independently of the module.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chi2

from randqa.battery import _conditional_walsh
from randqa.battery.conditional_walsh import CELLS, LOOKS, MIN_SAMPLES, ConditionalWalsh, bytes_needed
from reference_generators import pcg64_array

#: the defaults' minimum: 65,536 windows of 8 bytes, one every 32 bytes
DEFAULT_MINIMUM = (MIN_SAMPLES - 1) * 32 + 8


def direct_tables(data: np.ndarray, rotation: int, step: int) -> np.ndarray:
    """T[t][v][s] counted with numpy from the words of data (the windows at word n, n mod step = 0)."""
    x = np.frombuffer(data[: len(data) // 2 * 2].tobytes(), dtype="<u2").astype(np.int64)
    n = np.arange(0, len(x) - 3, step)
    x0, x1, x2, x3 = x[n], x[n + 1], x[n + 2], x[n + 3]

    def bit(v: np.ndarray, j: int) -> np.ndarray:
        return (v >> ((rotation + j) % 16)) & 1

    key = sum(bit(x1, j) << j for j in range(8))
    middle = sum(bit(x2, j) << (j + 2) for j in range(7))
    tables = np.zeros((2, 256, 512), dtype=np.int64)
    for t, (d0, d2) in enumerate([(x0 ^ x1, x2 ^ x3), ((x1 - x0) % 65536, (x3 - x2) % 65536)]):
        s = bit(d0, 0) | bit(d2, 0) << 1 | middle
        np.add.at(tables[t], (key, s), 1)
    return tables


def fed(acc: ConditionalWalsh, data: np.ndarray, cuts: list[int] = ()) -> ConditionalWalsh:
    bounds = [0, *sorted(cuts), len(data)]
    for lo, hi in zip(bounds, bounds[1:]):
        acc.update(data[lo:hi])
    return acc


def reference_pvalue(tables: np.ndarray) -> tuple[float, float, int, int]:
    """(p-value, largest X, its table, its mask) from an explicit sign matrix and scipy's chi-square."""
    popcount = np.array([bin(i).count("1") for i in range(512)])
    signs = 1 - 2 * (popcount[np.bitwise_and.outer(np.arange(512), np.arange(512))] & 1)  # [m, s]
    c = tables[0].sum(axis=1)
    seen = c > 0
    w = tables[:, seen, :].astype(np.float64) @ signs.T.astype(np.float64)  # [t, v, m]
    x = (w**2 / c[seen, None]).sum(axis=1)[:, 1:]
    t, m = np.unravel_index(int(np.argmax(x)), x.shape)
    return min(1.0, 1022 * float(chi2.sf(x[t, m], int(seen.sum())))), float(x[t, m]), int(t), int(m) + 1


def test_tables_equal_a_direct_count_in_any_chunking_and_across_merges():
    data = pcg64_array(100_003, seed=41)  # odd: the last byte is half a word
    rotation, step = 13, 5  # bits r .. r+7 wrap past bit 15; windows 10 bytes apart
    expected = direct_tables(data, rotation, step)
    assert expected.sum() == 2 * ((len(data) // 2 - 4) // step + 1)
    whole = fed(ConditionalWalsh(rotation=rotation, step=step), data)
    assert np.array_equal(whole.tables(), expected)
    assert whole.samples == expected[0].sum()
    rng = np.random.default_rng(1)
    for _ in range(3):
        cuts = sorted(set(rng.integers(1, len(data), 30).tolist()) | {1, 2, 3, 9})
        assert np.array_equal(fed(ConditionalWalsh(rotation=rotation, step=step), data, cuts).tables(), expected)
    # a right part placed where it starts (any byte), and one short part in the middle
    left, middle, right = (ConditionalWalsh(rotation=rotation, step=step) for _ in range(3))
    fed(left, data[:33_331], [7, 1000])
    middle.begin_at(33_331)
    fed(middle, data[33_331:33_334])
    right.begin_at(33_334)
    fed(right, data[33_334:], [5])
    left.merge(middle)
    left.merge(right)
    assert np.array_equal(left.tables(), expected) and left.bytes_seen == len(data)
    # a right part not placed: the left ends on the phase (a whole sampling period)
    cut = 3000 * left.phase
    left, right = ConditionalWalsh(rotation=rotation, step=step), ConditionalWalsh(rotation=rotation, step=step)
    fed(left, data[:cut])
    fed(right, data[cut:], [3])
    left.merge(right)
    assert np.array_equal(left.tables(), expected)


def test_counts_move_to_the_totals_and_a_saved_state_continues():
    data = pcg64_array(60_001, seed=42)
    acc = fed(ConditionalWalsh(), data[:30_000])
    acc.cells.move()  # the 32-bit counts emptied into the 64-bit totals, as before a wrap
    copy = ConditionalWalsh()
    copy.load_state(acc.state())
    for a in (acc, copy):
        a.update(data[30_000:])
        assert np.array_equal(a.tables(), direct_tables(data, 3, 16))


def test_pvalue_is_the_bonferroni_chi_square_tail_of_the_largest_mask():
    data = pcg64_array(DEFAULT_MINIMUM + 32 * 4000, seed=43)
    acc = fed(ConditionalWalsh(), data)
    [result] = acc.finalize()
    tables = direct_tables(data, 3, 16)
    pvalue, x, table, mask = reference_pvalue(tables)
    assert LOOKS == 1022
    assert result.pvalue == pytest.approx(pvalue, rel=1e-9)
    assert result.statistic == pytest.approx(x, rel=1e-12)
    assert (result.details["table"], result.details["mask"]) == (["xor", "arith"][table], mask)
    assert result.details["keys"] == 256 and result.details["samples"] == tables[0].sum()
    assert result.pvalue_kind == "bound" and result.pvalue > 1e-4  # PCG64 passes


def test_a_planted_dependence_of_the_carry_free_bits_fails():
    # bit r of D_(n+2) set to bit r of D_n ^ bit r of x_(n+1) in 5% of the
    # windows: the parity s0 ^ s1 then leans with the key's lowest bit
    rng = np.random.default_rng(44)
    x = rng.integers(0, 1 << 16, 1 << 21, dtype=np.uint16).reshape(-1, 16)
    r = 3
    want = ((x[:, 0] ^ x[:, 1]) >> r & 1) ^ (x[:, 1] >> r & 1)  # bit r of D_n ^ bit r of x_(n+1)
    planted = rng.random(len(x)) < 0.05
    x3 = (x[:, 3] & ~np.uint16(1 << r)) | ((((x[:, 2] >> r) & 1) ^ want) << r).astype(np.uint16)
    x[planted, 3] = x3[planted]
    [result] = fed(ConditionalWalsh(), np.frombuffer(x.astype("<u2").tobytes(), dtype=np.uint8)).finalize()
    assert result.pvalue < 1e-10
    assert (result.details["table"], result.details["mask"]) == ("xor", 3)
    assert result.details["bits"] == ["D_n[3]", "D_n+2[3]"]
    # the same words unplanted pass
    clean = np.frombuffer(rng.integers(0, 1 << 16, 1 << 21, dtype=np.uint16).astype("<u2").tobytes(), dtype=np.uint8)
    assert fed(ConditionalWalsh(), clean).finalize()[0].pvalue > 1e-4


def test_too_little_data_is_insufficient_and_says_how_much():
    assert bytes_needed(MIN_SAMPLES, 16) == DEFAULT_MINIMUM == 2_097_128
    data = pcg64_array(DEFAULT_MINIMUM, seed=45)
    [short] = fed(ConditionalWalsh(), data[:-1]).finalize()
    assert short.verdict == "insufficient" and f"{DEFAULT_MINIMUM} bytes" in short.needs
    assert short.pvalue is None and short.details["samples"] == MIN_SAMPLES - 1
    [enough] = fed(ConditionalWalsh(), data).finalize()
    assert enough.verdict != "insufficient" and enough.pvalue is not None
    [other] = ConditionalWalsh(step=4).finalize()
    assert f"{bytes_needed(MIN_SAMPLES, 4)} bytes" in other.needs


@pytest.mark.parametrize("params", [dict(rotation=16), dict(rotation=-1), dict(rotation=3.0), dict(rotation=True),
                                    dict(step=3), dict(step=0), dict(step=(1 << 40) + 1), dict(step=16.0)])
def test_bad_parameters_are_refused(params):
    with pytest.raises(ValueError, match=next(iter(params))):
        ConditionalWalsh(**params)


def test_bad_kernel_inputs_are_refused():
    counts = np.zeros(CELLS, dtype=np.uint32)
    data = np.zeros(64, dtype=np.uint8)
    none = np.zeros(0, dtype=np.uint8)
    kernel = _conditional_walsh.conditional_walsh_count
    for args, says in [
        ((np.zeros(8, np.uint8), data, 8, 16, 3, counts), "history"),
        ((np.zeros(3, np.uint8), data, 2, 16, 3, counts), "position"),
        ((none, data, -1, 16, 3, counts), "position"),
        ((none, data, 0, 3, 3, counts), "step"),
        ((none, data, 0, 16, 16, counts), "rotation"),
        ((none, data, 0, 16, -1, counts), "rotation"),
        ((none, data, 0, 16, 3, np.zeros(CELLS, dtype=np.int64)), "counts"),
        ((none, data, 0, 16, 3, np.zeros(CELLS - 1, dtype=np.uint32)), "counts"),
        ((none, data, 0, 16, 3, np.zeros(CELLS, dtype=np.float32)), "counts"),
    ]:
        with pytest.raises(ValueError, match=says):
            kernel(*args)
    frozen = np.zeros(CELLS, dtype=np.uint32)
    frozen.flags.writeable = False
    with pytest.raises((ValueError, BufferError, TypeError)):
        kernel(none, data, 0, 16, 3, frozen)
    assert not counts.any()
    # and a good call counts the windows at bytes 0 and 32 (64 bytes, step 16)
    assert kernel(none, data, 0, 16, 3, counts) == 2 and counts.sum() == 4


def test_a_merge_off_the_phase_is_refused():
    left, right = ConditionalWalsh(), ConditionalWalsh()
    left.update(np.zeros(40, dtype=np.uint8))
    right.update(np.zeros(40, dtype=np.uint8))
    with pytest.raises(ValueError, match="boundary"):
        left.merge(right)
