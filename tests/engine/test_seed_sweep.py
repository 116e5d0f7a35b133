"""The seed sweep (engine/seed_sweep.py): the first bytes of many seeded
streams, tested across seeds.  It flags RC4's start biases (Mantin-Shamir:
the second byte is 0 twice as often) and passes RC4 with its first 3072
bytes dropped and libdnet's keying; it sees seeds that barely change a
stream; blocks and merges give the whole matrix's result; Ctrl-C keeps the
seeds swept; too few seeds are insufficient, seeds past the range refused.
"""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

from randqa.sources import open_backend


@pytest.mark.parametrize("name, verdict", [("arc4", "fail"), ("arc4-drop", "pass")])
def test_seed_sweep_flags_rc4_and_passes_rc4_drop(cli, name, verdict):
    result = cli("test", name, "--seed-sweep", "65536", "--json", "-")
    doc = result.json()
    assert doc["verdict"] == verdict
    if verdict == "fail":
        worst = next(t for t in doc["tests"] if t["name"] == "seed_sweep[positions]")
        # Mantin-Shamir: the second output byte is 0 twice as often as it should be
        assert (worst["details"]["worst_position"], worst["details"]["worst_value"]) == (1, 0)


def test_seed_sweep_sees_seeds_that_barely_change_the_stream():
    from randqa.engine.seed_sweep import seed_sweep_results

    rng = np.random.default_rng(4)
    base = rng.integers(0, 256, size=64, dtype=np.uint8)
    # streams that differ from a common one in a single byte per seed
    starts = np.tile(base, (2048, 1))
    starts[np.arange(2048), rng.integers(0, 64, size=2048)] = rng.integers(0, 256, size=2048, dtype=np.uint8)
    results = {r.name: r for r in seed_sweep_results(starts)}
    assert results["seed_sweep[adjacent_seeds]"].pvalue < 1e-12
    assert results["seed_sweep[positions]"].pvalue < 1e-12


def test_seed_sweep_blocks_and_merges_give_the_whole_matrix_result():
    from randqa.engine.seed_sweep import SeedSweep, seed_sweep_results

    rng = np.random.default_rng(11)
    starts = rng.integers(0, 256, size=(3000, 48), dtype=np.uint8)
    starts[:, 5] = np.where(rng.random(3000) < 0.02, 0, starts[:, 5])  # a bias to keep p-values off 1
    whole = seed_sweep_results(starts)
    in_blocks = SeedSweep(48)
    for lo in range(0, 3000, 700):
        in_blocks.update(starts[lo:lo + 700])
    first, second = SeedSweep(48), SeedSweep(48, first_seed=1234)
    first.update(starts[:1234])
    second.update(starts[1234:])
    first.merge(second)
    empty_then_first = SeedSweep(48, first_seed=0)
    empty_then_first.merge(first)
    empty_then_first.merge(SeedSweep(48, first_seed=3000))
    for other in (in_blocks.finalize(), first.finalize(), empty_then_first.finalize()):
        assert [(r.name, r.statistic, r.pvalue, r.details) for r in other] == \
               [(r.name, r.statistic, r.pvalue, r.details) for r in whole]
    with pytest.raises(ValueError, match="starts at seed 0, not at 1300"):
        late = SeedSweep(48, first_seed=1234)
        late.update(starts[1234:1300])
        early = SeedSweep(48)
        early.update(starts[:1234])
        late.merge(early)
    with pytest.raises(ValueError, match="uint8"):
        SeedSweep(48).update(starts.astype(np.int64))


def test_dnet_arc4_keying_leaves_no_start_bias_for_the_sweep(cli):
    # libdnet keys twice and starts the keystream at i = j = 254, so RC4's
    # second-byte bias (which needs i = j = 0) is absent: the sweep that fails
    # arc4 above must pass dnet-arc4 at the same 65,536 seeds
    doc = cli("test", "dnet-arc4", "--seed-sweep", "65536", "--json", "-").json()
    assert doc["verdict"] == "pass"


@pytest.mark.parametrize("during, swept", [("collect", 4096), ("update", 8192), ("finalize", 3 * 4096)])
def test_ctrl_c_in_a_seed_sweep_keeps_the_seeds_swept(monkeypatch, during, swept):
    # SIGINT arrives while seed 5000 is read (second block), while the second
    # block is added, or while the results are judged: the sweep stops after
    # the last whole block and still returns its results (all of them, not
    # marked interrupted, when every seed was swept before the Ctrl-C)
    from randqa.engine import seed_sweep

    def interrupt() -> None:
        os.kill(os.getpid(), signal.SIGINT)

    def open_seeded(seed: int):
        if during == "collect" and seed == 5000:
            interrupt()
        return open_backend("pcg64", seed)

    if during != "collect":
        method = "update" if during == "update" else "finalize"
        original = getattr(seed_sweep.SeedSweep, method)

        def wrapped(self, *args):
            if method == "finalize" or self.seeds == 4096:
                interrupt()
            return original(self, *args)

        monkeypatch.setattr(seed_sweep.SeedSweep, method, wrapped)
    run = seed_sweep.run_seed_sweep("pcg64", open_seeded, 3 * 4096, positions=16)
    assert run.interrupted == (swept < 3 * 4096)
    assert run.seed_sweep.seeds == swept and run.bytes_tested == 16 * swept
    assert [r.verdict for r in run.results] == ["pass"] * 3


def test_seed_sweep_needs_enough_seeds(cli):
    doc = cli("test", "pcg64", "--seed-sweep", "100", "--json", "-").json()
    assert {t["verdict"] for t in doc["tests"]} == {"insufficient"}


def test_seed_sweep_past_the_seed_range_is_refused_up_front(cli):
    result = cli("test", "randu", "--seed-sweep", "2000", "--seed", str(2**32 - 10))
    assert result.returncode == 2
    assert "ends at seed 4294969285, out of range" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
