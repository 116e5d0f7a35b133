"""The tests aimed at linear, lagged and LCG generators (issue 4):
bit_linear_complexity, gap, digraph, overlapping_serial, bcfn, and the
low-bits folding helper.

Reference streams are made here with vectorised numpy (jump-ahead by
doubling), written as the backends write them: 32-bit outputs as 4
little-endian bytes, rand() & 0xffff as 2 bytes, rand() & 0xff as 1 byte.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import conftest
from randqa.battery import _counts, _linear
from randqa.battery._folding import FoldedTest
from randqa.folding import fold_low_bits
from randqa.battery.bcfn import BCFN, weight_letters
from randqa.battery.bit_linear_complexity import BitLinearComplexity, complexity_cdf
from randqa.battery.digraph import Digraph
from randqa.battery.gap import Gap
from randqa.battery.linear_complexity import complexity_log2_pmf
from randqa.battery.overlapping_serial import OverlappingSerial
from randqa.results import Thresholds, classify

MASK32 = (1 << 32) - 1

# --------------------------------------------------------------------------
# reference generators


def _affine_sequence(a: int, c: int, m: int, x0: int, count: int) -> np.ndarray:
    """x_1..x_count of x -> (a x + c) mod m, doubling the affine map each round."""
    out = np.empty(count, dtype=np.uint64)
    out[0] = (a * x0 + c) % m
    have, big_a, big_c = 1, a % m, c % m  # the map of `have` steps
    while have < count:
        take = min(have, count - have)
        out[have : have + take] = (np.uint64(big_a) * out[:take] + np.uint64(big_c)) % np.uint64(m)
        big_a, big_c = big_a * big_a % m, (big_a * big_c + big_c) % m
        have += take
    return out


def _apply_gf2(columns: np.ndarray, values: np.ndarray) -> np.ndarray:
    out = np.zeros_like(values)
    for j in range(32):
        out ^= ((values >> np.uint32(j)) & np.uint32(1)) * columns[j]
    return out


def _gf2_sequence(step, x0: int, count: int) -> np.ndarray:
    """x_1..x_count of a GF(2)-linear map on 32-bit words."""
    columns = step(np.array([1 << j for j in range(32)], dtype=np.uint32))
    out = np.empty(count, dtype=np.uint32)
    out[0] = step(np.array([x0], dtype=np.uint32))[0]
    have = 1
    while have < count:
        take = min(have, count - have)
        out[have : have + take] = _apply_gf2(columns, out[:take])
        columns = _apply_gf2(columns, columns)
        have += take
    return out


def _xorshift32_step(x: np.ndarray) -> np.ndarray:
    x = x ^ (x << np.uint32(13))
    x = x ^ (x >> np.uint32(17))
    return x ^ (x << np.uint32(5))


def _tausworthe(s1: int, mask: int, s2: int, s3: int):
    def step(z: np.ndarray) -> np.ndarray:
        return ((z & np.uint32(mask)) << np.uint32(s3)) ^ (((z << np.uint32(s1)) ^ z) >> np.uint32(s2))

    return step


_LFSR113 = [(_tausworthe(6, 4294967294, 13, 18), 2), (_tausworthe(2, 4294967288, 27, 2), 8),
            (_tausworthe(13, 4294967280, 21, 7), 16), (_tausworthe(3, 4294967168, 12, 13), 128)]


def _glibc_rand(count: int, seed: int = 1) -> np.ndarray:
    """glibc rand() (TYPE_3): r[i] = r[i-3] + r[i-31] mod 2^32 after srand's
    initialisation, output r >> 1 from the 345th value on."""
    r = [seed]
    for _ in range(30):
        hi, lo = divmod(r[-1], 127773)
        word = 16807 * lo - 2836 * hi
        r.append(word + 2147483647 if word < 0 else word)
    r += r[:3]
    total = count + 344
    u = np.empty(total, dtype=np.uint64)  # u[j] = r[j + 3] obeys u_j = u_{j-3} + u_{j-31}
    u[:31] = r[3:34]
    have = 31
    while have < total:
        take = min(max(have - 30, 1), total - have)
        acc = np.zeros(take, dtype=np.uint64)
        for j, cj in enumerate(_x_power_mod(have)):  # u[k + have] = sum_j c_j u[k + j]
            if cj:
                acc += np.uint64(cj) * u[j : j + take]
        u[have : have + take] = acc & np.uint64(MASK32)
        have += take
    return (u[341 : 341 + count] >> np.uint64(1)).astype(np.uint32)


def _x_power_mod(e: int) -> list[int]:
    """x^e mod (x^31 - x^28 - 1) over Z/2^32, lowest coefficient first."""

    def mulmod(a: list[int], b: list[int]) -> list[int]:
        prod = [0] * 61
        for i, ai in enumerate(a):
            if ai:
                for j, bj in enumerate(b):
                    prod[i + j] = (prod[i + j] + ai * bj) & MASK32
        for k in range(60, 30, -1):
            prod[k - 3] = (prod[k - 3] + prod[k]) & MASK32
            prod[k - 31] = (prod[k - 31] + prod[k]) & MASK32
        return prod[:31]

    result, base = [1] + [0] * 30, [0, 1] + [0] * 29
    while e:
        if e & 1:
            result = mulmod(result, base)
        base = mulmod(base, base)
        e >>= 1
    return result


def _msvc_rand(count: int, seed: int = 1) -> np.ndarray:
    x = _affine_sequence(214013, 2531011, 2**32, seed, count)
    return ((x >> np.uint64(16)) & np.uint64(0x7FFF)).astype(np.uint32)


def reference_stream(name: str, nbytes: int, seed: int = 1) -> np.ndarray:
    words32 = nbytes // 4 + 1
    if name == "randu":
        out = _affine_sequence(65539, 0, 2**31, seed | 1, words32).astype("<u4")
    elif name == "minstd":
        out = _affine_sequence(16807, 0, 2**31 - 1, seed, words32).astype("<u4")
    elif name == "xorshift32":
        out = _gf2_sequence(_xorshift32_step, 2463534242, words32).astype("<u4")
    elif name == "lfsr113":
        out = np.zeros(words32, dtype=np.uint32)
        for k, (step, minimum) in enumerate(_LFSR113):
            z0 = (seed * (k + 1) * 2654435761) & MASK32
            out ^= _gf2_sequence(step, z0 if z0 >= minimum else z0 + minimum, words32)
        out = out.astype("<u4")
    elif name == "glibc-rand-short":
        out = (_glibc_rand(nbytes // 2 + 1, seed) & 0xFFFF).astype("<u2")
    elif name == "glibc-rand-byte":
        out = (_glibc_rand(nbytes, seed) & 0xFF).astype(np.uint8)
    elif name == "msvc-rand-short":
        out = _msvc_rand(nbytes // 2 + 1, seed).astype("<u2")
    elif name == "msvc-rand-byte":
        out = (_msvc_rand(nbytes, seed) & 0xFF).astype(np.uint8)
    else:
        raise KeyError(name)
    return np.frombuffer(out.tobytes()[:nbytes], dtype=np.uint8)


def pcg64_bytes(nbytes: int, seed: int) -> np.ndarray:
    return np.frombuffer(conftest.pcg64_bytes(nbytes, seed), dtype=np.uint8)


def test_reference_generators_match_known_outputs() -> None:
    assert _glibc_rand(3).tolist() == [1804289383, 846930886, 1681692777]  # srand(1); rand() x 3
    assert _msvc_rand(3).tolist() == [41, 18467, 6334]
    words = np.frombuffer(reference_stream("xorshift32", 12).tobytes(), dtype="<u4")
    assert words.tolist() == [723471715, 2497366906, 2064144800]  # Marsaglia (2003), seed 2463534242
    assert np.frombuffer(reference_stream("minstd", 8).tobytes(), dtype="<u4").tolist() == [16807, 282475249]


# --------------------------------------------------------------------------
# helpers


def run(acc, data: np.ndarray, cuts: list[int] | None = None):
    """Feed data (optionally cut at the given offsets) and return the results."""
    conftest.feed_in_pieces(acc, data, cuts or [])
    return acc.finalize()


def summary(results) -> list[tuple]:
    return [(r.name, r.statistic, r.pvalue, r.pvalue_low, r.verdict) for r in results]


def failed(results, thresholds: Thresholds = Thresholds()) -> list[str]:
    return [r.name for r in results if classify(r, thresholds) == "fail"]


STRONG_TESTS = [
    (BitLinearComplexity, dict(word_bits=32, bits=[0, 31], length=256, every=2)),
    (BitLinearComplexity, dict(word_bits=8, bits=[0, 5], length=128)),
    (Gap, dict(word_bytes=1, beta=0.5, max_gap=8)),
    (Gap, dict(word_bytes=2, alpha=0.25, beta=0.3, max_gap=20)),
    (Digraph, dict()),
    (Digraph, dict(position_mod=3)),
    (OverlappingSerial, dict(m=5)),
    (OverlappingSerial, dict(m=11)),
    (BCFN, dict(block_bits=[8, 24, 64], letters=5, tuple_length=3)),
]


# --------------------------------------------------------------------------
# streaming: chunk boundaries and merges do not change results


@pytest.mark.parametrize("cls,params", STRONG_TESTS, ids=lambda x: getattr(x, "name", str(x)))
def test_results_do_not_depend_on_chunk_boundaries(cls, params) -> None:
    data = pcg64_bytes(200_003, seed=11)
    whole = summary(run(cls(**params), data))
    rng = np.random.default_rng(3)
    for _ in range(2):
        cuts = [int(c) for c in rng.integers(0, len(data), 7)] + [1, 2, 3]
        assert summary(run(cls(**params), data, cuts)) == whole


@pytest.mark.parametrize("cls,params", STRONG_TESTS, ids=lambda x: getattr(x, "name", str(x)))
def test_merge_equals_concatenation(cls, params) -> None:
    data = pcg64_bytes(150_000, seed=12)
    whole = summary(run(cls(**params), data))
    left = cls(**params)
    split = (70_001 // left.alignment) * left.alignment
    left.update(data[:split])
    right = cls(**params)
    right.update(data[split:])
    left.merge(right)
    assert summary(left.finalize()) == whole


def test_merge_refuses_a_left_part_off_the_alignment() -> None:
    left, right = BitLinearComplexity(length=256), BitLinearComplexity(length=256)
    left.update(np.zeros(100, dtype=np.uint8))
    with pytest.raises(ValueError, match="boundary"):
        left.merge(right)


# --------------------------------------------------------------------------
# bit_linear_complexity


def _bm_reference(bits: list[int]) -> int:
    """Berlekamp-Massey, straight from Massey (1969)."""
    n = len(bits)
    c, b, complexity, m = [1] + [0] * n, [1] + [0] * n, 0, 1
    for step in range(n):
        d = bits[step]
        for i in range(1, complexity + 1):
            d ^= c[i] & bits[step - i]
        if d == 0:
            m += 1
            continue
        t = c[:]
        for i in range(n + 1 - m):
            c[i + m] ^= b[i]
        if 2 * complexity <= step:
            complexity, b, m = step + 1 - complexity, t, 1
        else:
            m += 1
    return complexity


def _pack(bits: list[int]) -> bytes:
    words = np.zeros(len(bits) // 64, dtype=np.uint64)
    for k, bit in enumerate(bits):
        words[k >> 6] |= np.uint64(bit) << np.uint64(k & 63)
    return words.tobytes()


def test_berlekamp_massey_kernel_matches_the_reference() -> None:
    rng = np.random.default_rng(1)
    for trial in range(60):
        n = 64 * int(rng.integers(1, 5))
        if trial % 3 == 0:
            bits = [int(x) for x in rng.integers(0, 2, n)]
        else:  # an LFSR of random degree: complexity = degree for most taps
            degree = int(rng.integers(1, n // 2))
            taps = rng.integers(0, 2, degree)
            taps[-1] = 1
            bits = [int(x) for x in rng.integers(0, 2, degree)]
            while len(bits) < n:
                bits.append(int(np.bitwise_xor.reduce([taps[i] & bits[-1 - i] for i in range(degree)])))
        assert _linear.linear_complexity(_pack(bits), n) == _bm_reference(bits)
    assert _linear.linear_complexity(_pack([0] * 128), 128) == 0
    assert _linear.linear_complexity(_pack([0] * 127 + [1]), 128) == 128


def test_complexity_distribution_matches_enumeration() -> None:
    """Rueppel's count of sequences with each complexity, checked over all 2^10 sequences."""
    n = 10
    counts = np.zeros(n + 1)
    for bits in itertools.product([0, 1], repeat=n):
        counts[_bm_reference(list(bits))] += 1
    assert np.allclose(counts / 2**n, np.exp2(complexity_log2_pmf(n)))
    assert np.isclose(complexity_cdf(n, 3), counts[:4].sum() / 2**n)
    assert np.isclose(complexity_cdf(n, 7), counts[:8].sum() / 2**n)


