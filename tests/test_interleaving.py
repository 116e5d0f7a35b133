"""Interleaving K streams every B bytes (randqa/interleaving.py): round r of
the interleaved stream is bytes [r B, (r + 1) B) of stream 0, then of
stream 1, ..., stream K - 1.  Checked against that definition built with
numpy (a stack of the streams' blocks), on pieces that start and end
anywhere, in buffers at any memory offset; and the result names that say
which stream a test read.
"""

from __future__ import annotations

import numpy as np
import pytest

from randqa.interleaving import (
    check_interleaving,
    deinterleave,
    deinterleave_all,
    interleave_into,
    pair_suffix,
    stream_position,
    stream_suffix,
    view_of,
)


def test_pieces_anywhere_match_the_definition():
    rng = np.random.default_rng(1)
    for _ in range(400):
        streams, block, length = int(rng.integers(2, 6)), int(rng.integers(1, 17)), int(rng.integers(0, 300))
        rounds = length // (streams * block) + 2
        data = [rng.integers(0, 256, rounds * block, dtype=np.uint8) for _ in range(streams)]
        interleaved = np.stack([d.reshape(rounds, block) for d in data], axis=1).reshape(-1)
        position = int(rng.integers(0, len(interleaved) - length + 1))
        offset = int(rng.integers(0, 8))  # an array that does not start on a word boundary
        piece = np.zeros(length + 8, dtype=np.uint8)[offset:offset + length]
        piece[:] = interleaved[position:position + length]
        written = np.zeros(length + 8, dtype=np.uint8)[offset:offset + length]
        every = deinterleave_all(piece, position, streams, block)
        for index in range(streams):
            own = data[index][stream_position(position, streams, block, index):
                              stream_position(position + length, streams, block, index)]
            assert np.array_equal(every[index], own)
            assert np.array_equal(deinterleave(piece, position, streams, block, index), own)
            interleave_into(written, position, streams, block, index, own.copy())
        assert np.array_equal(written, piece)


def test_a_stream_of_the_wrong_length_is_refused():
    with pytest.raises(ValueError, match="has 8 bytes in this piece, not 7"):
        interleave_into(np.zeros(16, dtype=np.uint8), 0, 2, 4, 1, np.zeros(7, dtype=np.uint8))
    for streams, block in ((1, 4), (257, 4), (2, 0), (2, 1.5)):
        with pytest.raises(ValueError):
            check_interleaving(streams, block)


def test_result_names_say_which_stream():
    assert view_of("chi_square" + stream_suffix(12)) == (12,)
    assert view_of("overlapping_serial[m=8,nabla][low1/8]" + pair_suffix(0, 3)) == (0, 3)
    assert view_of("overlapping_serial[m=8,nabla][low1/8]") is None
