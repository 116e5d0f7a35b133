"""The reference generators of reference_generators.py against their
published outputs: glibc rand() after srand(1), MSVC rand(), Marsaglia's
xorshift32 from 2463534242, MINSTD, and the 10000th outputs of C++11's
std::mt19937_64 and std::mt19937 ([rand.predef]).
"""

from __future__ import annotations

import itertools

import numpy as np

from reference_generators import glibc_rand, msvc_rand, mt19937_64_values, reference_stream


def test_reference_generators_match_known_outputs() -> None:
    assert glibc_rand(3).tolist() == [1804289383, 846930886, 1681692777]  # srand(1); rand() x 3
    assert msvc_rand(3).tolist() == [41, 18467, 6334]
    words = np.frombuffer(reference_stream("xorshift32", 12).tobytes(), dtype="<u4")
    assert words.tolist() == [723471715, 2497366906, 2064144800]  # Marsaglia (2003), seed 2463534242
    assert np.frombuffer(reference_stream("minstd", 8).tobytes(), dtype="<u4").tolist() == [16807, 282475249]


def test_mt19937_64_transcription_gives_the_cpp_standard_value():
    # C++11 [rand.predef]: the 10000th output of a default-constructed
    # std::mt19937_64 (seed 5489) is 9981545732273789042
    values = np.concatenate(list(itertools.islice(mt19937_64_values(5489), 33)))
    assert int(values[9999]) == 9981545732273789042
    # and std::mt19937's 10000th, 4123659995, pins numpy's MT19937, which mt19937_blocks reads
    mt = np.random.MT19937()
    mt._legacy_seeding(5489)
    assert int(mt.random_raw(10000)[-1]) == 4123659995
