"""zero_repeats: its counts against a direct computation in any pieces and
across merges, its p-values against scipy's binomial tails, bad parameters
and kernel inputs refused, too little data insufficient, RC4 with a
weakened output caught where RC4 passes."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from randqa.battery import _counts
from randqa.battery.zero_repeats import MIN_ZEROS, OFFSETS, ZeroRepeats
from reference_generators import pcg64_bytes


def direct_counts(data: np.ndarray, lags: list[int]) -> np.ndarray:
    """[zeros, (pairs without a zero, equal pairs) per (offset, lag)] by the definition."""
    z = data.astype(np.int64)
    lo, hi = min(0, *OFFSETS), max(OFFSETS) + max(lags)
    t = np.flatnonzero(z == 0)
    t = t[(t + lo >= 0) & (t + hi < len(z))]
    counts = [len(t)]
    for a in OFFSETS:
        for lag in lags:
            x, y = z[t + a], z[t + a + lag]
            both = (x != 0) & (y != 0)
            counts += [int(both.sum()), int((both & (x == y)).sum())]
    return np.array(counts)


def sparse_bytes(n: int, seed: int) -> np.ndarray:
    """Random bytes from a small alphabet with zeros in it: many zeros and repeats to count."""
    return np.random.default_rng(seed).integers(0, 6, n).astype(np.uint8)


@pytest.mark.parametrize("params", [dict(), dict(table=16, multiples=3, spread=1), dict(table=2, multiples=1, spread=0)])
def test_counts_equal_the_definition_in_any_pieces_and_merges(params):
    data = sparse_bytes(20_000, 1)
    whole = ZeroRepeats(**params)
    expected = direct_counts(data, whole.lags.tolist())
    whole.update(data)
    assert whole.counts.tolist() == expected.tolist()
    pieces = ZeroRepeats(**params)
    cuts = [0, 1, 2, 700, 701, 1500, 9000, len(data)]
    for lo, hi in zip(cuts, cuts[1:]):
        pieces.update(data[lo:hi])
    assert pieces.counts.tolist() == expected.tolist()
    for split in (1, 500, 1031, 10_000):  # shorter and longer than a window
        left, right = ZeroRepeats(**params), ZeroRepeats(**params)
        left.update(data[:split])
        right.update(data[split:split + 300])
        tail = ZeroRepeats(**params)
        tail.update(data[split + 300:])
        right.merge(tail)
        left.merge(right)
        assert left.counts.tolist() == expected.tolist()


def test_pvalues_are_the_bonferroni_binomial_tails():
    acc = ZeroRepeats()
    acc.update(np.frombuffer(pcg64_bytes(1 << 20, 2), dtype=np.uint8))
    result = acc.finalize()[0]
    cells = acc.counts[1:].reshape(-1, 2)
    upper = stats.binom.sf(cells[:, 1] - 1, cells[:, 0], 1 / 255)
    lower = stats.binom.cdf(cells[:, 1], cells[:, 0], 1 / 255)
    assert result.details["cells"] == 40 == len(cells)
    assert result.pvalue == pytest.approx(min(1.0, upper.min() * 40), rel=1e-9)
    assert result.pvalue_low == pytest.approx(min(1.0, lower.min() * 40), rel=1e-9)
    assert result.pvalue_kind == "bound" and result.details["zeros"] == acc.counts[0]


def test_too_little_data_is_insufficient_and_says_how_much():
    acc = ZeroRepeats()
    acc.update(np.ones(5000, dtype=np.uint8))
    result = acc.finalize()[0]
    assert result.verdict == "insufficient" and f"{MIN_ZEROS} zero bytes" in result.needs


@pytest.mark.parametrize("params", [
    dict(table=1), dict(table=65537), dict(table=256.0), dict(multiples=0), dict(multiples=17),
    dict(spread=-1), dict(spread=128), dict(table=8, spread=4), dict(multiples=True),
])
def test_bad_parameters_are_refused(params):
    with pytest.raises(ValueError):
        ZeroRepeats(**params)


def test_kernel_refuses_bad_input():
    counts = np.zeros(5, dtype=np.int64)
    offsets, lags = np.array([-1, 1], dtype=np.int64), np.array([256], dtype=np.int64)
    with pytest.raises(ValueError, match="offsets"):
        _counts.zero_repeat_scan(b"", b"abc", 1 << 62, np.array([0, 1], dtype=np.int64), lags, counts)
    with pytest.raises(ValueError, match="lags"):
        _counts.zero_repeat_scan(b"", b"abc", 1 << 62, offsets, np.array([0], dtype=np.int64), counts)
    with pytest.raises(ValueError, match="history"):
        _counts.zero_repeat_scan(bytes(300), b"abc", 1 << 62, offsets, lags, counts)
    with pytest.raises(ValueError, match="counts"):
        _counts.zero_repeat_scan(b"", b"abc", 1 << 62, offsets, lags, np.zeros(4, dtype=np.int64))


def rc4_bytes(n: int, key: bytes, weakened: bool) -> np.ndarray:
    """RC4 (RFC 6229's algorithm); weakened, it outputs the table's entry at
    i after the swap instead of S[S[i] + S[j]] (PractRand's rc4_weakenedA)."""
    s = list(range(256))
    j = 0
    for i in range(256):
        j = (j + s[i] + key[i % len(key)]) & 255
        s[i], s[j] = s[j], s[i]
    out = bytearray(n)
    i = j = 0
    for k in range(n):
        i = (i + 1) & 255
        j = (j + s[i]) & 255
        s[i], s[j] = s[j], s[i]
        out[k] = s[i] if weakened else s[(s[i] + s[j]) & 255]
    return np.frombuffer(bytes(out), dtype=np.uint8)


def test_an_rc4_that_outputs_its_table_entry_fails_where_rc4_passes():
    # a zero output is S[i] = 0 after the swap: the next time i comes round,
    # j does not move at that step, and the byte before comes back
    weak, strong = ZeroRepeats(), ZeroRepeats()
    weak.update(rc4_bytes(1 << 18, b"Key", True))
    strong.update(rc4_bytes(1 << 18, b"Key", False))
    result = weak.finalize()[0]
    assert result.pvalue < 1e-20 and result.details["most_repeats"]["lag"] in (255, 256, 257)
    result = strong.finalize()[0]
    assert result.pvalue > 1e-3 and result.pvalue_low > 1e-3
