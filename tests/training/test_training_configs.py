"""The families' training settings (`TextClassifierTrainingConfig`,
`StructuralJumpTrainingConfig`): checked when built, one line per refused
value, and recorded in `train_config.json` field by field (no TensorFlow)."""

import dataclasses

import pytest

from keras_skim.models.structural_jump.structural_jump_config import (
    StructuralJumpTrainingConfig,
    merged_model_options,
    training_arguments,
)
from keras_skim.models.structural_jump.structural_jump_schedule import StructuralJumpSchedule
from keras_skim.models.text_classifier import text_classifier_config
from keras_skim.models.text_classifier.text_classifier_config import TextClassifierTrainingConfig

# The `arguments` of a text classifier's train_config.json, in the order they are written.
TEXT_ARGUMENTS = [
    "output_dir",
    "dataset",
    "cell",
    "units",
    "small_units",
    "gamma",
    "threshold",
    "epochs",
    "batch_size",
    "learning_rate",
    "max_length",
    "max_tokens",
    "glove",
    "limit",
    "seed",
    "split_seed",
    "temperature_rate",
    "train_embedding",
    "early_stopping",
    "patience_steps",
    "dropout",
]


def test_the_text_classifier_record_has_every_setting_in_its_order(tmp_path):
    config = TextClassifierTrainingConfig(cell="lstm", units=8, max_length=30)
    arguments = text_classifier_config.training_arguments(tmp_path / "m", "rotten_tomatoes", config)
    assert list(arguments) == TEXT_ARGUMENTS
    assert arguments["output_dir"] == str(tmp_path / "m") and arguments["dataset"] == "rotten_tomatoes"
    assert (arguments["cell"], arguments["units"], arguments["max_length"]) == ("lstm", 8, 30)
    assert TextClassifierTrainingConfig().cell == "skim-lstm"  # the first cell of the table


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"cell": "sj-lstm"}, "cell must be one of skim-lstm, skim-gru, lstm, gru; got 'sj-lstm'"),
        ({"units": 0}, "units must be an integer >= 1; got 0"),
        ({"epochs": 2.0}, "epochs must be an integer >= 1; got 2.0"),
        ({"max_length": 0}, "max_length must be None or an integer >= 1; got 0"),
        ({"gamma": float("nan")}, "gamma must be a number >= 0; got nan"),
        ({"learning_rate": True}, "learning_rate must be a number >= 0; got True"),
        ({"glove": 1}, "glove must be True or False; got 1"),
        ({"patience_steps": 0}, "patience_steps must be None or an integer >= 1; got 0"),
        (
            {"patience_steps": 10, "early_stopping": False},
            "patience_steps needs early_stopping (it is early stopping counted in steps)",
        ),
    ],
)
def test_a_text_classifier_setting_out_of_range_is_one_line(settings, message):
    with pytest.raises(ValueError) as raised:
        TextClassifierTrainingConfig(**settings)
    assert str(raised.value) == message


def test_the_structural_jump_record_in_epochs_and_in_steps():
    epochs = StructuralJumpTrainingConfig(units=16, batch_size=32, model_options={"train_embedding": True})
    arguments = training_arguments("out", "rotten_tomatoes", epochs, None)
    assert list(arguments)[:3] == ["output_dir", "dataset", "max_length"]
    assert list(arguments)[-3:] == ["schedule", "run_dir", "cell"]
    assert (arguments["full_read_epochs"], arguments["speed_read_epochs"], arguments["schedule"]) == (3, 10, None)
    assert arguments["cell"] == "sj-lstm" and arguments["model_options"] == {"train_embedding": True}
    steps = dataclasses.replace(epochs, schedule="default")
    assert steps.schedule == StructuralJumpSchedule.preset("default")
    arguments = training_arguments(None, None, steps, "runs/x")
    assert "full_read_epochs" not in arguments and "speed_read_epochs" not in arguments
    assert arguments["schedule"] == StructuralJumpSchedule.preset("default").to_dict()
    assert (arguments["output_dir"], arguments["dataset"], arguments["run_dir"]) == (None, None, "runs/x")


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"agent_units": 0}, "agent_units must be an integer >= 1; got 0"),
        ({"full_read_epochs": -1}, "full_read_epochs must be an integer >= 0; got -1"),
        ({"optimizer": "sgd"}, "optimizer must be one of rmsprop_tf1, rmsprop, adam; got 'sgd'"),
        ({"fit_options": [1]}, "fit_options must be None or a dict; got [1]"),
        ({"schedule": "fast"}, "schedule must be one of ['authors', 'default']. Received: 'fast'"),
        (
            {"schedule": "default", "model_options": {"rolling_weight": 0.15}},
            "rolling_weight is given twice: 0.15 in model_options and 0.1 in the schedule; give it in one place",
        ),
    ],
)
def test_a_structural_jump_setting_out_of_range_is_one_line(settings, message):
    with pytest.raises(ValueError) as raised:
        StructuralJumpTrainingConfig(**settings)
    assert str(raised.value) == message


