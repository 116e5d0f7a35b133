"""v8-math-random pinned to Node's own Math.random().

Known answers: ``node --random-seed=S`` (node v20.20.2, V8 11.3.244.8),
``Math.random()`` called 130 times and the values at indices 0, 1, 63,
64 and 129 printed (63 and 64 straddle the first refill of V8's 64-value
cache, 129 is in the third).  Each double times 2^52 is the backend's
52-bit value (randqa/sources/runtimes/node.py).  Where node is installed,
v8-math-random-live must equal v8-math-random byte for byte; 52 KiB crosses
many refills and the driver's write buffer.
"""

from __future__ import annotations

import pytest

from runtime_checks import assert_live_equals_compiled, values_at

INDICES = (0, 1, 63, 64, 129)
NODE_MATH_RANDOM = {
    1: [0.147205063401058, 0.2741339589710077, 0.22860071259159165, 0.38106233616011886, 0.9880925805517533],
    42: [0.7939112874678715, 0.5254990606499601, 0.08156904043271651, 0.4706713645501157, 0.22660586183432097],
    123456789: [0.09601869961554388, 0.2591915906818991, 0.1068577436570659, 0.4588673909530361,
                0.966981216647604],
    2**31 - 1: [0.05755831181791593, 0.4769330358855286, 0.7687096047257376, 0.8740564456416813,
                0.3830475067180039],
}


@pytest.mark.parametrize("seed", sorted(NODE_MATH_RANDOM))
def test_v8_math_random_equals_node(seed):
    assert [v / 2**52 for v in values_at("v8-math-random", seed, INDICES)] == NODE_MATH_RANDOM[seed]


def test_v8_math_random_live_equals_the_c_generator():
    assert_live_equals_compiled("v8-math-random", 52 << 10)
