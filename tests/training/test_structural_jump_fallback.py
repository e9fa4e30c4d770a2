"""The default schedule's promise on real (tiny) training: phase 2 keeps the
least-read validation within the floor under the full reader; when no
speed-read validation reaches it, the reading cost goes down the control's
ladder and, failing that, the full reader is kept (every word read, its
weights), also after a stop and a resume, and the outcome is said in words."""

import keras
import numpy as np
import pytest

from keras_skim.models.structural_jump import structural_jump_evaluation
from keras_skim.models.structural_jump.structural_jump_evaluation import evaluate_structural_jump
from keras_skim.models.structural_jump.structural_jump_lstm import StructuralJumpLSTM
from keras_skim.models.structural_jump.structural_jump_schedule import StructuralJumpSchedule
from keras_skim.models.structural_jump.structural_jump_steps import fit_structural_jump_steps
from keras_skim.training.run_checkpoint import RunCheckpoint, TrainingInterrupted


def _schedule(points, speed_read_patience=None):
    return StructuralJumpSchedule.preset(
        "default",
        full_read_steps=2,
        speed_read_steps=4,
        validate_every=1,
        full_read_patience=None,
        speed_read_patience=speed_read_patience,
        entropy_decay_steps=4,
        selection_start_steps=2,
        accuracy_floor_points=points,
        # One rung each way: each rung's w is traced into its own training step (seconds of CPU
        # each); the climb over several rungs is tests/training/test_structural_jump_reading_cost.py's.
        rolling_weight_levels=1,
    )


def _data(n, rs):
    ids = rs.randint(5, 40, (n, 12)).astype("int32")
    ids[:, 3], ids[:, 7] = 2, 3
    return ids, (ids[:, 0] % 2).astype("int32")


def _model():
    keras.utils.set_random_seed(0)
    return StructuralJumpLSTM(40, [2], [3], units=8, agent_units=4, embedding_dim=5, seed=0, rolling_weight=0.1)


def _fit(model, points, patience=None, **kwargs):
    rs = np.random.RandomState(0)
    train, validation = _data(48, rs), _data(16, rs)
    schedule = _schedule(points, patience)
    results = fit_structural_jump_steps(
        model, train, validation, schedule, batch_size=16, optimizer="rmsprop_tf1", verbose=0, **kwargs
    )
    return results, validation


@pytest.fixture
def speed_reading_falls_short(monkeypatch):
    """Every speed-read validation 0.5 under what the greedy policy scores: none reaches the floor."""

    def scored(model, ids, labels, **kwargs):
        scores = evaluate_structural_jump(model, ids, labels, **kwargs)
        if model.speed_reading:
            scores = {**scores, "accuracy": scores["accuracy"] - 0.5}
        return scores

    monkeypatch.setattr(structural_jump_evaluation, "evaluate_structural_jump", scored)


def test_a_speed_read_validation_within_the_floor_is_kept():
    model = _model()
    # A floor a whole unit under the full reader: every speed-read validation reaches it.
    results, _ = _fit(model, points=1.0)
    outcome = results["speed_read"]["speed_reading"]
    assert outcome["kept"] == "speed-read" and model.speed_reading
    assert outcome["floor"] == pytest.approx(results["full_read"]["validation_accuracy"] - 1.0)
    assert outcome["why"].startswith("the least-read validation within 100 points of the full reader")
    history = [r for r in results["history"] if r["phase"] == "speed_read" and r["step"] >= 2]
    kept = results["speed_read"]["selected_step"]
    assert kept is not None
    assert history[kept - 2]["read_fraction"] == min(r["read_fraction"] for r in history)
    # Every validation at or above the floor: the control raises the cost a rung each time, up to its top.
    assert [r["rolling_weight"] for r in results["history"] if r["phase"] == "speed_read"] == pytest.approx(
        [0.1, 0.15, 0.15, 0.15]
    )


def test_no_speed_read_validation_reaching_the_floor_keeps_the_full_reader(speed_reading_falls_short, tmp_path):
    model = _model()
    run_dir = tmp_path / "run"
    # Stopped in phase 2: the full reader's weights must come back from the checkpoint.
    with pytest.raises(TrainingInterrupted):
        _fit(model, points=0.01, patience=1, run_dir=run_dir, max_steps=3)
    state, arrays = RunCheckpoint(run_dir).load()
    assert state["phase"] == "speed_read" and "full_reader/0" in arrays
    full_reader = [arrays[f"full_reader/{i}"] for i in range(len(model.weights))]

    results, validation = _fit(model, points=0.01, patience=1, run_dir=run_dir, resume=True)
    outcome = results["speed_read"]["speed_reading"]
    assert outcome["kept"] == "full-reader" and results["speed_read"]["selected_step"] is None
    # A patience of one validation, yet the phase ran its budget: it waits while short of the floor.
    assert results["speed_read"]["stopped"] == "budget" and results["speed_read"]["steps_run"] == 4
    assert outcome["why"].startswith(f"no speed-read validation reached the floor {outcome['floor']:.4f} (1 point")
    # The control lowered the reading cost after each validation under the floor, down to its bottom rung.
    weights = [r["rolling_weight"] for r in results["history"] if r["phase"] == "speed_read"]
    assert weights == pytest.approx([0.1, 0.1 / 1.5, 0.1 / 1.5, 0.1 / 1.5])
    assert "with the reading cost lowered down to w 0.0667" in outcome["why"]
    # The model kept is the full reader: its weights, every word read, the model's own w.
    assert not model.speed_reading and model.rolling_weight == 0.1
    for kept, saved in zip(model.get_weights(), full_reader):
        np.testing.assert_array_equal(kept, saved)
    scores = evaluate_structural_jump(model, *validation)
    assert scores["read_fraction"] == 1.0
    assert scores["accuracy"] == pytest.approx(results["full_read"]["validation_accuracy"])


def test_without_the_fallback_the_most_accurate_speed_reader_stays(speed_reading_falls_short):
    model = _model()
    rs = np.random.RandomState(0)
    train, validation = _data(48, rs), _data(16, rs)
    # Without the reading cost control too: one traced speed-read step (the control is the other tests').
    settings = {**_schedule(0.01).__dict__, "full_reader_fallback": False, "rolling_weight_factor": None}
    schedule = StructuralJumpSchedule(**settings)
    results = fit_structural_jump_steps(model, train, validation, schedule, batch_size=16, verbose=0)
    outcome = results["speed_read"]["speed_reading"]
    assert outcome["kept"] == "speed-read" and model.speed_reading
    assert outcome["why"].startswith("no speed-read validation reached the floor")
