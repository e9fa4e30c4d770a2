"""Structural-Jump-LSTM on a schedule in steps: a run stopped and resumed from its
checkpoint takes exactly the steps of a run never stopped; the checkpoint is
replaced atomically; the schedule presets and the history plot."""

import os
import signal

import keras
import numpy as np
import pytest

from keras_skim.models.structural_jump.structural_jump_lstm import StructuralJumpLSTM
from keras_skim.models.structural_jump.structural_jump_schedule import StructuralJumpSchedule
from keras_skim.models.structural_jump.structural_jump_steps import fit_structural_jump_steps
from keras_skim.training.run_checkpoint import (
    CheckpointMismatch,
    CheckpointUnwritable,
    RunCheckpoint,
    RunExists,
    TrainingInterrupted,
    default_run_name,
)

# Speed reading only: one model, and so one traced training step, serves every run of this file
# (a fresh optimizer of the same settings is reset in place, not recompiled; `shared_model`).
SCHEDULE = StructuralJumpSchedule(
    full_read_steps=0,
    speed_read_steps=6,
    validate_every=2,
    speed_read_patience=None,
    entropy_decay_steps=4,
    critic_warmup_steps=1,
)


def _data(n, rs):
    ids = rs.randint(5, 40, (n, 12)).astype("int32")
    ids[:, 3], ids[:, 7] = 2, 3  # a comma and a period in every text
    return ids, (ids[:, 0] % 2).astype("int32")


@pytest.fixture(scope="module")
def shared_model():
    """`(model, start)`: the file's one model and its variables' first values (weights and
    random seed states). Tracing a training step takes seconds of CPU on this model; a new
    model per run would trace it again. Each test starts its runs with `_reset(model, start)`."""
    keras.utils.set_random_seed(0)
    model = StructuralJumpLSTM(40, [2], [3], units=8, agent_units=4, embedding_dim=5, seed=0)
    return model, [np.array(v) for v in model.variables]


def _fit(model, schedule=SCHEDULE, **kwargs):
    rs = np.random.RandomState(0)
    train, validation = _data(48, rs), _data(16, rs)
    return fit_structural_jump_steps(
        model, train, validation, schedule, batch_size=16, optimizer="rmsprop_tf1", verbose=0, **kwargs
    )


def _without_time(history):
    return [{k: v for k, v in record.items() if k != "seconds"} for record in history]


def _reset(model, values):
    for variable, value in zip(model.variables, values):  # weights and random seed states
        variable.assign(value)


def test_a_stopped_and_resumed_run_repeats_the_uninterrupted_one(tmp_path, shared_model):
    model, start = shared_model
    _reset(model, start)
    expected = _fit(model)
    final = model.get_weights()
    assert [(r["phase"], r["step"]) for r in expected["history"]] == [("speed_read", s) for s in (2, 4, 6)]
    # delta before steps 1, 3, 5 of a decay over 4 steps; beta 0 for the first step only
    assert [r["entropy_weight"] for r in expected["history"]] == pytest.approx([0.07625, 0.02875, 0.005])
    assert [r["actor_weight"] for r in expected["history"]] == [10.0] * 3
    assert set(expected["history"][0]["train"]) >= {"loss", "reward", "read_fraction", "actor_loss"}
    assert len({r["reward"] for r in expected["history"]}) > 1  # the steps changed the policy

    run_dir = tmp_path / "run"
    _reset(model, start)
    train_on_batch = model.train_on_batch

    def interrupted_at_step_3(*args, **kwargs):  # Ctrl-C during step 3, one step past a validation
        logs = train_on_batch(*args, **kwargs)
        if model.optimizer.iterations.numpy() == 3:
            signal.raise_signal(signal.SIGINT)
        return logs

    model.train_on_batch = interrupted_at_step_3
    handler = signal.getsignal(signal.SIGINT)
    try:
        with pytest.raises(TrainingInterrupted) as stopped:
            _fit(model, run_dir=run_dir)
    finally:
        del model.train_on_batch  # the model is the other tests' too
    assert (stopped.value.phase, stopped.value.step) == ("speed_read", 3)
    assert signal.getsignal(signal.SIGINT) is handler  # given back
    state, _ = RunCheckpoint(run_dir).load()
    assert state["phase_step"] == 3 and len(state["history"]) == 1
    with pytest.raises(RunExists, match="--resume"):
        _fit(model, run_dir=run_dir)
    _reset(model, start)  # everything must come from the checkpoint
    resumed = _fit(model, run_dir=run_dir, resume=True)

    assert _without_time(resumed["history"]) == _without_time(expected["history"])
    for a, b in zip(model.get_weights(), final):
        np.testing.assert_array_equal(a, b)
    assert resumed["speed_read"]["selected_step"] == expected["speed_read"]["selected_step"]
    assert model.speed_reading and not model.embedding.trainable
    with pytest.raises(TrainingInterrupted):
        _reset(model, start)
        _fit(model, run_dir=tmp_path / "other", max_steps=1)  # a step limit stops a run too


