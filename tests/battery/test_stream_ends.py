"""StreamEnds: its head and history against the bytes appended, in any
pieces and across joins; its saved state back to the same ends; a state
that is not the ends of a stream refused."""

from __future__ import annotations

import numpy as np
import pytest

from randqa.battery._state import StateError, export_state, import_state
from randqa.battery._stream_ends import StreamEnds


def fed(data: np.ndarray, cuts: list[int], span: int) -> StreamEnds:
    ends = StreamEnds(span)
    for lo, hi in zip([0, *cuts], [*cuts, len(data)]):
        ends.append(data[lo:hi])
    return ends


@pytest.mark.parametrize("span", [0, 1, 7, 100])
def test_ends_are_the_first_and_last_span_bytes_in_any_pieces(span):
    data = np.random.default_rng(span).integers(0, 256, 1000, dtype=np.uint8)
    for cuts in ([], [3, 4, 5, 250, 251, 900], list(range(1, 1000, 13)), [99, 100, 101]):
        for end in (0, 5, 99, 1000):
            ends = fed(data[:end], [c for c in cuts if c < end], span)
            assert ends.head.tolist() == data[:min(span, end)].tolist()
            assert ends.history.tolist() == data[max(0, end - span):end].tolist()


@pytest.mark.parametrize("split", [0, 3, 50, 150, 400])
def test_a_join_equals_one_pass(split):
    data = np.random.default_rng(split).integers(0, 256, 400, dtype=np.uint8)
    left, right = fed(data[:split], [split // 3], 100), fed(data[split:], [7], 100)
    left.join(right)
    whole = fed(data, [], 100)
    assert left.head.tolist() == whole.head.tolist() and left.history.tolist() == whole.history.tolist()
    left.append(data[:30])  # and it goes on as one pass would
    whole.append(data[:30])
    assert left.history.tolist() == whole.history.tolist()


def test_saved_state_gives_back_the_ends_and_not_the_spare_buffer():
    data = np.arange(250, dtype=np.uint8)
    ends = fed(data, [60, 130], 100)
    state = export_state(ends)
    assert sorted(state) == ["head", "history", "span"] and len(state["history"]) == 100
    loaded = StreamEnds()
    import_state(loaded, state)
    assert loaded.head.tolist() == data[:100].tolist() and loaded.history.tolist() == data[150:].tolist()
    loaded.append(data[:10])
    assert loaded.history.tolist() == data[160:].tolist() + data[:10].tolist()


@pytest.mark.parametrize("change", [
    dict(span=-1), dict(span=1.5), dict(head=np.zeros(101, dtype=np.uint8)),
    dict(head=np.zeros(5, dtype=np.uint8)),  # shorter than the span but not all of the history
])
def test_a_state_that_is_not_the_ends_of_a_stream_is_refused(change):
    state = export_state(fed(np.arange(250, dtype=np.uint8), [], 100))
    state.update(change)
    with pytest.raises(StateError):
        import_state(StreamEnds(), state)
