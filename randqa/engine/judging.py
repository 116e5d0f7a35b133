"""Judging accumulators: their results so far, each with its verdict."""

from __future__ import annotations

from randqa.battery import Accumulator
from randqa.results import TestResult, Thresholds, classify


def judge_entries(accumulators: list[Accumulator], thresholds: Thresholds) -> list[list[TestResult]]:
    """Every accumulator's results so far, each with its verdict: one list per accumulator."""
    entries = [acc.finalize() for acc in accumulators]
    for results in entries:
        for r in results:
            classify(r, thresholds)
    return entries


def judge(accumulators: list[Accumulator], thresholds: Thresholds) -> list[TestResult]:
    """Every accumulator's results so far, each with its verdict."""
    return [r for results in judge_entries(accumulators, thresholds) for r in results]
