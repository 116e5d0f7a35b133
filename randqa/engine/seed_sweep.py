"""Seed sweep: test the *start* of many independently seeded streams.

Ordinary batteries read one long stream, so they never see how a generator
behaves right after seeding.  RC4 is the classic case: its second output
byte is 0 with probability 2/256 whatever the key (Mantin and Shamir, "A
Practical Attack on Broadcast RC4", FSE 2001), yet PractRand needs about
2^39 bytes of one stream to notice anything.  Weak seeding (adjacent seeds
giving related streams, a degenerate seed locking the state) only shows here.

libdnet's ARC4 (``dnet-arc4``) is not RC4 here: it mixes the key in twice
and leaves i = j = 254, and the second-byte bias needs a keystream that
starts at i = j = 0.  Its first 256 bytes show no bias of even 2% in any
byte value at any position over 2^24 seeds, so the sweep rightly passes it.

For seeds base, base+1, ..., base+K-1 the first P bytes of each stream are
read, a block of 4096 seeds at a time, into a ``SeedSweep`` accumulator
(memory: the 256 P counts and one block, whatever K), and three results are
computed:

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
from typing import Any, Callable

import numpy as np
from scipy import stats

from randqa.engine.feeding import Fed, Reader
from randqa.engine.jobs import SegmentJob
from randqa.engine.judging import judge
from randqa.engine.lengths import Plan
from randqa.engine.loop import RunLoop
from randqa.engine.records import CheckpointRecord, Saver
from randqa.engine.segment_policy import DEFAULT_SEGMENT_BYTES
from randqa.engine.signals import InterruptGuard
from randqa.engine.workloads import Workload
from randqa.errors import UsageError
from randqa.results import TestResult, Thresholds, chi_square_result, insufficient, smallest_of
from randqa.run_result import RunResult, SweptSeeds
from randqa.sources.base import Source, read_full

MIN_SEEDS = 5 * 256
SEEDS_PER_BLOCK = 4096


class SeedSweep:
    """Accumulates the starts of consecutively seeded streams, in seed order.

    Keeps per-position byte counts, the differing-bit count between adjacent
    seeds, and the first and last start, so that the sweeps of two
    consecutive seed ranges merge exactly (``first_seed`` checks the order)."""

    def __init__(self, positions: int, first_seed: int = 0) -> None:
        self.positions = positions
        self.first_seed = first_seed
        self.seeds = 0
        self.counts = np.zeros((positions, 256), dtype=np.int64)  # counts[j, v]: seeds with byte v at j
        self.differing_bits = 0
        self.first: np.ndarray | None = None
        self.last: np.ndarray | None = None

    @property
    def next_seed(self) -> int:
        return self.first_seed + self.seeds

    def update(self, starts: np.ndarray) -> None:
        """Add the starts of the next seeds (one uint8 row per seed, in seed order)."""
        if starts.dtype != np.uint8 or starts.shape[1:] != (self.positions,):
            raise ValueError(f"starts must be uint8 rows of {self.positions} bytes, not {starts.dtype} {starts.shape[1:]}")
        if not len(starts):
            return
        cells = (np.arange(self.positions, dtype=np.int32) * 256 + starts).ravel()
        self.counts += np.bincount(cells, minlength=self.positions * 256).reshape(self.positions, 256)
        rows = starts if self.last is None else np.vstack([self.last, starts])
        self.differing_bits += int(np.bitwise_count(rows[1:] ^ rows[:-1]).sum())
        if self.first is None:
            self.first = starts[0].copy()
        self.last = starts[-1].copy()
        self.seeds += len(starts)

    def merge(self, later: "SeedSweep") -> None:
        """Add the sweep of the seeds that follow this one's."""
        if later.positions != self.positions:
            raise ValueError("only sweeps of the same number of positions merge")
        if later.first is None:
            return
        if self.first is None:
            self.first_seed = later.first_seed
        elif later.first_seed != self.next_seed:
            raise ValueError(f"the later sweep starts at seed {later.first_seed}, not at {self.next_seed}")
        self.counts += later.counts
        self.differing_bits += later.differing_bits
        if self.last is not None:
            self.differing_bits += int(np.bitwise_count(self.last ^ later.first).sum())
        else:
            self.first = later.first.copy()
        self.last = later.last.copy()
        self.seeds += later.seeds

    def finalize(self) -> list[TestResult]:
        """The three seed-sweep results of the seeds seen so far."""
        seeds, positions, counts = self.seeds, self.positions, self.counts
        if seeds < MIN_SEEDS:
            needs = f"at least {MIN_SEEDS} seeds (5 expected per byte value and position)"
            return [insufficient(f"seed_sweep[{part}]", needs) for part in ("positions", "all_positions", "adjacent_seeds")]
        expected = seeds / 256
        chi2 = ((counts - expected) ** 2).sum(axis=1) / expected
        upper = stats.binom.sf(counts - 1, seeds, 1 / 256)  # P(count >= observed)
        lower = stats.binom.cdf(counts, seeds, 1 / 256)  # P(count <= observed)
        cell_p = np.minimum(upper, lower)
        worst_position, worst_value = np.unravel_index(int(np.argmin(cell_p)), cell_p.shape)
        p_min = float(cell_p[worst_position, worst_value])
        looks = 2 * cell_p.size
        p_positions = smallest_of(p_min, looks)
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
        trials = 8 * positions * (seeds - 1)
        z = (self.differing_bits - trials / 2) / math.sqrt(trials / 4)
        results.append(TestResult("seed_sweep[adjacent_seeds]", z, float(2 * stats.norm.sf(abs(z))),
                                  details={"differing_bits": self.differing_bits, "bits_compared": trials}))
        return results


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
    sweep = SeedSweep(starts.shape[1])
    sweep.update(starts)
    return sweep.finalize()


