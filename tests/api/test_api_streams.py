"""``randqa.test`` of streams: a list of BitGenerators, or ``streams`` and
``stream_seeds`` on a generator name (randqa/api.py).

The constructed correlated pair: two PCG64 (XSL-RR) streams with one
increment whose states are 2^63 apart, so that they share their low 63 bits
(and so the low 58 of numpy's "upgrading-pcg64" note) at every step.
Interleaved, PractRand 0.94 (``RNG_test stdin64``) first fails them at
64 MiB (BCFN); randqa fails them at 8 MiB, on the XOR of the pair (each
stream alone and the interleaved stream pass there).  The DXSM output
function hides the same shared bits: the PCG64DXSM pair passes to 16 MiB
here (and PractRand to 1 GiB).  The quick suite's tests suffice (the
standard suite fails the pair at the same length); cost: 24 MiB of them.
"""

from __future__ import annotations

import numpy as np
import pytest

from reference_generators import pcg_pair
from schema_check import assert_valid_document

import randqa


def test_a_pcg64_pair_sharing_low_state_bits_fails_and_its_dxsm_twin_passes():
    xsl_rr = randqa.test(pcg_pair(np.random.PCG64, 1, 63), progressive=True, max="16M", suite="quick")
    assert xsl_rr.first_failure_bytes == 16 << 20  # 2e-8 at 8 MiB, repeated on the next 8 MiB
    assert [t.name for t in xsl_rr if t.verdict == "fail"] == ["frequency[streams 0 xor 1]"]
    dxsm = randqa.test(pcg_pair(np.random.PCG64DXSM, 1, 63), progressive=True, max="16M", suite="quick")
    assert dxsm.first_failure_bytes is None and dxsm.bytes_tested == 16 << 20


def test_streams_of_a_name_are_recorded():
    r = randqa.test("mt19937", "256K", seed=1, suite="quick", streams=3, stream_seeds="bitflip", interleave=8)
    assert r.name == "mt19937[3 streams, bitflip]" and r.seed == 1
    streams = r.source["streams"]
    assert (streams["count"], streams["scheme"], streams["interleave_bytes"]) == (3, "bitflip", 8)
    assert [m["seed"] for m in streams["members"]] == [1, 0, 2]
    assert len(r) == 5 * (1 + 3 + 3)  # the interleaved stream, each stream, each pair
    assert_valid_document(r.to_json())


def test_nonsense_is_refused():
    pair = pcg_pair(np.random.PCG64, 1, 63)
    with pytest.raises(ValueError, match="its own streams"):
        randqa.test(pair, stream_seeds="spawn")
    with pytest.raises(ValueError, match="invalid size '0'"):
        randqa.test(pair, interleave=0)
    with pytest.raises(TypeError, match="BitGenerator instances only"):
        randqa.test([pair[0], b"\x00" * 16])
    with pytest.raises(ValueError, match="'--streams': 1 is not in the range"):
        randqa.test("pcg64", streams=1, stream_seeds="spawn")
