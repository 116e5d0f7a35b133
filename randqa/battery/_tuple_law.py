"""When the chi-square law of an overlapping-tuple statistic is close enough
at the fail threshold (mod3, hamming_patterns, bcfn).

Source: benchmarks/calibration.py (ProxyLaw): exact tails of equiprobable
multinomial Pearson sums over K cells with e expected each are above the
chi-square's 1e-6 point 1 + 142 K^-0.70 e^-1.12 times as often as 1e-6
(the fit bcfn's docstring quotes); the calibration judges Good's
Q_t - Q_(t-1) by it at K = its degrees of freedom + 1 and e = the
harmonic mean of the t-tuples' expected counts.  Few cells need many more
expected than many: 17 in every cell keeps 500 cells within 8%, 3 cells
need about 400.  bcfn judges its levels by the same rule.
"""

from __future__ import annotations

import numpy as np

from randqa.results import TestResult

#: the fit 1 + a K^b e^-c at the 1e-6 level
FIT_A, FIT_B, FIT_C = 142.0, -0.70, 1.12
#: the excess over nominal allowed for a verdict: calibration.py's bound for continuous
#: results is 1.1, and its exact sums sit up to a few percent above the fit
MAX_RATIO = 1.08


def harmonic_mean_expected(expected: np.ndarray) -> float:
    """K / sum(1 / e_i): the mean the calibration reads, dominated by the rare cells."""
    return len(expected) / float(np.sum(1.0 / expected))


def excess_at_fail(cells: int, mean_expected: float) -> float:
    """The fitted ratio of P(p < 1e-6) to 1e-6 for ``cells`` cells (dof + 1)."""
    return 1.0 + FIT_A * cells**FIT_B * mean_expected**-FIT_C


def mean_expected_needed(cells: int) -> float:
    """The smallest harmonic mean expected count whose fitted excess is MAX_RATIO."""
    return float((FIT_A * cells**FIT_B / (MAX_RATIO - 1.0)) ** (1.0 / FIT_C))


def withhold_unless_close(result: TestResult, expected: np.ndarray, dof: int) -> None:
    """Withhold ``result``'s verdict unless decisive when its tuples'
    ``expected`` counts are too few for the chi-square law at ``dof``."""
    mean, needed = harmonic_mean_expected(expected), mean_expected_needed(dof + 1)
    result.details["mean_expected"] = mean
    if mean < needed:
        result.withhold_verdict_unless_decisive(
            f"a harmonic mean of {needed:.3g} expected per tuple, not {mean:.3g}, for the chi-square law at the fail threshold")
