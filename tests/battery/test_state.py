"""An accumulator's state as plain data (randqa/battery/_state.py): for every
test of every shipped suite, state -> JSON document + arrays -> a fresh
accumulator gives the same results, and goes on counting exactly as the
original does.  Checkpoints and segment-parallel runs rely on it.

Data: 2.5 NIST sequences (312,500 bytes) of PCG64, so per-sequence entries
hold finished summaries and a sequence in progress, and no cut is aligned.
"""

from __future__ import annotations

import json
import sys
import threading

import numpy as np
import pytest

from randqa.battery._state import StateError, from_document, own_class, to_document
from randqa.battery.suites import load_suite, suite_names

STREAM = np.random.Generator(np.random.PCG64(2024)).integers(0, 256, 312_500 + 4_096, dtype=np.uint8)
CUT = 312_500


def _through_document(state):
    arrays: dict[str, np.ndarray] = {}
    text = json.dumps(to_document(state, arrays))
    return from_document(json.loads(text), {k: v.copy() for k, v in arrays.items()})


def _results(acc):
    return [r.to_json() for r in acc.finalize()]


@pytest.mark.parametrize("suite_name", suite_names())
def test_state_round_trip_of_every_test(suite_name):
    # states go back into a freshly built suite, element by element, as a
    # checkpoint or a worker's result does: entries that share a statistic
    # (randqa/battery/_shared.py) find it wired up there
    suite = load_suite(suite_name)
    originals, restored = suite.build(), suite.build()
    for acc in originals:
        acc.update(STREAM[:CUT])
    for fresh, original in zip(restored, originals):
        fresh.load_state(_through_document(original.state()))
    for spec, fresh, original in zip(suite.tests, restored, originals):
        assert fresh.bytes_seen == original.bytes_seen
        assert _results(fresh) == _results(original), spec.test
    for acc in originals + restored:
        acc.update(STREAM[CUT:])
    for spec, fresh, original in zip(suite.tests, restored, originals):
        assert _results(fresh) == _results(original), spec.test


def _arrays(tree) -> int:
    if isinstance(tree, np.ndarray):
        return tree.nbytes
    if isinstance(tree, dict):
        return sum(_arrays(v) for v in tree.values())
    if isinstance(tree, list):
        return sum(_arrays(v) for v in tree)
    return 0


def test_a_shared_statistic_is_saved_once():
    # frequency, runs, chi_square 8, serial_correlation [1], digraph and
    # overlapping_serial m=8 of the standard suite share one table of byte
    # pairs: only its owner's state holds it, and no sharer saves its own
    # (unused) counts, so a worker sends 512 KiB, not 3.5 MiB
    suite = load_suite("standard")
    accs = suite.build()
    sharers = [a for a in accs if getattr(a, "shared", None) is not None and type(a.shared).__name__ == "BytePairs"]
    assert len(sharers) >= 6
    table = sharers[0].shared.counts.nbytes
    saved = [_arrays(a.state()) for a in sharers]
    assert saved[0] >= table and all(size < table // 8 for size in saved[1:]), saved


def test_state_is_a_copy():
    suite = load_suite("quick", tests="chi_square")
    acc = suite.build()[0]
    acc.update(STREAM[:1000])
    saved = acc.state()
    acc.update(STREAM[1000:2000])
    fresh = suite.tests[0].build()
    fresh.load_state(saved)
    assert fresh.bytes_seen == 1000 and int(fresh.counts.sum()) == 1000


def test_locks_and_factories_stay_those_of_the_fresh_accumulator():
    suite = load_suite("nist-sp800-22", tests="frequency")
    original = suite.build()[0]
    original.update(STREAM[:CUT])
    state = original.state()
    assert "factory" not in state
    fresh = suite.build()[0]
    factory = fresh.factory
    fresh.load_state(state)
    assert fresh.factory is factory and fresh.sequences == 2
    birthday = load_suite("quick", tests="birthday_spacings").build()[0]
    assert "_lock" not in birthday.state()
    loaded = load_suite("quick", tests="birthday_spacings").build()[0]
    loaded.load_state(birthday.state())
    assert isinstance(loaded._lock, type(threading.Lock()))


def test_a_state_that_does_not_fit_is_refused():
    def alone(name: str):
        return load_suite("quick", tests=name).build()[0]

    with pytest.raises(StateError, match="does not fit"):
        alone("runs").load_state(alone("frequency").state())
    state = alone("chi_square").state()
    state["counts"] = state["counts"].astype(np.float64)
    with pytest.raises(StateError, match="float64"):
        alone("chi_square").load_state(state)
    state["counts"] = np.zeros(1 << 20, dtype=np.int64)  # a table of another size: merging would fail later
    with pytest.raises(StateError, match="shape"):
        alone("chi_square").load_state(state)


def test_only_classes_of_the_closed_table_are_made(monkeypatch):
    for name in ("os:system", "subprocess:Popen", "randqa.engine.parallel:Workers", "randqa.cli:_Group",
                 "randqa.results:Verdict.__class__"):
        with pytest.raises(StateError, match="not one of the classes a randqa state holds"):
            own_class(name)
    # before: the name's module was imported, and randqa/__main__.py ran the CLI inside the load
    monkeypatch.delitem(sys.modules, "randqa.__main__", raising=False)
    with pytest.raises(StateError, match="not one of the classes"):
        own_class("randqa.__main__:X")
    assert "randqa.__main__" not in sys.modules
    assert own_class("randqa.battery._folding:FoldedTest").__name__ == "FoldedTest"
    acc = load_suite("quick").build()[2]
    state = acc.state()
    state["_blocks"] = {"$object": "builtins:object", "attrs": {}}
    with pytest.raises(StateError):
        load_suite("quick").tests[2].build().load_state(state)
