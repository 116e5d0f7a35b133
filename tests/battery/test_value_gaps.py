"""value_gaps, PractRand's Gap-16 statistic: the distance back to each 16-bit
value's latest occurrence.  The geometric probabilities and the tail of
chi2(k) + lambda chi2(1) against direct computations, the counts against a
dictionary of latest indices, cut and merged streams against one pass; a
16-bit LCG (each value once per 65,536 words) fails, PCG64 passes.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate, stats

from accumulators import failed, feed_in_pieces, results_of, same_results
from randqa.battery.value_gaps import ValueGaps, distance_probabilities, merged_classes, mixture_tails
from reference_generators import lcg_bytes, pcg64_array


def test_distance_probabilities_are_the_geometric_law() -> None:
    probs = distance_probabilities(2048)
    q = 1 - Fraction(1, 65536)
    for d in (1, 2, 1000, 2047):
        assert math.isclose(probs[d], float(q ** (d - 1) / 65536), rel_tol=1e-12)
    assert math.isclose(probs[2048], float(q**2047), rel_tol=1e-12)
    assert probs[0] == 0 and math.isclose(probs.sum(), 1.0, rel_tol=1e-12)


@pytest.mark.parametrize("statistic, dof, weight", [(1100.0, 1000, 0.3), (900.0, 1000, 0.05), (1400.0, 1000, 1.0)])
def test_mixture_tails_match_numerical_convolution(statistic, dof, weight) -> None:
    # P(chi2(dof) + weight chi2(1) >= x) as an integral over the chi2(1) part
    def integrand(z: float) -> float:
        return stats.chi2.pdf(z, 1) * stats.chi2.sf(statistic - weight * z, dof)

    # past z = statistic / weight the chi2(dof) part is certain to make up the rest
    edge = statistic / weight
    reference = integrate.quad(integrand, 0, edge, limit=400, epsabs=0, epsrel=1e-10)[0] + stats.chi2.sf(edge, 1)
    upper, lower = mixture_tails(statistic, dof, weight)
    assert math.isclose(upper, reference, rel_tol=1e-6)
    assert math.isclose(upper + lower, 1.0, rel_tol=1e-9)


def test_merged_classes_hold_at_least_the_least_expected() -> None:
    expected = np.concatenate([[50.0, 45.0], np.full(100, 7.0), [3.0]])
    starts = merged_classes(expected, 40.0)
    sums = np.add.reduceat(expected, starts)
    assert starts[:2].tolist() == [0, 1] and (sums >= 40).all()


def test_counts_match_a_dictionary_of_latest_indices() -> None:
    data = pcg64_array(40_000, seed=60)
    words = data.view("<u2")
    # few values, so that most repeat within the window
    data = (words & 0x03FF).astype("<u2").view(np.uint8)
    acc = ValueGaps(max_gap=1024)
    results_of(acc, data, [1, 3001, 17_777])
    latest: dict[int, int] = {}
    expected = np.zeros(1025, dtype=np.int64)
    for n, v in enumerate(np.frombuffer(data, dtype="<u2").tolist()):
        d = n - latest[v] if v in latest else 1024
        latest[v] = n
        if n >= 1024:
            expected[min(d, 1024)] += 1
    assert (acc.counts == expected).all()


def test_cut_and_merged_streams_give_the_one_pass_results() -> None:
    data = pcg64_array(6 << 20, seed=61)
    params = dict(max_gap=16384)
    whole = results_of(ValueGaps(**params), data)
    assert whole[0].pvalue is not None
    # three parts; the middle one is short, so some values wait through it for the first part
    cuts = [2_000_000, 2_000_010, len(data)]
    parts, start = [], 0
    for end in cuts:
        part = ValueGaps(**params)
        part.begin_at(start)
        feed_in_pieces(part, data[start:end], [(end - start) // 3 * 2 + 1] if end - start > 100 else [])
        parts.append(part)
        start = end
    middle_then_last = parts[1]
    middle_then_last.merge(parts[2])
    parts[0].merge(middle_then_last)
    same_results(parts[0].finalize(), whole)
    same_results(results_of(ValueGaps(**params), data, [1, 999, 4_000_001]), whole)


@pytest.mark.parametrize("params", [dict(max_gap=1000), dict(max_gap=1 << 23), dict(min_expected=4), dict(max_gap=True),
                                    dict(min_expected=40.0)])
def test_value_gaps_refuses_bad_parameters(params) -> None:
    with pytest.raises(ValueError):
        ValueGaps(**params)


def test_value_gaps_fails_a_16_bit_lcg_and_passes_pcg64() -> None:
    # a full-period LCG mod 2^16 repeats every value exactly 65,536 words later
    lcg = np.frombuffer(lcg_bytes(1, 25_173, 13_849, 1 << 16, 1 << 20, 2), dtype=np.uint8)
    assert failed(results_of(ValueGaps(max_gap=16384), lcg))
    assert not failed(results_of(ValueGaps(max_gap=16384), pcg64_array(4 << 20, seed=62)))


def test_value_gaps_needs_its_warm_up_and_four_windows() -> None:
    short = results_of(ValueGaps(max_gap=16384), pcg64_array(100_000, seed=63))
    assert [r.pvalue for r in short] == [None, None]


def test_counts_have_the_covariance_worked_out_not_the_multinomial() -> None:
    # along w(x) = (1 - x) e^(-x) the counts vary 1 - |v|^2 times as much as
    # multinomial counts would (the distances' sum is nearly fixed); 100
    # streams of PCG64 tell 0.37 from 1 by more than ten standard errors
    gap = 1 << 16
    probs = distance_probabilities(gap)[1:]
    f = np.arange(gap + 1) / 65536
    f = f * np.exp(-f)
    w = np.append(f[1:gap], 0.0) - f[:gap]  # the integral of w over each distance's cell
    projections = []
    for seed in range(100):
        acc = ValueGaps(max_gap=gap)
        acc.update(pcg64_array(4 << 20, seed=1000 + seed))
        counts = acc.counts[1:]
        words = counts.sum()
        projections.append(np.sum(w * (counts - words * probs) / probs) / math.sqrt(words))
    v2 = float(np.sum(w * w / probs))
    ratio = float(np.var(projections)) / v2
    assert 0.6 < v2 < 0.7
    assert 0.2 < ratio < 0.6  # theory: 1 - |v|^2 = 0.37, plus at most 2 G / words = 0.06 at the ends