def test_nist_class_probabilities_are_the_exact_ones() -> None:
    # NIST SP 800-22 2.10.4 rounds these to 0.010417, 0.03125, 0.125, 0.5, 0.25, 0.0625, 0.020833
    acc = BitLinearComplexity(word_bits=8, bits=[0], length=512)
    acc.histograms[0][256] = 600  # 600 sequences: NIST's seven classes are the finest with 5 expected
    result = acc.finalize()[0]
    assert result.details["dof"] == 6
    probs = np.array(result.details["expected"]) / 600
    assert np.allclose(probs, [1 / 96, 1 / 32, 1 / 8, 1 / 2, 1 / 4, 1 / 16, 1 / 48], rtol=1e-12)
    assert result.details["observed"] == [0, 0, 0, 600, 0, 0, 0]
    assert failed([result])  # every sequence at exactly n/2 is far too regular


@pytest.mark.parametrize("generator", ["xorshift32", "lfsr113", "randu", "minstd", "msvc-rand-short"])
def test_bit_complexity_fails_weak_32_bit_generators_within_1_kib(generator: str) -> None:
    results = run(BitLinearComplexity(word_bits=32, bits=[0, 31], length=256), reference_stream(generator, 1024))
    assert any(name.endswith(",lowest]") for name in failed(results))


