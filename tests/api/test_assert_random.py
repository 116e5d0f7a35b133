"""``randqa.testing.assert_random``: "my generator passes the suite" as an
assertion in another project's tests.

What it must do: fail on ``msvc-rand-byte`` (the low
byte of MSVC's rand(), an LCG whose byte counts are too even and whose
birthday spacings collide: both fail the quick suite at 16 MiB) with a
message naming the failed tests and the seed, and passes on ``pcg64`` with
a fixed seed.  16 MiB per run, the quick suite (the defaults).
"""

from __future__ import annotations

import unittest

import numpy as np
import pytest

from randqa import Verdict
from randqa.testing import assert_random


def test_fails_on_msvc_rand_byte_naming_the_tests_and_the_seed():
    with pytest.raises(AssertionError) as info:
        assert_random("msvc-rand-byte")  # no seed given: one is drawn and recorded
    message = str(info.value)
    first = message.splitlines()[0]
    assert first.startswith("msvc-rand-byte (seed ") and "failed the quick suite on 16 MiB" in first
    seed = int(first.split("(seed ")[1].split(")")[0])
    table = message.splitlines()[1:-1]
    assert table[0].split() == ["test", "p-value", "lower-tail", "p", "verdict"]
    assert {row.split()[0] for row in table[1:]} == {"chi_square", "birthday_spacings"}
    assert all(row.split()[-1] == "fail" for row in table[1:])
    assert message.splitlines()[-1] == f"reproduce: randqa.test('msvc-rand-byte', n='16M', seed={seed}, suite='quick')"
    with pytest.raises(AssertionError) as again:  # the recorded seed reproduces the failure exactly
        assert_random("msvc-rand-byte", seed=seed)
    assert str(again.value) == message


def test_passes_on_pcg64_with_a_fixed_seed():
    result = assert_random("pcg64", seed=20240501)
    assert result.verdict == Verdict.PASS and result.bytes_tested == 16 << 20
    assert assert_random(np.random.PCG64(20240501)).to_json()["tests"] == result.to_json()["tests"]


def test_suspicious_results_are_listed_only_when_something_fails():
    with pytest.raises(AssertionError) as info:
        assert_random("randu", n="64K", seed=1, suite="standard")
    rows = str(info.value).splitlines()[2:-1]
    assert {row.split()[-1] for row in rows} <= {"fail", "suspicious"} and rows[0].split()[-1] == "fail"


def test_no_verdict_is_no_pass():
    with pytest.raises(AssertionError, match="no test of the standard suite had data enough for a verdict in 16 B"):
        assert_random(bytes(range(16)), n=None, suite="standard", tests="bit_linear_complexity")


def test_unseeded_sources_say_so():
    with pytest.raises(AssertionError, match="reproduce: no seed recorded"):
        assert_random(b"\x00" * 4096, n=None)


class UsableFromUnittest(unittest.TestCase):
    """The documented example, as another project's unittest suite would hold it."""

    def test_my_generator(self) -> None:
        assert_random(np.random.PCG64(20240501), n="16M", suite="quick")

    def test_a_bad_generator_fails(self) -> None:
        with self.assertRaises(AssertionError):
            assert_random("minstd", n="1M", seed=1)