def test_speed_read_selection_and_patience_start_late(shared_model):
    model, start = shared_model
    schedule = StructuralJumpSchedule(
        full_read_steps=0,
        speed_read_steps=6,
        validate_every=1,
        speed_read_patience=1,
        entropy_decay_steps=4,
        selection_start_steps=4,
    )
    _reset(model, start)
    results = _fit(model, schedule)
    history = results["history"]
    # Validations 1-3 neither count for patience nor can be kept.
    assert [r["step"] for r in history][:5] == [1, 2, 3, 4, 5]
    late = [r for r in history if r["step"] >= 4]
    assert results["speed_read"]["selected_step"] == max(late, key=lambda r: r["reward"])["step"]
    assert results["speed_read"]["selection"] == "best validation reward from step 4 on"
    # A budget below the start keeps the last validation.
    _reset(model, start)
    short = _fit(model, StructuralJumpSchedule(full_read_steps=0, speed_read_steps=2, selection_start_steps=9))
    assert short["speed_read"]["selected_step"] == 2


def test_a_checkpoint_of_other_settings_is_refused(tmp_path, shared_model):
    RunCheckpoint(tmp_path).save(
        {"version": 1, "settings": {"schedule": {"speed_read_steps": 99}}}, {"model/0": np.zeros(1)}
    )
    with pytest.raises(CheckpointMismatch, match="schedule.speed_read_steps: 99 then"):
        _fit(shared_model[0], run_dir=tmp_path, resume=True)


def test_checkpoint_replacement_is_atomic(tmp_path, monkeypatch):
    checkpoint = RunCheckpoint(tmp_path)
    checkpoint.save({"step": 1}, {"w": np.arange(3)})

    def broken_savez(file, **arrays):
        file.write(b"PK half a zip")
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez", broken_savez)
    with pytest.raises(CheckpointUnwritable, match="disk full"):  # one line (issue 30, row 8)
        checkpoint.save({"step": 2}, {"w": np.arange(4)})
    state, arrays = checkpoint.load()
    assert state == {"step": 1} and arrays["w"].tolist() == [0, 1, 2]
    assert os.listdir(tmp_path) == ["checkpoint.npz"]  # no temporary file left
    with pytest.raises(ValueError, match="reserved"):
        checkpoint.save({}, {"state.json": np.zeros(1)})


def test_run_names_depend_on_the_whole_output_path():
    assert default_run_name("/a/model").startswith("model-")
    assert default_run_name("/a/model") != default_run_name("/b/model")
    assert default_run_name("/a/model/") == default_run_name("/a/model")


def test_schedule_presets_and_checks():
    authors = StructuralJumpSchedule.preset("authors")
    assert (authors.speed_read_steps, authors.validate_every, authors.speed_read_patience) == (30999, 200, 100)
    assert (authors.entropy_decay_steps, authors.critic_warmup_steps) == (15499, 0)
    assert authors.entropy_weight_at(0) == 0.1 and authors.entropy_weight_at(10**6) == pytest.approx(0.005)
    assert StructuralJumpSchedule(speed_read_steps=10).entropy_decay_steps == 5  # half, as the code
    assert StructuralJumpSchedule.preset("default", speed_read_steps=7).speed_read_steps == 7
    default = StructuralJumpSchedule.preset("default")
    assert (default.speed_read_steps, default.entropy_decay_steps, default.selection_start_steps) == (3000, 1500, 1500)
    # A run without a selection start keeps the settings (and checkpoints) written before the field existed.
    assert "selection_start_steps" not in authors.to_dict()
    assert default.to_dict()["selection_start_steps"] == 1500
    with pytest.raises(ValueError, match="schedule must be one of"):
        StructuralJumpSchedule.preset("fast")
    with pytest.raises(ValueError, match="validate_every must be an integer >= 1"):
        StructuralJumpSchedule(validate_every=0)
    with pytest.raises(ValueError, match="nothing to train"):
        StructuralJumpSchedule(full_read_steps=0, speed_read_steps=0)
    for name, bad in (("final_entropy_weight", -0.1), ("rolling_weight", float("nan")), ("rolling_weight", True)):
        expected = "a number >= 0" if name.endswith("entropy_weight") else "None or a number >= 0"
        with pytest.raises(ValueError, match=f"{name} must be {expected}. Received"):
            StructuralJumpSchedule(**{name: bad})
    with pytest.raises(ValueError, match="accuracy_floor_standard_errors must be None or a number >= 0"):
        StructuralJumpSchedule(accuracy_floor_standard_errors="1")


def test_history_plot_is_a_png(tmp_path):
    from keras_skim.models.structural_jump.structural_jump_history_plot import plot_structural_jump_history

    record = dict(accuracy=0.8, reward=0.7, read_fraction=1.0, skip_fraction=0.0, jump_fraction=0.0)
    history = [
        {**record, "phase": "full_read", "total_step": 2, "entropy_weight": 0.1},
        {**record, "phase": "speed_read", "total_step": 4, "entropy_weight": 0.05, "read_fraction": 0.4},
    ]
    path = plot_structural_jump_history(history, tmp_path / "h.png", title="t")
    with open(path, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="no validation records"):
        plot_structural_jump_history([], tmp_path / "e.png")