def test_bit_complexity_fails_glibc_rand_low_bit() -> None:
    # the lowest output bit of glibc's additive generator has linear complexity 527
    data = reference_stream("glibc-rand-byte", 2048)
    results = run(BitLinearComplexity(word_bits=8, bits=[0], length=1536), data)
    assert results[1].details["lowest_complexity"] == 527
    assert failed(results) == ["bit_linear_complexity[bit=0/8,lowest]"]
    short = run(BitLinearComplexity(word_bits=16, bits=[0], length=1536), reference_stream("glibc-rand-short", 4096))
    assert failed(short) == ["bit_linear_complexity[bit=0/16,lowest]"]


def test_bit_complexity_passes_a_good_generator_and_counts_sequences() -> None:
    data = pcg64_bytes(256 * 4 * 64, seed=5)
    results = run(BitLinearComplexity(word_bits=32, bits=[3], length=256, every=2), data)
    assert results[0].details["sequences"] == 32
    assert not failed(results)
    assert results[0].details["dof"] == 2  # 32 sequences: only the classes d <= -1, 0, >= 1 have 5 expected


def test_bit_complexity_with_too_little_data_is_insufficient() -> None:
    results = run(BitLinearComplexity(word_bits=64, bits=[0], length=512), pcg64_bytes(4000, seed=1))
    assert [r.verdict for r in results] == ["insufficient", "insufficient"]
    assert "4096 bytes" in results[0].needs


@pytest.mark.parametrize(
    "params",
    [dict(word_bits=12), dict(bits=[32]), dict(bits=[]), dict(bits=[1, 1]), dict(length=100), dict(length=0), dict(every=0)],
)
def test_bit_complexity_refuses_bad_parameters(params) -> None:
    with pytest.raises(ValueError):
        BitLinearComplexity(**params)


