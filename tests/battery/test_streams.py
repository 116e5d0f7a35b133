"""Each stream alone and each pair's XOR, read out of interleaved streams
(randqa/battery/_streams.py, Suite.with_streams).

The entry's results must be exactly those of the inner tests run on the
stream itself and on the XOR of two streams, each built apart with numpy
from the streams' bytes: whatever the chunks (pieces that end inside a
round and inside a block), after a merge at the entry's alignment, and
after its state travels as plain data (a checkpoint, a worker's reply).
Data: three PCG64 streams of 96 KiB and one of them again (a copy, whose
XOR with its original is all zeros and must fail the pair's tests), every
4 bytes; 384 KiB in all, the quick suite's tests.
"""

from __future__ import annotations

import numpy as np

from accumulators import feed_in_sizes, same_results

from randqa.battery._state import export_state, from_document, import_state, to_document
from randqa.battery._streams import ALL_PAIRS_UP_TO, stream_pairs
from randqa.battery.suites import load_suite, spec_from_json
from randqa.engine import judge
from randqa.results import Thresholds

BLOCK = 4
STREAM_BYTES = 96 << 10


def streams() -> list[np.ndarray]:
    made = [np.random.Generator(np.random.PCG64(seed)).bytes(STREAM_BYTES) for seed in (1, 2, 3)]
    return [np.frombuffer(m, dtype=np.uint8) for m in made + made[:1]]


def interleave(parts: list[np.ndarray]) -> np.ndarray:
    return np.stack([p.reshape(-1, BLOCK) for p in parts], axis=1).reshape(-1)


def inner_results(data: np.ndarray, suffix: str) -> list:
    accumulators = load_suite("quick").build()
    for acc in accumulators:
        acc.update(data)
    results = [r for acc in accumulators for r in acc.finalize()]
    for r in results:
        r.name += suffix
    return results


def views_entry():
    suite = load_suite("quick").with_streams(4, BLOCK)
    assert len(suite.tests) == 6  # the quick suite's five on the interleaved stream, then the views
    return suite.tests[-1]


def test_each_stream_and_pair_is_tested_as_itself():
    parts = streams()
    views = views_entry().build()
    feed_in_sizes(views, interleave(parts))
    expected = [r for i, p in enumerate(parts) for r in inner_results(p, f"[stream {i}]")]
    expected += [r for i, j in stream_pairs(4) for r in inner_results(parts[i] ^ parts[j], f"[streams {i} xor {j}]")]
    got = views.finalize()
    same_results(got, expected)
    failing = {r.name for r in judge([views], Thresholds()) if r.verdict == "fail"}
    assert failing and all(name.endswith("[streams 0 xor 3]") for name in failing)  # the copy's XOR is zeros


def test_a_merge_and_the_state_as_data_change_nothing():
    data = interleave(streams())
    spec = views_entry()
    whole = spec.build()
    whole.update(data)
    left, right = spec.build(), spec.build()
    cut = left.alignment
    assert left.alignment == 4 * 32768  # every stream at a multiple of the quick suite's 32 KiB
    right.begin_at(cut)
    feed_in_sizes(left, data[:cut], sizes=(5000, 11, 70_001))
    feed_in_sizes(right, data[cut:], sizes=(4099, 1, 33_333))
    arrays = {}
    sent = from_document(to_document(export_state(right), arrays), arrays)
    received = spec.build()
    received.begin_at(cut)
    import_state(received, sent)
    left.merge(received)
    same_results(left.finalize(), whole.finalize())
    rebuilt = spec_from_json(spec.to_json())
    assert rebuilt.to_json() == spec.to_json() and rebuilt.memory_need(4 << 20).held > 4 * 2 * (1 << 20)


def test_many_streams_pair_each_with_the_next():
    assert len(stream_pairs(ALL_PAIRS_UP_TO)) == ALL_PAIRS_UP_TO * (ALL_PAIRS_UP_TO - 1) // 2
    assert stream_pairs(ALL_PAIRS_UP_TO + 2) == [(i, i + 1) for i in range(ALL_PAIRS_UP_TO + 1)]
