"""What a comparison learns of a source apart from its test
(randqa/engine/compare_sources.py): a runtime backend's facts, and whether
the runtime itself writes the bytes randqa tested."""

from __future__ import annotations

import pytest

from randqa.engine.compare_sources import LIVE_CHECK_BYTES, runtime_facts
from randqa.sources.runtimes import driver_for


def test_runtime_facts_check_the_runtimes_own_bytes(monkeypatch):
    assert runtime_facts("pcg64", 1) is None
    driver = driver_for("v8-math-random")
    if not driver.available():
        pytest.skip("node is not installed")
    facts = runtime_facts("v8-math-random", 77)
    assert facts["installed"] and facts["version"].startswith("node")
    assert facts["live_equal"] and facts["live_checked_bytes"] == LIVE_CHECK_BYTES
    # a runtime seeded otherwise than randqa's C: the first differing byte is named
    stream = driver.stream_command
    monkeypatch.setattr(driver, "stream_command", lambda backend, seed: stream(backend, seed + 1))
    facts = runtime_facts("v8-math-random", 77)
    assert facts["live_equal"] is False and facts["first_difference"] < 8