def test_the_model_options_take_the_schedule_s_rolling_weight():
    default = StructuralJumpSchedule.preset("default")
    assert merged_model_options({"advantage": "code"}, default) == {"advantage": "code", "rolling_weight": 0.1}
    assert merged_model_options(None, None) == {}


def test_a_schedule_in_epochs_validates_once_an_epoch():
    schedule = StructuralJumpSchedule.in_epochs(12, 4, 6, full_read_patience=2, speed_read_patience=None)
    assert (schedule.full_read_steps, schedule.speed_read_steps, schedule.validate_every) == (48, 72, 12)
    assert (schedule.full_read_patience, schedule.speed_read_patience, schedule.entropy_decay_steps) == (2, None, 36)
    assert StructuralJumpSchedule.in_epochs(5, 1, 0).entropy_decay_steps == 1
    with pytest.raises(ValueError, match="steps_per_epoch must be an integer >= 1"):
        StructuralJumpSchedule.in_epochs(0, 1, 1)


def test_the_epoch_trainer_is_the_step_loop_on_a_schedule_in_epochs(monkeypatch):
    import numpy as np

    from keras_skim.models.structural_jump import structural_jump_steps, structural_jump_training

    calls = []

    def step_loop(model, train, validation, schedule, **options):
        calls.append((schedule, options))
        phase = "full_read" if schedule.full_read_steps else "speed_read"
        steps = schedule.full_read_steps or schedule.speed_read_steps
        records = [
            {
                "train": {"loss": 1.0 / step, "read_fraction": 1.0},
                **dict.fromkeys(("accuracy", "read_fraction", "skip_fraction", "jump_fraction", "reward"), 0.5),
                "flop_r": 2.0,
                "entropy_weight": 0.1,
            }
            for step in range(schedule.validate_every, steps + 1, schedule.validate_every)
        ]
        summary = {"steps_run": steps, "seconds": 2.0, "history": records, "selection": "best validation reward"}
        summary.update({"validation_accuracy": 0.75} if phase == "full_read" else {"selected_step": steps})
        return {phase: summary, "history": records, "run_dir": None}

    monkeypatch.setattr(structural_jump_steps, "fit_structural_jump_steps", step_loop)
    train = (np.ones((40, 5), "int32"), np.zeros(40, "int32"))  # 4 batches of 10
    results = structural_jump_training.fit_structural_jump(
        None, train, train, full_read_epochs=2, speed_read_epochs=3, batch_size=10, read_budget=0.5, verbose=0
    )
    (full, full_options), (speed, _) = calls
    assert (full.full_read_steps, full.speed_read_steps, full.validate_every, full.full_read_patience) == (8, 0, 4, 2)
    assert (speed.full_read_steps, speed.speed_read_steps, speed.entropy_decay_steps) == (0, 12, 6)
    assert speed.speed_read_patience is None  # never early: the best epoch is kept either way
    assert full_options["read_budget"] == 0.5 and full_options["run_dir"] is None  # no checkpoint in epochs
    assert results["full_read"]["epochs_run"] == 2 and results["full_read"]["validation_accuracy"] == 0.75
    assert results["full_read"]["history"]["read_fraction"] == [1.0, 1.0]
    assert results["full_read"]["history"]["val_flop_r"] == [2.0, 2.0]
    assert results["speed_read"]["selected_epoch"] == 3 and results["speed_read"]["seconds_per_epoch"] == 2.0 / 3
