"""V8's Math.random(): the xorshift128 state from four doubles of one cache block.

Source: V8 11.3's random-number-generator.h and math-random.cc (Node 20),
written out in tests/reference_generators.py and pinned here by three
doubles Node printed.  Minimum data: four 52-bit doubles, 26 bytes.
"""

from __future__ import annotations

import numpy as np
from reference_generators import backend_bytes, packed_values, v8_math_random_values

from randqa.predict.base import NoFit
from randqa.predict.runner import run_predictor
from randqa.predict.xorshift128_cache import XorShift128CachePredictor

#: node v20 --random-seed=7 -e "console.log(Math.random(), Math.random(), Math.random())"
NODE_SEED_7 = [0.853438561751189, 0.5233153699316269, 0.9653424810049767]


def test_reference_is_node():
    assert [v / 2**52 for v in v8_math_random_values(7, 3)] == NODE_SEED_7


def test_state_from_four_doubles_of_a_fresh_generator():
    data = np.frombuffer(packed_values(v8_math_random_values(7, 11000), 52), dtype=np.uint8)
    result = run_predictor(XorShift128CachePredictor(), data)
    assert result.succeeded and result.checked_bytes >= 1 << 16
    assert result.observed_bytes == 26 and result.structure["cache_offset"] == 0


def test_stream_starting_inside_a_cache_block():
    # 20 calls made before the stream: the block boundary decides the offset
    values = v8_math_random_values(123456, 11020)[20:]
    data = np.frombuffer(packed_values(values, 52), dtype=np.uint8)
    result = run_predictor(XorShift128CachePredictor(), data)
    assert result.succeeded and result.structure["cache_offset"] == 20
    # the 45th double (index 44) is the first of the next block: it must be seen
    assert result.observed_bytes <= -(-45 * 52 // 8)


def test_no_state_in_pcg64():
    assert isinstance(XorShift128CachePredictor().fit(backend_bytes("pcg64", 4, 4096)), NoFit)


def test_v8_math_random_backend():
    result = run_predictor(XorShift128CachePredictor(), backend_bytes("v8-math-random", 2024, 1 << 17))
    assert result.succeeded and result.observed_bytes == 26
