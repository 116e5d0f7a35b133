"""Seed sweep: test the *start* of many independently seeded streams.

Ordinary batteries read one long stream, so they never see how a generator
behaves right after seeding.  RC4 is the classic case: its second output
byte is 0 with probability 2/256 whatever the key (Mantin and Shamir, "A
Practical Attack on Broadcast RC4", FSE 2001), yet PractRand needs about
2^39 bytes of one stream to notice anything.  Weak seeding (adjacent seeds
giving related streams, a degenerate seed locking the state) only shows here.

For seeds base, base+1, ..., base+K-1 the first P bytes of each stream are
read (a K x P matrix), and three results are computed:

- ``seed_sweep[positions]``: for every position j and byte value v, the
  number of seeds whose stream has v at j is Binomial(K, 1/256); the
  smallest tail probability over the 256 P cells and both tails, adjusted
  for that many looks (Sidak: 1 - (1 - p_min)^(512 P)).  Catches a single
  biased value at a single position (RC4's second byte being 0), which a
  255-dof chi-square of the position would dilute.
- ``seed_sweep[all_positions]``: the sum of the P chi-squares (255 P dof):
  weak biases spread over many positions.
- ``seed_sweep[adjacent_seeds]``: the number of bits that differ between
  the streams of seeds s and s+1, summed over all K-1 pairs; Binomial(8 P
  (K-1), 1/2) under independence, normal approximation, two-sided.  Catches
  streams that hardly change when the seed changes by one.

Needs K >= 1280 seeds so each position expects 5 counts per byte value.
"""

from __future__ import annotations

import math
import time
from typing import Callable

import numpy as np
from scipy import stats

from randqa.engine import RunResult
from randqa.results import TestResult, Thresholds, chi_square_result, classify, insufficient
from randqa.sources.base import Source, read_full

MIN_SEEDS = 5 * 256


def collect_starts(open_seeded: Callable[[int], Source], seeds: int, positions: int, base_seed: int = 0) -> np.ndarray:
    """The first ``positions`` bytes of the streams of ``seeds`` consecutive seeds."""
    starts = np.empty((seeds, positions), dtype=np.uint8)
    for i in range(seeds):
        with open_seeded(base_seed + i) as source:
            if read_full(source, memoryview(starts[i])) != positions:
                raise ValueError(f"seed {base_seed + i}: stream shorter than {positions} bytes")
    return starts


def seed_sweep_results(starts: np.ndarray) -> list[TestResult]:
    """The three seed-sweep statistics of a K x P matrix of stream starts."""
    seeds, positions = starts.shape
    if seeds < MIN_SEEDS:
        needs = f"at least {MIN_SEEDS} seeds (5 expected per byte value and position)"
        return [insufficient(f"seed_sweep[{part}]", needs) for part in ("positions", "all_positions", "adjacent_seeds")]
    # counts[j, v]: how many seeds put byte v at position j
    counts = np.zeros((positions, 256), dtype=np.int64)
    np.add.at(counts, (np.broadcast_to(np.arange(positions), starts.shape), starts), 1)
    expected = seeds / 256
    chi2 = ((counts - expected) ** 2).sum(axis=1) / expected
    upper = stats.binom.sf(counts - 1, seeds, 1 / 256)  # P(count >= observed)
    lower = stats.binom.cdf(counts, seeds, 1 / 256)  # P(count <= observed)
    cell_p = np.minimum(upper, lower)
    worst_position, worst_value = np.unravel_index(int(np.argmin(cell_p)), cell_p.shape)
    p_min = float(cell_p[worst_position, worst_value])
    looks = 2 * cell_p.size
    # Sidak adjustment, computed stably for tiny p_min
    p_positions = float(-np.expm1(looks * np.log1p(-p_min))) if p_min < 1 else 1.0
    results = [
        TestResult(
            "seed_sweep[positions]", float(counts[worst_position, worst_value]), p_positions,
            details={"seeds": seeds, "positions": positions, "worst_position": int(worst_position),
                     "worst_value": int(worst_value), "worst_cell_p": p_min, "expected_count": expected},
        )
    ]
    total = float(chi2.sum())
    dof = 255 * positions
    results.append(chi_square_result("seed_sweep[all_positions]", total, dof, {"dof": dof}))
    differing = int(np.bitwise_count(starts[1:] ^ starts[:-1]).sum())
    trials = 8 * positions * (seeds - 1)
    z = (differing - trials / 2) / math.sqrt(trials / 4)
    results.append(TestResult("seed_sweep[adjacent_seeds]", z, float(2 * stats.norm.sf(abs(z))),
                              details={"differing_bits": differing, "bits_compared": trials}))
    return results


def run_seed_sweep(name: str, open_seeded: Callable[[int], Source], seeds: int, *, positions: int = 256,
                   base_seed: int = 0, thresholds: Thresholds = Thresholds()) -> RunResult:
    """Seed-sweep a generator and judge the results like any other run."""
    start = time.perf_counter()
    starts = collect_starts(open_seeded, seeds, positions, base_seed)
    results = seed_sweep_results(starts)
    for r in results:
        classify(r, thresholds)
    run = RunResult(source={"name": name, "seed": base_seed}, suite="seed-sweep", results=results,
                    bytes_tested=int(starts.size), bits_tested=8 * int(starts.size),
                    elapsed_s=time.perf_counter() - start, thresholds=thresholds)
    run.extra["seed_sweep"] = {"seeds": seeds, "positions": positions, "base_seed": base_seed}
    return run