# --------------------------------------------------------------------------
# gap


def _gap_counts_reference(words: np.ndarray, low: int, high: int, t: int) -> np.ndarray:
    counts = np.zeros(t + 1, dtype=np.int64)
    run_length = 0
    for w in words:
        if low <= w < high:
            counts[min(run_length, t)] += 1
            run_length = 0
        else:
            run_length += 1
    return counts


@pytest.mark.parametrize("word_bytes,alpha,beta,t", [(1, 0.0, 0.5, 8), (1, 0.3, 0.55, 5), (2, 0.1, 0.2, 12), (4, 0.0, 1 / 16, 30)])
def test_gap_counts_and_pvalue(word_bytes, alpha, beta, t) -> None:
    data = pcg64_bytes(40_000, seed=21)
    acc = Gap(word_bytes=word_bytes, alpha=alpha, beta=beta, max_gap=t)
    result = run(acc, data, [1, 333, 334, 20_001])[0]
    words = np.frombuffer(data.tobytes(), dtype=f"<u{word_bytes}")
    low, high = math.ceil(alpha * 256**word_bytes), math.ceil(beta * 256**word_bytes)
    counts = _gap_counts_reference(words, low, high, t)
    assert result.details["counts"] == counts.tolist()
    p = (high - low) / 256**word_bytes
    probs = np.append(p * (1 - p) ** np.arange(t), (1 - p) ** t)
    chi2, pvalue = stats.chisquare(counts, counts.sum() * probs)
    assert math.isclose(result.statistic, chi2, rel_tol=1e-9)
    assert math.isclose(result.pvalue, pvalue, rel_tol=1e-9)


def test_gap_fails_minstd_bytes_quickly() -> None:
    # the top byte of each word of a 31-bit generator is below 128: never a gap of 3 or more
    assert failed(run(Gap(), reference_stream("minstd", 2048))) == ["gap[alpha=0,beta=0.5]"]


@pytest.mark.parametrize(
    "params", [dict(word_bytes=3), dict(alpha=0.5, beta=0.5), dict(beta=1.5), dict(alpha=-0.1), dict(max_gap=0), dict(alpha=0.0, beta=1.0)]
)
def test_gap_refuses_bad_parameters(params) -> None:
    with pytest.raises(ValueError):
        Gap(**params)


# --------------------------------------------------------------------------
# digraph


def _digraph_reference(data: np.ndarray, position_mod: int) -> float:
    x = data.astype(np.int64)
    classes = max(position_mod, 1)
    total = 0.0
    for r in range(classes):
        starts = np.arange(len(x) - 1)
        starts = starts[starts % classes == r]
        table = np.zeros((256, 256))
        np.add.at(table, (x[starts], x[starts + 1]), 1)
        m = table.sum()
        pairs = ((table - m / 65536) ** 2).sum() / (m / 65536)
        rows = ((table.sum(1) - m / 256) ** 2).sum() / (m / 256)
        cols = ((table.sum(0) - m / 256) ** 2).sum() / (m / 256)
        total += pairs - rows - cols
    return total


@pytest.mark.parametrize("position_mod", [0, 2])
def test_digraph_statistic_matches_direct_computation(position_mod: int) -> None:
    data = pcg64_bytes(140_001, seed=31)
    result = run(Digraph(position_mod=position_mod), data, [5, 77_777])[0]
    assert math.isclose(result.statistic, _digraph_reference(data, position_mod), rel_tol=1e-10)
    assert result.details["dof"] == max(position_mod, 1) * 255**2
    assert not failed([result])


def test_digraph_circular_stream_equals_goods_second_difference() -> None:
    """With the first byte repeated at the end, rows = columns = byte counts of
    the circular sequence, and the statistic is Good's ψ²_2 - 2ψ²_1."""
    data = pcg64_bytes(70_000, seed=32)
    circular = np.append(data, data[0])
    statistic = run(Digraph(), circular)[0].statistic
    x = data.astype(np.int64)
    pairs = np.bincount(x * 256 + np.roll(x, -1), minlength=65536)
    singles = np.bincount(x, minlength=256)
    n = len(x)
    psi2 = 65536 / n * np.sum(pairs.astype(float) ** 2) - n
    psi1 = 256 / n * np.sum(singles.astype(float) ** 2) - n
    assert math.isclose(statistic, psi2 - 2 * psi1, rel_tol=1e-8)


def test_digraph_detects_a_position_dependent_bias() -> None:
    """Equal successive bytes twice as often as chance at even positions and
    never at odd ones: the one-table statistic sees the average, which is
    right; the position-conditioned one fails."""
    data = pcg64_bytes(2_000_000, seed=33).copy()
    rng = np.random.default_rng(4)
    even = np.arange(0, len(data) - 1, 2)
    chosen = even[rng.random(len(even)) < 1 / 256]
    data[chosen + 1] = data[chosen]
    odd = np.arange(1, len(data) - 1, 2)
    equal = odd[data[odd + 1] == data[odd]]
    data[equal + 1] = (data[equal] + rng.integers(1, 256, len(equal))) % 256
    assert failed(run(Digraph(position_mod=2), data)) == ["digraph[position_mod=2]"]
    assert not failed(run(Digraph(), data))


