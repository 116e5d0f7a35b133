"""The predict runner: one read, predictions checked only on unseen bytes,
the JSON it writes, clear answers for bad input, no false claims."""

from __future__ import annotations

import numpy as np
import pytest
from reference_generators import backend_bytes

from randqa.errors import InputError, UsageError
from randqa.predict import predict, predict_data, predictor_names
from randqa._report.terminal import render_predict
from randqa.predict.base import Fit, NoFit, Predictor
from randqa.predict.runner import MIN_CHECK_BYTES, run_predictor
from randqa.sources import open_source

PREDICTOR_KEYS = {"name", "applicable", "observed_bytes", "checked_bytes", "exact_fraction", "succeeded", "structure"}


class _Oracle(Fit):
    """Predicts by reading the true stream at the offset it was given."""

    def __init__(self, stream: np.ndarray, start: int) -> None:
        super().__init__({"summary": "oracle"})
        self.stream, self.start = stream, start

    def predict(self, nbytes: int) -> np.ndarray:
        return self.stream[self.start:self.start + nbytes]


class _Spy(Predictor):
    name = "spy"
    min_observed_bytes = 100
    max_observed_bytes = 1000

    def __init__(self, stream: np.ndarray, needs: int) -> None:
        self.stream, self.needs, self.seen = stream, needs, []

    def fit(self, observed: np.ndarray) -> Fit | NoFit:
        self.seen.append(len(observed))
        assert np.array_equal(observed, self.stream[: len(observed)])
        if len(observed) < self.needs:
            return NoFit("too short")
        return _Oracle(self.stream, len(observed))


def test_checks_only_what_follows_the_observed_prefix():
    stream = backend_bytes("aes-ctr", 2, 5000)
    spy = _Spy(stream, needs=333)
    result = run_predictor(spy, stream)
    # the oracle is right exactly when the runner compares the bytes after the prefix
    assert result.succeeded and result.exact_fraction == 1.0
    assert result.observed_bytes == 333 and result.checked_bytes == 5000 - 333
    assert spy.seen[:3] == [100, 200, 400]


def test_json_document_shape():
    report = predict(open_source("lfsr113", seed=1), 1 << 17)
    doc = report.to_json()
    assert set(doc) == {"kind", "source", "bytes_read", "predictors", "predictable_from_bytes"}
    assert doc["kind"] == "predict" and doc["bytes_read"] == 1 << 17
    assert doc["source"]["name"] == "lfsr113" and doc["source"]["seed"] == 1
    assert [p["name"] for p in doc["predictors"]] == predictor_names()
    assert all(set(p) == PREDICTOR_KEYS for p in doc["predictors"])
    linear = next(p for p in doc["predictors"] if p["name"] == "gf2-linear")
    assert doc["predictable_from_bytes"] == linear["observed_bytes"] == 904
    assert "predictable from 904 bytes" in render_predict(report.to_json())


def test_a_file_source(tmp_path):
    path = tmp_path / "glibc.bin"
    path.write_bytes(backend_bytes("glibc-rand", 1234567, 80000).tobytes())
    report = predict(open_source(str(path)), predictors=["additive-feedback"])
    assert report.bytes_read == 80000 and report.predictable_from_bytes is not None
    assert report.predictors[0].checked_bytes == 1 << 16


def test_too_little_data_is_a_result_not_an_error():
    report = predict_data(b"0123456789")
    assert report.predictable_from_bytes is None
    assert not any(r.applicable for r in report.predictors)
    assert all(r.exact_fraction is None for r in report.predictors)
    text = render_predict(report.to_json())
    assert "no predictor succeeded" in text and "unpredictable" not in text


def test_bad_input_is_refused_with_one_line():
    with pytest.raises(InputError, match="empty"):
        predict_data(b"")
    empty = open_source("/dev/null")
    with pytest.raises(InputError, match="empty"):
        predict(empty)
    with pytest.raises(UsageError):
        predict(open_source("lfsr113", seed=1), 0)
    with pytest.raises(UsageError, match="unknown predictor"):
        predict_data(b"x" * 100, predictors=["oracle"])
    with pytest.raises(UsageError):
        predict_data(b"x" * 100, check_bytes=MIN_CHECK_BYTES - 1)


@pytest.mark.slow
# SQLite's random() is ChaCha20; no attack on L64X128MixRandom is known
@pytest.mark.parametrize("name", ["aes-ctr", "chacha", "siprand", "sqlite-random", "java-l64x128mixrandom"])
def test_no_false_claims_over_64_mib(name):
    report = predict(open_source(name, seed=1), 64 << 20)
    assert report.bytes_read == 64 << 20
    assert report.predictable_from_bytes is None
    assert not any(r.exact_fraction == 1.0 for r in report.predictors)
    assert "no predictor succeeded" in render_predict(report.to_json())
