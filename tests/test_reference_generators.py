"""The reference generators of reference_generators.py against their
published first outputs: glibc rand() after srand(1), MSVC rand(),
Marsaglia's xorshift32 from 2463534242, MINSTD.
"""

from __future__ import annotations

import numpy as np

from reference_generators import glibc_rand, msvc_rand, reference_stream


def test_reference_generators_match_known_outputs() -> None:
    assert glibc_rand(3).tolist() == [1804289383, 846930886, 1681692777]  # srand(1); rand() x 3
    assert msvc_rand(3).tolist() == [41, 18467, 6334]
    words = np.frombuffer(reference_stream("xorshift32", 12).tobytes(), dtype="<u4")
    assert words.tolist() == [723471715, 2497366906, 2064144800]  # Marsaglia (2003), seed 2463534242
    assert np.frombuffer(reference_stream("minstd", 8).tobytes(), dtype="<u4").tolist() == [16807, 282475249]