def test_digraph_needs_one_pair_per_cell() -> None:
    assert run(Digraph(), pcg64_bytes(65_536, seed=1))[0].verdict == "insufficient"
    assert run(Digraph(), pcg64_bytes(65_537, seed=1))[0].verdict is None


@pytest.mark.parametrize("position_mod", [-1, 5000, 1.5])
def test_digraph_refuses_bad_parameters(position_mod) -> None:
    with pytest.raises(ValueError):
        Digraph(position_mod=position_mod)


# --------------------------------------------------------------------------
# overlapping_serial


def test_overlapping_serial_nist_example() -> None:
    # NIST SP 800-22 2.11.4: eps = 0011011101, m = 3 -> P-value1 = 0.808792, P-value2 = 0.670320
    acc = OverlappingSerial(m=3)
    acc.update(np.array([0b00110111], dtype=np.uint8))
    acc.update_tail_bits(np.array([0, 1], dtype=np.uint8))
    nabla, nabla2 = acc.finalize()
    assert (nabla.statistic, nabla2.statistic) == pytest.approx((1.6, 0.8))
    assert round(nabla.pvalue, 6) == 0.808792
    assert round(nabla2.pvalue, 6) == 0.670320
    assert nabla.verdict == "insufficient"  # 10 bits: the p-value is shown, not judged


def _circular_pattern_counts(bits: np.ndarray, m: int) -> np.ndarray:
    extended = np.concatenate([bits, bits[: m - 1]]).astype(np.int64)
    values = np.zeros(len(bits), dtype=np.int64)
    for k in range(m):
        values = values * 2 + extended[k : k + len(bits)]
    return np.bincount(values, minlength=2**m)


@pytest.mark.parametrize("m", [2, 4, 9, 10, 14])
@pytest.mark.parametrize("tail", [0, 5])
def test_overlapping_serial_counts_are_circular_nist_counts(m: int, tail: int) -> None:
    data = pcg64_bytes(5_000, seed=40 + m)
    tail_bits = np.random.default_rng(m).integers(0, 2, tail).astype(np.uint8)
    acc = OverlappingSerial(m=m)
    for a, b in [(0, 1), (1, 2), (2, 1_234), (1_234, 5_000)]:
        acc.update(data[a:b])
    acc.update_tail_bits(tail_bits)
    counts, n = acc.pattern_counts()
    bits = np.concatenate([np.unpackbits(data), tail_bits])
    assert n == len(bits)
    assert np.array_equal(counts, _circular_pattern_counts(bits, m))


def test_overlapping_serial_fails_a_biased_bit_pattern() -> None:
    # the low 4 bits of RANDU words have period 4: [Low4/32] folding makes it blatant
    data = reference_stream("randu", 4096)
    folded = FoldedTest(OverlappingSerial(m=8), word_bits=32, low_bits=4)
    assert "overlapping_serial[m=8,nabla][low4/32]" in failed(run(folded, data))


@pytest.mark.parametrize("m", [1, 21, 2.0])
def test_overlapping_serial_refuses_bad_parameters(m) -> None:
    with pytest.raises(ValueError):
        OverlappingSerial(m=m)


# --------------------------------------------------------------------------
# bcfn


def test_bcfn_letters_for_bytes_are_marsaglias() -> None:
    letters, probs = weight_letters(8, 5)
    assert letters.tolist() == [0, 0, 0, 1, 2, 3, 4, 4, 4]
    assert np.allclose(probs * 256, [37, 56, 70, 56, 37])


def test_bcfn_counts_and_statistic_match_direct_computation() -> None:
    data = pcg64_bytes(60_000, seed=50)
    acc = BCFN(block_bits=[16], letters=4, tuple_length=3)
    result = run(acc, data, [3, 999])[0]
    table, probs = weight_letters(16, 4)
    weights = np.unpackbits(data).reshape(-1, 16).sum(axis=1)
    letters = table[weights].astype(np.int64)
    circular = np.concatenate([letters, letters[:2]])
    words = circular[:-2] * 16 + circular[1:-1] * 4 + circular[2:]
    counts = np.bincount(words, minlength=64)
    pairs = counts.reshape(16, 4).sum(axis=1)
    p3 = np.einsum("i,j,k->ijk", probs, probs, probs).ravel()
    p2 = np.outer(probs, probs).ravel()
    n = len(letters)
    q3 = np.sum((counts - n * p3) ** 2 / (n * p3))
    q2 = np.sum((pairs - n * p2) ** 2 / (n * p2))
    assert math.isclose(result.statistic, q3 - q2, rel_tol=1e-9)
    assert result.details["dof"] == 64 - 16
    assert math.isclose(result.pvalue, stats.chi2.sf(q3 - q2, 48), rel_tol=1e-9)


def test_bcfn_fails_minstd_and_passes_pcg64() -> None:
    assert "bcfn[block_bits=32]" in failed(run(BCFN(block_bits=[32]), reference_stream("minstd", 65536)))
    assert not failed(run(BCFN(block_bits=[8, 32]), pcg64_bytes(65536, seed=51)))


@pytest.mark.parametrize(
    "params", [dict(block_bits=[12]), dict(block_bits=[]), dict(block_bits=[8, 8]), dict(letters=1), dict(tuple_length=1), dict(letters=16, tuple_length=6)]
)
def test_bcfn_refuses_bad_parameters(params) -> None:
    with pytest.raises(ValueError):
        BCFN(**params)