class SeedSweepJob(SegmentJob):
    """Seeds ``[start, start + count)`` after ``base_seed`` of backend ``name``,
    swept on a worker (or here, through ``open_seeded``)."""

    def __init__(self, name: str, positions: int, base_seed: int,
                 open_seeded: Callable[[int], Source] | None = None) -> None:
        self.name = name
        self.positions = positions
        self.base_seed = base_seed
        self.open_seeded = open_seeded

    def __getstate__(self) -> dict:
        # workers open the backend by name: a local opener need not be picklable
        return dict(vars(self), open_seeded=None)

    def opener(self) -> Callable[[int], Source]:
        if self.open_seeded is not None:
            return self.open_seeded
        from randqa.sources import open_source

        name = self.name
        return lambda seed: open_source(name, seed=seed)

    def build(self, start: int) -> list[SeedSweep]:
        return [SeedSweep(self.positions, self.base_seed + start)]

    def reader(self, start: int, count: int, data: np.ndarray | None) -> Reader:
        return _SeedReader(self, start)


class _SeedReader(Reader):
    def __init__(self, job: SeedSweepJob, start: int) -> None:
        self.job = job
        self.next = start
        self.open_seeded = job.opener()

    def block(self, n: int) -> np.ndarray:
        """The starts of the next ``n`` seeds' streams (n x positions)."""
        starts = collect_starts(self.open_seeded, n, self.job.positions, self.job.base_seed + self.next)
        self.next += n
        return starts

    def feed(self, accumulators: list[Any], count: int) -> Fed:
        done = 0
        while done < count:
            n = min(SEEDS_PER_BLOCK, count - done)
            accumulators[0].update(self.block(n))
            done += n
        return Fed(done)


class SeedSweepWorkload(Workload):
    """The starts of consecutively seeded streams; a unit is one seed."""

    split = "seeds"
    unit = "seeds"

    def __init__(self, name: str, open_seeded: Callable[[int], Source], positions: int, base_seed: int,
                 thresholds: Thresholds) -> None:
        self.name = name
        self.job = SeedSweepJob(name, positions, base_seed, open_seeded)
        self.unit_bytes = positions
        self.thresholds = thresholds

    @property
    def remote_open(self) -> bool:
        return True

    def feed(self, accumulators: list[Any], start: int, count: int, threads: int,
             on_progress: Callable[[int], None] | None) -> Fed:
        """A block of seeds at a time; Ctrl-C ends the sweep after the last whole block."""
        sweep = accumulators[0]
        reader = _SeedReader(self.job, start)
        done, interrupted = 0, False
        with InterruptGuard() as guard:
            try:
                while done < count and not guard.pending:
                    n = min(SEEDS_PER_BLOCK, count - done)
                    block = reader.block(n)
                    guard.updating = True
                    sweep.update(block)
                    done += n
                    guard.updating = False
                    if on_progress:
                        on_progress(block.size)
            except KeyboardInterrupt:
                interrupted = True
            interrupted = interrupted or guard.pending
        return Fed(done, interrupted)

    def judge(self, accumulators: list[Any]) -> list[TestResult]:
        return judge(accumulators, self.thresholds)


def sweep_segment(positions: int, segment_bytes: int | None) -> int:
    """Seeds per segment: ``--segment`` bytes of stream starts (default 256 MiB)."""
    if segment_bytes is None:
        return max(1, DEFAULT_SEGMENT_BYTES // positions)
    if segment_bytes < positions:
        raise UsageError(f"--segment {segment_bytes} is shorter than one seed's {positions} positions")
    return segment_bytes // positions


def run_seed_sweep(name: str, open_seeded: Callable[[int], Source], seeds: int, *, positions: int = 256,
                   base_seed: int = 0, thresholds: Thresholds = Thresholds(),
                   on_progress: Callable[[int], None] | None = None, workers: Any = None,
                   segment: int | None = None, saver: Saver | None = None,
                   resume: tuple[CheckpointRecord, list[dict[str, Any]]] | None = None) -> RunResult:
    """Seed-sweep a generator, a block of seeds at a time, and judge the
    results like any other run: the run loop of randqa.engine.loop, with
    seeds for bytes (``workers`` take segments of ``segment`` bytes of
    starts).  Ctrl-C ends the sweep after the last whole block; the results
    then cover the seeds swept so far."""
    last = base_seed + seeds - 1
    try:
        open_seeded(last).close()  # the whole seed range is valid, before any work
    except UsageError as exc:
        raise UsageError(f"--seed-sweep {seeds} from seed {base_seed} ends at seed {last}, out of range: {exc}") from None
    workload = SeedSweepWorkload(name, open_seeded, positions, base_seed, thresholds)
    loop = RunLoop(workload, Plan(limit=seeds), segment=sweep_segment(positions, segment), workers=workers,
                   saver=saver, resume=resume, on_progress=on_progress)
    outcome = loop.run()
    swept = outcome.progress.position
    interrupted = outcome.interrupted and swept < seeds
    run = RunResult(source={"name": name, "seed": base_seed}, suite="seed-sweep", results=outcome.results,
                    bytes_tested=swept * positions, bits_tested=8 * swept * positions,
                    elapsed_s=outcome.elapsed_s, interrupted=interrupted, thresholds=thresholds)
    run.seed_sweep = SweptSeeds(seeds=swept, seeds_requested=seeds, positions=positions, base_seed=base_seed)
    run.execution = outcome.execution
    return run
