"""Every F2-linear generator of up to about 20,000 bits of state fails the
standard suite within 1 MiB, whatever the width of the words it writes
(suites/standard.toml explains which entry guarantees what)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from randqa.engine import run_progressive
from randqa.sources import open_backend
from randqa.sources.base import Source
from randqa.battery.suites import load_suite
from reference_generators import (
    gfsr_blocks, lfsr_bit_blocks, mt19937_64_values, mt19937_blocks, well512a_blocks, xorshift128_blocks,
    xorshift1024_blocks, xoshiro256plus_blocks,
)


class BlockSource(Source):
    """Bytes pulled from an endless iterator of blocks, as far as the run reads."""

    endless = True

    def __init__(self, name: str, blocks) -> None:
        self.name = name
        self._blocks = iter(blocks)
        self._pending = b""

    def readinto(self, buffer: memoryview) -> int:
        filled = 0
        while filled < len(buffer):
            if not self._pending:
                self._pending = next(self._blocks)
            take = min(len(buffer) - filled, len(self._pending))
            buffer[filled:filled + take] = self._pending[:take]
            self._pending = self._pending[take:]
            filled += take
        return filled


def mt19937_64_as(word_bits: int):
    for values in mt19937_64_values(2024):
        yield (values & np.uint64((1 << word_bits) - 1 if word_bits < 64 else 2**64 - 1)).astype(
            f"<u{word_bits // 8}").tobytes()


# name -> (state bits, how its bytes are made)
LINEAR = {
    "MT19937, 32-bit words": (19937, lambda: mt19937_blocks(7, 32)),
    "MT19937, 64-bit words (two outputs, first one high)": (19937, lambda: mt19937_blocks(7, 64)),
    "MT19937, low 16 bits as 16-bit words": (19937, lambda: mt19937_blocks(7, 16)),
    "MT19937, low byte of each output": (19937, lambda: mt19937_blocks(7, 8)),
    "MT19937-64, 64-bit words": (19937, lambda: mt19937_64_as(64)),
    "MT19937-64, low 32 bits as 32-bit words": (19937, lambda: mt19937_64_as(32)),
    "WELL512a, 32-bit words": (512, well512a_blocks),
    "xorshift1024 (linear engine), 64-bit words": (1024, xorshift1024_blocks),
    "xorshift128, 32-bit words": (128, xorshift128_blocks),
    "xoshiro256+ (lowest bit), 64-bit words": (256, xoshiro256plus_blocks),
    "LFSR x^19937 + x^9842 + 1, bit-serial": (19937, lambda: lfsr_bit_blocks(19937, 9842)),
    "LFSR x^4423 + x^2098 + 1, bit-serial": (4423, lambda: lfsr_bit_blocks(4423, 2098)),
    "GFSR (521, 32) on 32-bit words": (521 * 32, lambda: gfsr_blocks(521, 32)),
}
# randqa's own backends: SFMT's 128-bit blocks read as 64-bit words, MT19937-64,
# and the lowest bits of xorshift1024*phi and xoroshiro128+
BACKENDS = {"sfmt": 19968, "mt64": 19968, "xorshift1024": 1024, "xoroshiro128": 128}


def first_failure(source: Source) -> tuple[int | None, list[str]]:
    result = run_progressive(source, load_suite("standard"), 1 << 10, 1 << 20)
    failed = [r.name for r in result.results if r.verdict == "fail"]
    return result.extra["first_failure_bytes"], failed


@pytest.mark.parametrize("name", LINEAR)
def test_f2_linear_generators_fail_within_1_mib(name):
    state_bits, make = LINEAR[name]
    assert state_bits <= 20000
    fails_at, failed = first_failure(BlockSource(name, make()))
    assert fails_at is not None and fails_at <= 1 << 20
    assert any(n.startswith("bit_linear_complexity") for n in failed), failed


@pytest.mark.parametrize("name", BACKENDS)
def test_linear_backends_fail_within_1_mib(name):
    with open_backend(name, 3) as source:
        fails_at, failed = first_failure(source)
    assert fails_at is not None and fails_at <= 1 << 20
    assert any(n.startswith("bit_linear_complexity") for n in failed), failed


def test_mt19937_64_transcription_gives_the_cpp_standard_value():
    # C++11 [rand.predef]: the 10000th output of a default-constructed
    # std::mt19937_64 (seed 5489) is 9981545732273789042
    values = np.concatenate(list(itertools.islice(mt19937_64_values(5489), 33)))
    assert int(values[9999]) == 9981545732273789042
    # and std::mt19937's 10000th, 4123659995, pins numpy's MT19937 used above
    mt = np.random.MT19937()
    mt._legacy_seeding(5489)
    assert int(mt.random_raw(10000)[-1]) == 4123659995
