"""Reference data of NIST SP 800-22 Rev 1a shared by the tests that
reproduce its worked examples and its Appendix B table."""

from __future__ import annotations

import math

import mpmath
import numpy as np

E_BITS = 1_000_000

# The 100-bit sequence of the examples in 2.1.8, 2.2.8, 2.3.8, 2.6.8, 2.12.8, 2.13.8
# (the binary expansion of pi from its leading '11'; tests/test_reference_values.py derives it).
EPSILON_100 = (
    "11001001000011111101101010100010001000010110100011"
    "00001000110100110001001100011001100010100010111000"
)


def e_bytes(nbits: int = E_BITS) -> np.ndarray:
    """The first ``nbits`` bits of the binary expansion of e (10.10110111...,
    integer part first, as the STS file data.e), packed MSB-first."""
    with mpmath.workprec(nbits + 64):
        value = int(mpmath.floor(mpmath.e * mpmath.mpf(2) ** (nbits - 2)))
    return np.frombuffer(value.to_bytes(nbits // 8, "big"), dtype=np.uint8)


def pi_bits(count: int) -> str:
    """The binary expansion of pi from its leading '11', as a '0'/'1' string."""
    with mpmath.workprec(count + 64):
        value = int(mpmath.floor(mpmath.pi * mpmath.mpf(2) ** (count - 2)))
    return format(value, "b")[:count]


def run(acc, bits: str | np.ndarray) -> dict:
    """Feed a bit string (whole bytes through update, the rest through
    update_tail_bits) or packed bytes; return the results by name."""
    if isinstance(bits, str):
        values = np.array([int(c) for c in bits], dtype=np.uint8)
        whole = len(values) // 8 * 8
        acc.update(np.packbits(values[:whole]))
        if len(values) > whole:
            acc.update_tail_bits(values[whole:])
    else:
        acc.update(bits)
    return {r.name: r for r in acc.finalize()}


def observed(results: dict, name: str, field: str):
    """A result's p-value ("p"), statistic ("stat") or one of its details."""
    result = results[name]
    if field == "p":
        return result.pvalue
    if field == "stat":
        return result.statistic
    return result.details[field]


_cache: dict = {}


def results_for(factory, data: str, e: np.ndarray) -> dict:
    """Results of a fresh ``factory()`` on "e", "e100k" (its first 100,000
    bits) or a bit string; cached, since many references share a run."""
    acc = factory()
    key = (repr(acc), data)
    if key not in _cache:
        _cache[key] = run(acc, {"e": e, "e100k": e[:12_500]}.get(data, data))
    return _cache[key]


def reference_matches(got, expected, tolerance: float) -> bool:
    """A reproduced value against the printed one: exact for counts and
    tables (or a zero tolerance), within the tolerance otherwise."""
    if isinstance(expected, (list, dict)) or tolerance == 0:
        return got == expected
    return math.isclose(got, expected, abs_tol=tolerance)


def print_references(references: list, e: np.ndarray, name_width: int, field_width: int, value_width: int) -> None:
    """Print every reference value next to randqa's (the test files' script mode)."""
    from randqa.battery.frequency import Frequency

    print(f"frequency on e (App. B 0.953749): {run(Frequency(), e)['frequency'].pvalue:.7f}")
    print(f"{'source':7} {'result':{name_width}} {'field':{field_width}} {'printed':>{value_width}} "
          f"{'randqa':>{value_width + 2}}  ok")
    for section, factory, data, name, field, expected, tolerance in references:
        got = observed(results_for(factory, data, e), name, field)
        ok = reference_matches(got, expected, tolerance)
        shown = f"{got:.7f}" if isinstance(got, float) else str(got)
        print(f"{section:7} {name:{name_width}} {field:{field_width}} {str(expected):>{value_width}} "
              f"{shown:>{value_width + 2}}  {'yes' if ok else 'NO'}")


def feed_in_sizes(acc, data: np.ndarray, sizes: tuple[int, ...] = (1, 7, 4093, 3, 10_000, 997)) -> None:
    """Feed ``data`` in chunks of the given sizes, cycling through them."""
    pos = 0
    while pos < len(data):
        step = sizes[pos % len(sizes)]
        acc.update(data[pos : pos + step])
        pos += step


def same_results(a: list, b: list) -> None:
    assert [(r.name, r.statistic, r.pvalue, r.verdict, r.details) for r in a] == \
           [(r.name, r.statistic, r.pvalue, r.verdict, r.details) for r in b]
