"""Reference data of NIST SP 800-22 Rev 1a shared by the tests that
reproduce its worked examples and its Appendix B table.

Each test module of tests/battery/ that reproduces the standard holds a
``REFERENCES`` table: (section, factory, input ("e", "e100k" or a bit
string), result name, field, printed value, tolerance), where field is "p"
(p-value), "stat" (statistic) or a details key, and the tolerance is half a
unit of the last printed digit unless a note there says why not.  Run this
file as a script to print every reference value next to randqa's.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

E_BITS = 1_000_000

# The 100-bit sequence of the examples in 2.1.8, 2.2.8, 2.3.8, 2.6.8, 2.12.8, 2.13.8
# (the binary expansion of pi from its leading '11'; tests/cli/test_test.py derives it with pi_bits).
EPSILON_100 = (
    "11001001000011111101101010100010001000010110100011"
    "00001000110100110001001100011001100010100010111000"
)

# 2.4.8, n = 128
EPSILON_128 = (
    "11001100000101010110110001001100111000000000001001"
    "00110101010001000100111101011010000000110101111100"
    "1100111001101101100010110010"
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


def example_references(section: str, factory, data: str, tolerance: float,
                       printed: dict[str, dict[str, object]]) -> list[tuple]:
    """The REFERENCES rows of one run: ``printed`` maps each result name to
    its fields' printed values, all read with ``tolerance``."""
    return [(section, factory, data, name, field, value, tolerance)
            for name, fields in printed.items() for field, value in fields.items()]


def reference_id(ref: tuple) -> str:
    """The test id of a REFERENCES row: section, result name and field."""
    return f"{ref[0]}-{ref[3]}-{ref[4]}"


def check_reference(ref: tuple, e: np.ndarray) -> None:
    """A REFERENCES row reproduced: randqa's value matches the printed one."""
    section, factory, data, name, field, expected, tolerance = ref
    got = observed(results_for(factory, data, e), name, field)
    assert reference_matches(got, expected, tolerance), (section, name, field, got, expected)


def reference_test(references: list):
    """The test of a module's REFERENCES table, one case a row:
    ``test_reference_value = reference_test(REFERENCES)``."""
    import pytest

    @pytest.mark.parametrize("ref", references, ids=reference_id)
    def test_reference_value(ref, e):
        check_reference(ref, e)

    return test_reference_value


def print_references(references: list, e: np.ndarray, name_width: int, field_width: int, value_width: int) -> None:
    """Print every reference value next to randqa's (the test files' script mode)."""
    from randqa.battery.frequency import Frequency

    print(f"frequency on e (App. B 0.953749): {run(Frequency(pvalues='sts'), e)['frequency'].pvalue:.7f}")
    print(f"{'source':7} {'result':{name_width}} {'field':{field_width}} {'printed':>{value_width}} "
          f"{'randqa':>{value_width + 2}}  ok")
    for section, factory, data, name, field, expected, tolerance in references:
        got = observed(results_for(factory, data, e), name, field)
        ok = reference_matches(got, expected, tolerance)
        shown = f"{got:.7f}" if isinstance(got, float) else str(got)
        print(f"{section:7} {name:{name_width}} {field:{field_width}} {str(expected):>{value_width}} "
              f"{shown:>{value_width + 2}}  {'yes' if ok else 'NO'}")


def _battery_references() -> list:
    """The REFERENCES tables of tests/battery/test_*.py, in file order."""
    import importlib.util
    from pathlib import Path

    references = []
    for path in sorted((Path(__file__).parent / "battery").glob("test_*.py")):
        spec = importlib.util.spec_from_file_location(f"battery_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        references += getattr(module, "REFERENCES", [])
    return references


def print_printed_value_notes(e: np.ndarray) -> None:
    """What the standard's misprinted values come from, and randqa's exact-probability values on e."""
    from randqa.battery.dft import DFT, peak_count_pvalue
    from randqa.battery.linear_complexity import LinearComplexity
    from randqa.battery.longest_run import LongestRun
    from randqa.battery.matrix_rank import MatrixRank
    from randqa.battery.overlapping_template import OverlappingTemplate
    from randqa.battery.universal import EXPECTED_VALUE, VARIANCE, Universal

    rank3 = results_for(lambda: MatrixRank(rows=3, cols=3), "01011001001010101101", e)["matrix_rank[3x3]"]
    printed_pi = np.array([0.2888, 0.5776, 0.1336]) * rank3.details["matrices"]
    chi2 = float(((np.array(rank3.details["counts"]) - printed_pi) ** 2 / printed_pi).sum())
    print(f"2.5.4 counts with the printed 32x32 pi: chi2 {chi2:.6f} (0.596953), p {math.exp(-chi2 / 2):.6f} (0.741948);"
          f" randqa's 3x3 pi give p {rank3.pvalue:.6f}")
    for n, n1, printed in [(10, 4, 0.029523), (100, 46, 0.168669)]:
        print(f"2.6 printed N1 = {n1} of n = {n}: p {peak_count_pvalue(n, n1)[1]:.6f} ({printed});"
              f" the algorithm counts N1 = {run(DFT(), '1001010011' if n == 10 else EPSILON_100)['dft'].details['N1']}")
    f_n = results_for(lambda: Universal(L=2, Q=4), "01011010011101010111", e)["universal"].statistic
    p_printed_style = math.erfc(abs(f_n - EXPECTED_VALUE[2]) / math.sqrt(2 * VARIANCE[2]))
    print(f"2.9.4 with sigma = sqrt(variance(2)): p {p_printed_style:.6f} (0.767189)")
    print("with exact class probabilities (the default) on e:")
    for label, acc, name, printed in [("longest_run", LongestRun(), "longest_run", "App. B, 'sts' table: 0.718945"),
                                      ("linear_complexity", LinearComplexity(), "linear_complexity", "App. B, 'sts' pi: 0.826335"),
                                      ("linear_complexity M=1000", LinearComplexity(M=1000), "linear_complexity",
                                       "2.10.8, 'sts' pi: 0.845406"),
                                      ("overlapping_template", OverlappingTemplate(), "overlapping_template",
                                       "App. B, 'sts' pi: 0.110434")]:
        print(f"  {label:25} {run(acc, e)[name].pvalue:.6f}  ({printed})")


if __name__ == "__main__":
    bits_of_e = e_bytes()
    print_references(_battery_references(), bits_of_e, 40, 13, 30)
    print_printed_value_notes(bits_of_e)
