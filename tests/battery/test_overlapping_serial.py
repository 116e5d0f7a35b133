"""overlapping_serial (NIST SP 800-22 Rev 1a 2.11's statistics on circular
overlapping m-bit patterns): the example 2.11.4, the pattern counts against
a direct count for any chunking and tail bits, and RANDU's low 4 bits
(period 4) caught through folding.
"""

from __future__ import annotations

import numpy as np
import pytest

from accumulators import failed, results_of
from randqa.battery._folding import FoldedTest
from randqa.battery.overlapping_serial import OverlappingSerial
from reference_generators import pcg64_array, reference_stream


def test_overlapping_serial_nist_example() -> None:
    # NIST SP 800-22 2.11.4: eps = 0011011101, m = 3 -> P-value1 = 0.808792, P-value2 = 0.670320
    acc = OverlappingSerial(m=3)
    acc.update(np.array([0b00110111], dtype=np.uint8))
    acc.update_tail_bits(np.array([0, 1], dtype=np.uint8))
    nabla, nabla2 = acc.finalize()
    assert (nabla.statistic, nabla2.statistic) == pytest.approx((1.6, 0.8))
    assert round(nabla.pvalue, 6) == 0.808792
    assert round(nabla2.pvalue, 6) == 0.670320
    assert nabla.verdict == "insufficient"  # 10 bits: the p-value is shown, not judged


def _circular_pattern_counts(bits: np.ndarray, m: int) -> np.ndarray:
    extended = np.concatenate([bits, bits[: m - 1]]).astype(np.int64)
    values = np.zeros(len(bits), dtype=np.int64)
    for k in range(m):
        values = values * 2 + extended[k : k + len(bits)]
    return np.bincount(values, minlength=2**m)


@pytest.mark.parametrize("m", [2, 4, 9, 10, 14])
@pytest.mark.parametrize("tail", [0, 5])
def test_overlapping_serial_counts_are_circular_nist_counts(m: int, tail: int) -> None:
    data = pcg64_array(5_000, seed=40 + m)
    tail_bits = np.random.default_rng(m).integers(0, 2, tail).astype(np.uint8)
    acc = OverlappingSerial(m=m)
    for a, b in [(0, 1), (1, 2), (2, 1_234), (1_234, 5_000)]:
        acc.update(data[a:b])
    acc.update_tail_bits(tail_bits)
    counts, n = acc.pattern_counts()
    bits = np.concatenate([np.unpackbits(data), tail_bits])
    assert n == len(bits)
    assert np.array_equal(counts, _circular_pattern_counts(bits, m))


def test_overlapping_serial_fails_a_biased_bit_pattern() -> None:
    # the low 4 bits of RANDU words have period 4: [Low4/32] folding makes it blatant
    data = reference_stream("randu", 32768)  # 100 expected per pattern: 25,600 folded bits
    folded = FoldedTest(OverlappingSerial(m=8), word_bits=32, low_bits=4)
    assert "overlapping_serial[m=8,nabla][low4/32]" in failed(results_of(folded, data))


@pytest.mark.parametrize("m", [1, 21, 2.0])
def test_overlapping_serial_refuses_bad_parameters(m) -> None:
    with pytest.raises(ValueError):
        OverlappingSerial(m=m)
