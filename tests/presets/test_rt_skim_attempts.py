"""benchmarks/rt_skim_attempts.py's choices (issue 31, item 4): the threshold is chosen on validation
only, and the verdict is the target's (at least the LSTM's test accuracy at a skim rate of at least half)."""

import pytest


@pytest.fixture
def attempts(benchmarks):
    import rt_skim_attempts

    return rt_skim_attempts


def _row(threshold, accuracy, skim_rate):
    return {"threshold": threshold, "accuracy": accuracy, "skim_rate": skim_rate, "flop_r": 1.0}


def test_the_threshold_is_the_best_validation_accuracy_among_those_skimming_half(attempts):
    sweep = [_row(0.5, 0.80, 0.2), _row(0.6, 0.76, 0.5), _row(0.7, 0.77, 0.6), _row(0.8, 0.77, 0.7)]
    assert attempts.chosen_on_validation(sweep)["threshold"] == 0.7  # the tie goes to the lower threshold
    assert attempts.chosen_on_validation(sweep[:1]) is None


def _attempt(accuracy, skim_rate=0.0):
    row = {"validation": _row(0.5, accuracy, skim_rate), "test": _row(0.5, accuracy, skim_rate)}
    return {"chosen": {"trained": row}}


def test_the_verdict_compares_with_its_own_baseline_and_the_best_lstm(attempts, monkeypatch):
    monkeypatch.setattr(
        attempts,
        "ATTEMPTS",
        {"lstm_a": {"baseline": None}, "lstm_b": {"baseline": None}, "skim": {"baseline": "lstm_a"}},
    )
    records = {"lstm_a": _attempt(0.74), "lstm_b": _attempt(0.76), "skim": _attempt(0.75, 0.55)}
    row = attempts.verdicts(records)["skim"]["chosen"]["trained"]
    assert row["meets_target_vs_own_baseline"] is True and row["meets_target_vs_best_lstm"] is False
    records["skim"] = _attempt(0.77, 0.45)  # better than both, but skims less than half
    row = attempts.verdicts(records)["skim"]["chosen"]["trained"]
    assert row["meets_target_vs_own_baseline"] is False and row["meets_target_vs_best_lstm"] is False
    assert "meets_target_vs_own_baseline" not in records["lstm_a"]["chosen"]["trained"]


def test_the_committed_results_list_every_attempt_with_its_command(attempts):
    import json
    import os

    with open(os.path.join(attempts.litert_report.RESULTS, attempts.OUT + ".json"), encoding="utf-8") as f:
        recorded = json.load(f)["attempts"]
    assert set(recorded) == set(attempts.ATTEMPTS)
    assert all(rec["command"].startswith("keras-skim train") for rec in recorded.values())
