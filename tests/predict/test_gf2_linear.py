"""GF(2)-linear predictor: the compiled Berlekamp-Massey against a plain one,
and the generators it must catch (LFSR113, xorshift32, MT19937, the low bit
of xoroshiro128+) from streams it only reads."""

from __future__ import annotations

import numpy as np
import pytest
from reference_generators import backend_bytes, berlekamp_massey

from randqa.predict import _gf2_recurrence
from randqa.predict.gf2_linear import GF2LinearPredictor
from randqa.predict.runner import run_predictor


def bit_sequence(words: np.ndarray, bit: int) -> list[int]:
    return [int(v) for v in (words >> bit) & 1]


@pytest.mark.parametrize("word_bytes", [1, 4])
def test_kernel_matches_plain_berlekamp_massey(word_bytes):
    rng = np.random.default_rng(5)
    # an LFSR-like stream (x_N = x_{N-3} ^ x_{N-7} in every bit) mixed with random words
    words = rng.integers(0, 1 << (8 * word_bytes), size=150, dtype=np.uint64)
    for n in range(7, 150):
        if n % 3:
            words[n] = words[n - 3] ^ words[n - 7]
    data = words.astype({1: "u1", 4: "<u4"}[word_bytes]).tobytes()
    positions = 8 * word_bytes
    lengths = np.zeros(positions, dtype=np.int64)
    polys = np.zeros((positions, (150 + 63) // 64 + 3), dtype=np.uint64)
    _gf2_recurrence.minimal_polynomials(data, word_bytes, 0, positions, lengths, polys)
    for b in range(positions):
        length, coeffs = berlekamp_massey(bit_sequence(words, b))
        assert lengths[b] == length
        row = np.unpackbits(polys[b].astype("<u8").view(np.uint8), bitorder="little")
        assert list(row[: length + 1]) == coeffs
        assert not row[length + 1:].any()


def test_extension_continues_the_recurrence():
    # x_N = x_{N-1} ^ x_{N-4} on 16-bit words: x^4 + x^3 + 1 is primitive
    rng = np.random.default_rng(9)
    words = list(rng.integers(1, 1 << 16, size=4))
    for n in range(4, 600):
        words.append(words[n - 1] ^ words[n - 4])
    data = np.array(words, dtype="<u2").tobytes()
    lengths = np.zeros(16, dtype=np.int64)
    polys = np.zeros((16, (100 + 63) // 64 + 3), dtype=np.uint64)
    _gf2_recurrence.minimal_polynomials(data[:200], 2, 0, 16, lengths, polys)
    assert set(lengths) <= {0, 1, 2, 3, 4}
    out = bytearray(1000)
    _gf2_recurrence.extend_bit_positions(data[:200], 2, lengths, polys, out)
    assert bytes(out) == data[200:1200]
    taps = np.array([1, 4], dtype=np.int64)
    buffer = np.zeros(600, dtype=np.uint64)
    buffer[:100] = np.frombuffer(data[:200], dtype="<u2")
    _gf2_recurrence.extend_xor_recurrence(buffer, 100, taps)
    assert np.array_equal(buffer, np.array(words, dtype=np.uint64))
    assert _gf2_recurrence.xor_recurrence_failures(buffer, 4, taps, 0xFFFF) == 0


def test_kernels_refuse_bad_input():
    lengths = np.zeros(8, dtype=np.int64)
    polys = np.zeros((8, 4), dtype=np.uint64)
    with pytest.raises(ValueError):
        _gf2_recurrence.minimal_polynomials(b"\x00" * 9, 3, 0, 8, lengths, polys)
    with pytest.raises(ValueError):
        _gf2_recurrence.minimal_polynomials(b"", 1, 0, 8, lengths, polys)
    with pytest.raises(ValueError):
        _gf2_recurrence.minimal_polynomials(b"\x00" * 8, 1, 4, 8, lengths, polys)
    with pytest.raises(ValueError, match="8-byte integers"):
        _gf2_recurrence.minimal_polynomials(b"\x00" * 64, 1, 0, 8, np.zeros(8), polys)
    with pytest.raises(ValueError):
        _gf2_recurrence.extend_xor_recurrence(np.zeros(10, dtype=np.uint64), 2, np.array([3], dtype=np.int64))
    with pytest.raises(ValueError, match="at most the history"):
        _gf2_recurrence.extend_bit_positions(b"\x00" * 4, 1, np.full(8, 5, dtype=np.int64), polys, bytearray(8))


def test_lfsr113_predicted_from_2L_words():
    # LFSR113 combines Tausworthe components of degrees 31, 29, 28 and 25
    # (L'Ecuyer 1999), so every output bit has complexity 113
    degree = 31 + 29 + 28 + 25
    data = backend_bytes("lfsr113", 20240611, 1 << 17)
    result = run_predictor(GF2LinearPredictor(), data)
    assert result.succeeded and result.checked_bytes >= 1 << 16
    assert result.observed_bytes == 2 * degree * 4
    assert result.structure["shared_recurrence_degree"] == degree


def test_xorshift32_predicted_from_256_bytes():
    # a full-period 32-bit xorshift: one primitive polynomial of degree 32
    data = backend_bytes("xorshift32", 99, 1 << 17)
    result = run_predictor(GF2LinearPredictor(), data)
    assert result.succeeded and result.checked_bytes >= 1 << 16
    assert result.observed_bytes == 2 * 32 * 4


def test_mt19937_predicted_from_2_times_19937_bits_per_position():
    data = backend_bytes("mt19937", 4357, 1 << 19)
    result = run_predictor(GF2LinearPredictor(), data)
    assert result.succeeded and result.checked_bytes >= 1 << 16
    assert result.observed_bytes == 2 * 19937 * 4
    assert result.structure["shared_recurrence_degree"] == 19937
    # its characteristic polynomial has 135 non-zero terms (Matsumoto-Nishimura 1998): c_0 and 134 taps
    assert "134 taps" in result.structure["summary"]


def test_xoroshiro128plus_low_bit_only():
    # xoroshiro128+'s lowest bit is the XOR of two state bits: linear, degree 128
    data = backend_bytes("xoroshiro128", 3, 1 << 17)
    result = run_predictor(GF2LinearPredictor(), data)
    assert not result.succeeded
    assert result.structure["word_bits"] == 64
    assert result.structure["exact_bit_positions"] == "0"
    assert result.structure["complexities"].startswith("128,")


def test_no_recurrence_in_aes_ctr():
    data = backend_bytes("aes-ctr", 1, 1 << 18)
    result = run_predictor(GF2LinearPredictor(), data)
    assert result.applicable and not result.succeeded
    assert result.exact_fraction is None
