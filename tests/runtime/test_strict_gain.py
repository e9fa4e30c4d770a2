"""`keras-skim bench`'s strict gain: a skim export's speed-up over itself at threshold 0 (reading every
token), reported beside the speed-up against the baseline when the sweep has both (issue 36)."""

import types

import numpy as np
import pytest

from keras_skim.runtime import bench

SKIM_META = {
    "format": "keras_skim.export",
    "model_kind": "skim_lstm",
    "units": 16,
    "small_units": 4,
    "embedding_dim": 8,
    "vocabulary_size": 100,
    "num_classes": 2,
    "output_activation": "softmax",
    "default_threshold": 0.5,
    "backend": "custom",
    "flops": {"baseline_flops_per_token": 100, "read_flops_per_token": 110, "skim_flops_per_token": 10},
}
LSTM_META = dict(SKIM_META, model_kind="lstm", small_units=0, default_threshold=None, backend="builtin", flops=None)


class _Clock:
    now = 0.0


class _Timed:
    """A runner whose calls take scripted seconds on a fake clock: `seconds(threshold)` per token;
    it reads every token at threshold 0 and one token in four above."""

    def __init__(self, metadata, seconds, clock):
        self.metadata, self.seconds, self.clock = metadata, seconds, clock

    def prepare(self, ids, threshold=None):
        return np.asarray(ids, np.int32).reshape(1, -1), np.float32(threshold or 0.0)

    def invoke(self, ids, threshold):
        n = ids.shape[-1]
        self.clock.now += self.seconds(float(threshold)) * n
        reads = n if threshold <= 0.0 else n // 4
        return {"logits": np.zeros((1, 2), np.float32), "read_count": np.asarray([reads], np.int32)}


@pytest.fixture
def sweep(monkeypatch):
    """Results of a sweep over thresholds 0 and 0.5 with a baseline: the model takes 2 s per token
    reading all and 0.5 s at 0.5, the baseline 3 s."""
    clock = _Clock()
    monkeypatch.setattr(bench, "time", types.SimpleNamespace(perf_counter=lambda: clock.now))
    model = _Timed(SKIM_META, lambda t: 2.0 if t <= 0.0 else 0.5, clock)
    baseline = _Timed(LSTM_META, lambda t: 3.0, clock)
    ids = [np.arange(1, 9), np.arange(1, 5)]
    results = [bench.bench_threshold(model, baseline, ids, ids, None, t, repeats=3) for t in (0.0, 0.5)]
    bench.add_strict_speedups(results)
    return results


def test_strict_gain_is_against_the_same_export_reading_every_token(sweep):
    reading_all, skimming = sweep
    assert reading_all["speedup"] == pytest.approx(1.5) and reading_all["strict_speedup"] == pytest.approx(1.0)
    assert skimming["speedup"] == pytest.approx(6.0)  # against the baseline
    assert skimming["strict_speedup"] == pytest.approx(4.0)  # against itself at threshold 0
    assert skimming["skim_rate"] == pytest.approx(0.75)
    flop_r = 100 / (0.25 * 110 + 0.75 * 10)
    assert skimming["strict_speedup_over_flop_r"] == pytest.approx(4.0 / flop_r)
    assert skimming["speedup_over_flop_r"] == pytest.approx(6.0 / flop_r)


def test_no_strict_gain_without_a_threshold_0_row_or_a_baseline(monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(bench, "time", types.SimpleNamespace(perf_counter=lambda: clock.now))
    model = _Timed(SKIM_META, lambda t: 1.0, clock)
    baseline = _Timed(LSTM_META, lambda t: 3.0, clock)
    ids = [np.arange(1, 5)]
    with_baseline = [bench.bench_threshold(model, baseline, ids, ids, None, 0.5, repeats=1)]
    bench.add_strict_speedups(with_baseline)
    alone = [bench.bench_threshold(model, None, ids, ids, None, t, repeats=1) for t in (0.0, 0.5)]
    bench.add_strict_speedups(alone)
    assert not any("strict_speedup" in r for r in with_baseline + alone)


def test_markdown_shows_both_gains_beside_each_other(sweep):
    report = {
        "model": "m.tflite",
        "model_kind": "skim_lstm",
        "units": 16,
        "small_units": 4,
        "backend": "custom",
        "baseline": "b.tflite",
        "baseline_kind": "lstm",
        "baseline_backend": "builtin",
        "data": "ids",
        "samples": 2,
        "mean_tokens": 6.0,
        "threads": 1,
        "repeats": 3,
        "results": sweep,
        "peak_rss_mb": 1.0,
        "machine": {"platform": "p", "processor": "x", "cpu_count": 2, "python": "3.11"},
        "versions": {},
        "command": "keras-skim bench",
    }
    lines = bench.markdown_report(report).splitlines()
    assert lines[-4] == "| threshold | skim rate | Flop-R | speed-up vs baseline | / Flop-R | strict gain | / Flop-R |"
    flop_r = 100 / (0.25 * 110 + 0.75 * 10)
    assert lines[-1] == (f"| 0.50 | 0.750 | {flop_r:.2f} | 6.00 | {6.0 / flop_r:.2f} | 4.00 | {4.0 / flop_r:.2f} |")
    # Without strict gains (a report of the app, or no threshold-0 row) the table is the old one.
    for r in sweep:
        r.pop("strict_speedup"), r.pop("strict_speedup_over_flop_r")
    assert "strict gain" not in bench.markdown_report(report)