# --------------------------------------------------------------------------
# folding


def _fold_reference(data: bytes, word_bytes: int, low_bits: int) -> bytes:
    words = [int.from_bytes(data[i : i + word_bytes], "little") for i in range(0, len(data) - len(data) % word_bytes, word_bytes)]
    bits = "".join(format(w & ((1 << low_bits) - 1), f"0{low_bits}b") for w in words)
    return bytes(int(bits[i : i + 8], 2) for i in range(0, len(bits) - len(bits) % 8, 8))


@pytest.mark.parametrize("word_bytes,low_bits", [(1, 1), (1, 3), (2, 4), (2, 8), (4, 1), (4, 4), (4, 8), (4, 13), (8, 16), (8, 33), (8, 64)])
def test_fold_low_bits_matches_reference_for_any_chunking(word_bytes: int, low_bits: int) -> None:
    data = pcg64_bytes(1_001, seed=60 + low_bits)
    expected = _fold_reference(data.tobytes(), word_bytes, low_bits)
    rng = np.random.default_rng(low_bits)
    for _ in range(3):
        cuts = sorted(int(c) for c in rng.integers(0, len(data), 5))
        carry, pieces = None, []
        for a, b in zip([0] + cuts, cuts + [len(data)]):
            packed, carry = fold_low_bits(data[a:b], word_bytes, low_bits, carry)
            pieces.append(packed.tobytes())
        assert b"".join(pieces) == expected


def test_fold_low_bits_examples() -> None:
    low1, _ = fold_low_bits(np.array([1, 0, 1, 1, 0, 0, 0, 1, 3], dtype=np.uint8), 1, 1, None)
    assert low1.tolist() == [0b10110001]
    low4, carry = fold_low_bits(np.frombuffer(np.array([0x1234567A, 0xFFFFFFF3, 7], dtype="<u4").tobytes(), dtype=np.uint8), 4, 4, None)
    assert low4.tolist() == [0xA3] and carry.bit_count == 4 and carry.bits == 7


def test_folded_test_streams_and_merges_like_the_folded_stream() -> None:
    data = pcg64_bytes(300_000, seed=70)
    folded_bytes = np.frombuffer(_fold_reference(data.tobytes(), 4, 4), dtype=np.uint8)
    direct = summary(run(Digraph(position_mod=3), folded_bytes))
    expected = [(name + "[low4/32]", *rest) for name, *rest in direct]
    assert summary(run(FoldedTest(Digraph(position_mod=3), word_bits=32, low_bits=4), data, [5, 1001, 77_777])) == expected
    left = FoldedTest(Digraph(position_mod=3), word_bits=32, low_bits=4)
    assert left.alignment == 24  # 6 words: whole output bytes and whole position classes
    split = 100_008
    left.update(data[:split])
    right = FoldedTest(Digraph(position_mod=3), word_bits=32, low_bits=4)
    right.update(data[split:])
    left.merge(right)
    assert summary(left.finalize()) == expected


@pytest.mark.parametrize("word_bytes,low_bits", [(3, 1), (1, 0), (1, 9), (2, 17)])
def test_fold_low_bits_refuses_bad_parameters(word_bytes: int, low_bits: int) -> None:
    with pytest.raises(ValueError):
        fold_low_bits(np.zeros(8, dtype=np.uint8), word_bytes, low_bits, None)


# --------------------------------------------------------------------------
# false alarms on a good generator

#: the strong tests as proposed for the standard suite (scaled to short streams)
SUITE_LIKE = [
    (BitLinearComplexity, dict(word_bits=32, bits=[0, 31], length=256, every=16)),
    (BitLinearComplexity, dict(word_bits=16, bits=[0, 15], length=1536, every=64)),
    (BitLinearComplexity, dict(word_bits=8, bits=[0, 7], length=1536, every=64)),
    (Gap, dict(word_bytes=1, alpha=0.0, beta=0.5, max_gap=8)),
    (Gap, dict(word_bytes=4, alpha=0.0, beta=0.0625, max_gap=32)),
    (Digraph, dict()),
    (OverlappingSerial, dict(m=8)),
    (BCFN, dict(block_bits=[8, 32, 256], letters=5, tuple_length=4)),
]


def _suite_results(data: np.ndarray) -> list:
    results = []
    for cls, params in SUITE_LIKE:
        results += run(cls(**params), data)
    results += run(FoldedTest(OverlappingSerial(m=8), word_bits=32, low_bits=4), data)
    return results


def test_no_false_alarms_on_50_pcg64_streams() -> None:
    """50 streams of 160 KiB, 20 tail checks each: at 1e-6 per tail a failure
    is expected about once in 1,000 such runs, p < 1e-3 about once in all."""
    fails = suspicious = checks = 0
    for seed in range(50):
        for r in _suite_results(pcg64_bytes(160 << 10, seed=1000 + seed)):
            if r.pvalue is None or r.verdict == "insufficient":
                continue
            tails = [p for p in (r.pvalue, r.pvalue_low) if p is not None]
            checks += len(tails)
            fails += sum(p < 1e-6 for p in tails)
            suspicious += sum(p < 1e-3 for p in tails)
    assert checks >= 1000
    assert fails == 0
    # Poisson(checks * 1e-3 = 1): more than 8 has probability below 1e-6
    assert suspicious <= 8


