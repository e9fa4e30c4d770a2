"""The default schedule's reading cost control: the rolling weight w climbs or
falls one rung after each speed-read validation as the accuracy floor says,
the model trains with the rung's w, keeps the w of its kept step, and a
stopped run resumes on the same rung."""

import signal

import keras
import numpy as np
import pytest

from keras_skim.models.structural_jump.structural_jump_lstm import StructuralJumpLSTM
from keras_skim.models.structural_jump.structural_jump_reading_cost import next_level, rung_weight
from keras_skim.models.structural_jump.structural_jump_schedule import StructuralJumpSchedule
from keras_skim.models.structural_jump.structural_jump_steps import fit_structural_jump_steps
from keras_skim.training.run_checkpoint import RunCheckpoint, TrainingInterrupted


def _schedule():
    return StructuralJumpSchedule(
        full_read_steps=1,
        speed_read_steps=4,
        validate_every=1,
        full_read_patience=None,
        speed_read_patience=None,
        entropy_decay_steps=4,
        # A floor far below any accuracy: every validation is above it, so w climbs at each one.
        accuracy_floor_standard_errors=100.0,
        rolling_weight_factor=2.0,
        rolling_weight_levels=1,
    )


def _data(n, rs):
    ids = rs.randint(5, 40, (n, 12)).astype("int32")
    ids[:, 3], ids[:, 7] = 2, 3
    return ids, (ids[:, 0] % 2).astype("int32")


@pytest.fixture(scope="module")
def model_and_start():
    keras.utils.set_random_seed(0)
    model = StructuralJumpLSTM(40, [2], [3], units=8, agent_units=4, embedding_dim=5, seed=0, rolling_weight=0.1)
    return model, [np.array(v) for v in model.variables]


def _fit(model, **kwargs):
    rs = np.random.RandomState(0)
    train, validation = _data(48, rs), _data(16, rs)
    return fit_structural_jump_steps(
        model, train, validation, _schedule(), batch_size=16, optimizer="rmsprop_tf1", verbose=0, **kwargs
    )


def _speed_history(results):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in results["history"] if r["phase"] == "speed_read"]


def test_the_ladder():
    assert [rung_weight(0.1, 1.5, k) for k in (-1, 0, 2)] == pytest.approx([0.1 / 1.5, 0.1, 0.225])
    assert next_level(0, 0.70, 0.70, 3) == 1  # at the floor counts as above it
    assert next_level(0, 0.69, 0.70, 3) == -1
    assert next_level(3, 0.9, 0.7, 3) == 3 and next_level(-3, 0.1, 0.7, 3) == -3
    assert next_level(0, 0.9, 0.7, 0) == 0


def test_the_schedule_checks_its_control_fields():
    with pytest.raises(ValueError, match="rolling_weight_factor must be None or a number > 1"):
        StructuralJumpSchedule(rolling_weight_factor=1.0, accuracy_floor_standard_errors=1.0)
    with pytest.raises(ValueError, match="needs accuracy_floor_standard_errors or accuracy_floor_points"):
        StructuralJumpSchedule(rolling_weight_factor=1.5)
    with pytest.raises(ValueError, match="rolling_weight_levels"):
        StructuralJumpSchedule(rolling_weight_factor=1.5, accuracy_floor_standard_errors=1.0, rolling_weight_levels=-1)
    # Without the control its fields stay out of the settings (checkpoints of older runs match).
    assert "rolling_weight_levels" not in StructuralJumpSchedule().to_dict()
    assert _schedule().to_dict()["rolling_weight_levels"] == 1


def test_w_climbs_a_rung_per_validation_and_a_stopped_run_resumes_on_its_rung(tmp_path):
    keras.utils.set_random_seed(0)
    model = StructuralJumpLSTM(40, [2], [3], units=8, agent_units=4, embedding_dim=5, seed=0, rolling_weight=0.1)
    run_dir = tmp_path / "run"
    train_on_batch = model.train_on_batch

    # Ctrl-C during speed-read step 1: its validation still climbs a rung before the run stops, and
    # the second rung's step is traced once, by the resumed run (each rung's w is a trace of its own).
    def interrupted(*args, **kwargs):
        logs = train_on_batch(*args, **kwargs)
        if model.speed_reading and model.optimizer.iterations.numpy() == 1:
            signal.raise_signal(signal.SIGINT)
        return logs

    model.train_on_batch = interrupted
    try:
        with pytest.raises(TrainingInterrupted):
            _fit(model, run_dir=run_dir)
    finally:
        del model.train_on_batch
    state, _ = RunCheckpoint(run_dir).load()
    assert state["phase"] == "speed_read" and state["phase_step"] == 1 and state["rolling_level"] == 1
    assert [r["rolling_weight"] for r in state["history"] if r["phase"] == "speed_read"] == [0.1]

    assert model.rolling_weight == 0.1  # the model's own again: the rung comes from the checkpoint
    results = _fit(model, run_dir=run_dir, resume=True)
    history = [r for r in results["history"] if r["phase"] == "speed_read"]
    # The weight each validation's preceding steps trained with: 0.1, then one rung up per validation, capped
    # (steps 2-4 on the checkpoint's rung: on the model's own w, step 2's record would say 0.1).
    assert [r["rolling_weight"] for r in history] == pytest.approx([0.1, 0.2, 0.2, 0.2])
    kept = results["speed_read"]["selected_step"]
    # The model keeps the w of its kept step, and the training step traced for it.
    assert model.rolling_weight == results["speed_read"]["rolling_weight"] == history[kept - 1]["rolling_weight"]
    assert results["full_read"]["validation_accuracy"] is not None