@pytest.mark.slow
def test_pvalues_are_uniform_on_pcg64() -> None:
    """KS test of the p-values of each continuous result over 240 PCG64 streams;
    the discrete 'lowest' results are checked for P(p <= a) <= a instead."""
    pvalues: dict[str, list[float]] = {}
    for seed in range(240):
        data = pcg64_bytes(1 << 20, seed=5000 + seed)
        for r in _suite_results(data) + run(OverlappingSerial(m=14), data):
            if r.pvalue is not None and r.verdict != "insufficient":
                pvalues.setdefault(r.name, []).append(r.pvalue)
    assert len(pvalues) >= 20
    for name, values in pvalues.items():
        values = np.array(values)
        assert len(values) == 240, name
        if name.endswith(",lowest]"):
            for a in (0.05, 0.2, 0.5):
                assert np.mean(values <= a) <= a + 3 * math.sqrt(a * (1 - a) / 240), name
        else:
            assert stats.kstest(values, "uniform").pvalue > 1e-4, name


def test_birthday_spacings_compares_with_the_mean_not_lambda() -> None:
    # 256 points in 2^22 cells: lambda = 1 but E[Y] = 0.98882; 600,000 blocks
    # of a good generator tell the two apart by ~8.7 standard errors, so a
    # test summed against N lambda would fail here and the mean used must not
    from randqa.battery.birthday_spacings import BirthdaySpacings

    acc = BirthdaySpacings(points=256, word_bytes=4, bits_per_word=22)
    blocks, per_chunk = 600_000, 60_000
    rng = np.random.Generator(np.random.PCG64(12))
    for _ in range(blocks // per_chunk):
        acc.update(rng.integers(0, 256, size=per_chunk * acc.block_bytes, dtype=np.uint8))
    (result,) = acc.finalize()
    assert result.details["blocks"] == blocks
    sd = math.sqrt(result.details["expected"])
    assert abs(result.statistic - result.details["expected"]) < 4 * sd
    assert result.details["lambda_per_block"] * blocks - result.statistic > 4.5 * sd
    assert min(result.pvalue, result.pvalue_low) > 1e-4


def test_birthday_spacings_refuses_too_few_cells_per_point() -> None:
    from randqa.battery.birthday_spacings import BirthdaySpacings

    BirthdaySpacings(points=512, word_bytes=4, bits_per_word=23)  # n/k = 2^-14 exactly
    with pytest.raises(ValueError, match="over 2\\^-14 points per cell"):
        BirthdaySpacings(points=128, word_bytes=4, bits_per_word=17)


def _exact_birthday_mean(n: int, k: int, distinct_short: int = 6, max_j: int = 8) -> float:
    """E[Y] for n uniform points in k whole cells, by enumeration: given d
    distinct points (probability falling(k, d) S(n, d) / k^n), the spacings
    are n - d zeros and the d gaps of a uniform composition of k into d
    parts, where P(the first j gaps all equal s) = C(k-js-1, d-j-1) / C(k-1, d-1)."""
    from scipy.special import gammaln

    def log_comb(a, b):
        return gammaln(a + 1) - gammaln(b + 1) - gammaln(a - b + 1)

    stirling = [[0] * (n + 1) for _ in range(n + 1)]  # S(m, i), only i >= m - distinct_short needed
    stirling[0][0] = 1
    for m in range(1, n + 1):
        for i in range(max(1, m - distinct_short), m + 1):
            stirling[m][i] = stirling[m - 1][i - 1] + i * stirling[m - 1][i]
    total = 0.0
    for d in range(n - distinct_short + 1, n + 1):
        p = math.exp(gammaln(k + 1) - gammaln(k - d + 1) + math.log(stirling[n][d]) - n * math.log(k))
        repeated_zeros = max(n - d - 1, 0)
        gaps = 0.0
        for j in range(2, min(d, max_j) + 1):
            s = np.arange(1, (k - d + j) // j + 1, dtype=np.float64)
            equal = np.exp(log_comb(k - j * s - 1, d - j - 1) - log_comb(k - 1, d - 1)).sum()
            gaps += (-1) ** j * math.comb(d, j) * equal
        total += p * (repeated_zeros + gaps)
    return total


@pytest.mark.parametrize("points, cell_bits", [(64, 16), (128, 18)])
def test_birthday_spacings_mean_matches_exact_enumeration(points, cell_bits):
    from randqa.battery.birthday_spacings import expected_collisions, mean_collisions

    exact = _exact_birthday_mean(points, 2**cell_bits)
    limit = mean_collisions(points, cell_bits)
    assert (limit - exact) / exact > 0.4 * points / 2**cell_bits  # the many-cells limit alone is too high
    assert abs(expected_collisions(points, cell_bits) - exact) / exact < 0.05 * points / 2**cell_bits


def _rc4_cell_reference(data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The fluhrer_mcgrew kernel's tables, by numpy."""
    a, b = data[:-1].astype(np.int64), data[1:].astype(np.int64)
    cls = np.arange(len(a)) % 256
    low = np.zeros((256, 3, 256), dtype=np.int64)
    for row, value in enumerate((0, 129, 255)):
        hit = a == value
        np.add.at(low, (cls[hit], row, b[hit]), 1)
    high = np.zeros((256, 256), dtype=np.int64)
    hit = b == 255
    np.add.at(high, (cls[hit], a[hit]), 1)
    return low.ravel(), high.ravel()


def test_fluhrer_mcgrew_counts_cells_across_chunks_and_merges() -> None:
    from randqa.battery.fluhrer_mcgrew import FluhrerMcGrew

    # bytes drawn mostly from the values the cells use, so every table fills
    data = np.random.default_rng(21).choice(np.array([0, 1, 2, 129, 200, 255], dtype=np.uint8), size=200_003)
    low, high = _rc4_cell_reference(data)
    pieces = FluhrerMcGrew()
    run(pieces, data, cuts=[1, 2, 255, 256, 257, 70_001])
    left, right = FluhrerMcGrew(), FluhrerMcGrew()
    split = 256 * 300
    run(left, data[:split])
    run(right, data[split:], cuts=[5])
    left.merge(right)
    for acc in (pieces, left):
        assert np.array_equal(acc.low, low) and np.array_equal(acc.high, high)
        assert acc.bytes_seen == len(data)


def test_fluhrer_mcgrew_phase_scores_match_a_dense_computation() -> None:
    # the sparse cell lists against full 256 x 256 weight matrices per index
    # i and a full digraph table per position class, on a stream rich in the
    # bytes the cells use and whose length is not a multiple of 256
    from randqa.battery.fluhrer_mcgrew import PAIR, _CELLS, biased_cells, phase_scores

    weights = np.zeros((256, 256, 256))
    for i in range(256):
        for (a, b), w in biased_cells(i).items():
            weights[i, a, b] = w
    mean = weights.sum(axis=(1, 2)) * PAIR
    variance = (weights**2).sum(axis=(1, 2)) * PAIR - mean**2
    following = np.roll(weights, -1, axis=0)
    covariance = np.einsum("iab,ibc->i", weights, following) * PAIR / 256 - mean * np.roll(mean, -1)
    assert np.allclose(_CELLS.variance, variance, rtol=1e-12, atol=0)
    assert np.allclose(_CELLS.covariance, covariance, rtol=1e-12, atol=0)

    data = np.random.default_rng(24).choice(np.array([0, 1, 2, 3, 129, 254, 255], dtype=np.uint8), size=300_001)
    pairs = len(data) - 1
    table = np.zeros((256, 256, 256))
    np.add.at(table, (np.arange(pairs) % 256, data[:-1], data[1:]), 1)
    per_class = table.sum(axis=(1, 2))
    adjacent = np.bincount(np.arange(pairs - 1) % 256, minlength=256)
    low, high = np.zeros(256 * 3 * 256, dtype=np.int64), np.zeros(65536, dtype=np.int64)
    _counts.rc4_digraph_counts(data, 0, -1, low, high)
    z, _ = phase_scores(low, high, pairs)
    for f in (0, 1, 77, 255):
        i = (np.arange(256) + f) % 256
        s = (weights[i] * (table - per_class[:, None, None] * PAIR)).sum()
        var = (per_class * variance[i] + 2 * adjacent * covariance[i]).sum()
        assert z[f] == pytest.approx(s / math.sqrt(var), rel=1e-9)
    with pytest.raises(ValueError, match="previous"):
        _counts.rc4_digraph_counts(data, 0, 256, low, high)


def test_fluhrer_mcgrew_phase_scores_are_standard_normal_on_random_bytes() -> None:
    # each phase's z is standard normal on random bytes: 300 streams of 1 MiB,
    # all 256 phases (a coarse check; the variance itself is checked above)
    from randqa.battery.fluhrer_mcgrew import phase_scores

    rng = np.random.Generator(np.random.PCG64(22))
    scores = []
    for _ in range(300):
        data = rng.integers(0, 256, size=1 << 20, dtype=np.uint8)
        low, high = np.zeros(256 * 3 * 256, dtype=np.int64), np.zeros(65536, dtype=np.int64)
        _counts.rc4_digraph_counts(data, 0, -1, low, high)
        scores.append(phase_scores(low, high, len(data) - 1)[0])
    scores = np.array(scores)
    assert abs(scores.mean()) < 0.2
    assert 0.8 < scores.var(axis=0).mean() < 1.2


def test_fluhrer_mcgrew_finds_planted_biases_and_their_phase() -> None:
    # random bytes, except that after a byte i+1 (i = position mod 256 + 77)
    # the next byte is 255 three times as often as it should be: the
    # (i+1, 255) cells of Fluhrer and McGrew's table at phase 77
    from randqa.battery.fluhrer_mcgrew import FluhrerMcGrew

    rng = np.random.Generator(np.random.PCG64(23))
    data = rng.integers(0, 256, size=64 << 20, dtype=np.uint8)
    pairs = len(data) - 1
    i_plus_1 = np.resize(np.arange(78, 78 + 256, dtype=np.uint64).astype(np.uint8), pairs)
    planted = (data[:-1] == i_plus_1) & (rng.integers(0, 128, size=pairs, dtype=np.uint8) == 0)
    data[1:][planted] = 255
    acc = FluhrerMcGrew()
    acc.update(data)
    (result,) = acc.finalize()
    classify(result, Thresholds())
    assert result.verdict == "fail" and result.details["phase"] == 77
    clean = FluhrerMcGrew()
    clean.update(rng.integers(0, 256, size=64 << 20, dtype=np.uint8))
    (null,) = clean.finalize()
    assert null.pvalue > 1e-3
