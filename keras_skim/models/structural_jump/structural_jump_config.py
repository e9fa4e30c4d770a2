"""Structural-Jump-LSTM's training settings, as one typed value.

`keras-skim train --cell sj-lstm` builds a `StructuralJumpTrainingConfig`
from its options and passes it whole to
`structural_jump_training.train_structural_jump_model`; `train_config.json`
records its fields (`training_arguments`).
"""

import dataclasses
import os

from keras_skim.models.structural_jump.structural_jump_schedule import StructuralJumpSchedule
from keras_skim.training.settings import check_flag, check_integer, check_number

OPTIMIZERS = ("rmsprop_tf1", "rmsprop", "adam")


@dataclasses.dataclass(frozen=True)
class StructuralJumpTrainingConfig:
    """How to train a Structural-Jump-LSTM classifier.

    Args:
        max_length: tokens per text (raw, punctuation included); None: the
            data's (400 for IMDB, 50 for Rotten Tomatoes, 200 others).
        max_tokens: vocabulary size of a fitted tokenizer.
        glove: initialise the embedding with GloVe 6B (`embedding_dim`).
        embedding_dim, units, agent_units: d, m, a.
        full_read_epochs, speed_read_epochs: the phases' lengths in epochs
            (without a `schedule`; 0 skips a phase).
        batch_size: documents per batch; None: the paper's (32 for Rotten
            Tomatoes and other data, 100 for IMDB).
        learning_rate, speed_learning_rate: of phases 1 and 2 (the paper's
            0.0005 for both).
        optimizer: phase 1's ("rmsprop_tf1", "rmsprop" or "adam",
            `make_optimizer`); a fresh one per phase.
        speed_optimizer: phase 2's; None: `optimizer`.
        limit: train on a seeded class-balanced subset of this many texts
            (the evaluation splits shrink to limit // 4, at least 100).
        seed: seed of everything random.
        split_seed: seed of the held-out split of data without its own.
        model_options: extra `StructuralJumpLSTM` arguments (e.g.
            `{"advantage": "code"}`); a schedule's `rolling_weight`, when
            it has one, is added to them (`merged_model_options`).
        fit_options: extra arguments of the phases' loop (e.g.
            `read_budget`).
        schedule: a `StructuralJumpSchedule` (or a preset name, "authors"
            or "default"): train on this schedule in steps (validation
            every N steps, a history of every validation, resumable)
            instead of the epochs above.

    Raises:
        ValueError: a setting out of its range, or a rolling weight given
            both in `model_options` and in the schedule (one line).
    """

    max_length: int = None
    max_tokens: int = 20000
    glove: bool = True
    embedding_dim: int = 50
    units: int = 128
    agent_units: int = 25
    full_read_epochs: int = 3
    speed_read_epochs: int = 10
    batch_size: int = None
    learning_rate: float = 5e-4
    speed_learning_rate: float = 5e-4
    optimizer: str = "rmsprop_tf1"
    speed_optimizer: str = None
    limit: int = None
    seed: int = 0
    split_seed: int = 0
    model_options: dict = None
    fit_options: dict = None
    schedule: StructuralJumpSchedule = None

    def __post_init__(self):
        if isinstance(self.schedule, str):
            object.__setattr__(self, "schedule", StructuralJumpSchedule.preset(self.schedule))
        if self.schedule is not None and not isinstance(self.schedule, StructuralJumpSchedule):
            raise ValueError(f"schedule must be None, a preset name or a StructuralJumpSchedule; got {self.schedule!r}")
        for name in ("max_tokens", "embedding_dim", "units", "agent_units"):
            check_integer(name, getattr(self, name), 1)
        for name in ("max_length", "batch_size", "limit"):
            check_integer(name, getattr(self, name), 1, optional=True)
        for name in ("full_read_epochs", "speed_read_epochs", "seed", "split_seed"):
            check_integer(name, getattr(self, name), 0)
        for name in ("learning_rate", "speed_learning_rate"):
            check_number(name, getattr(self, name))
        check_flag("glove", self.glove)
        for name in ("optimizer", "speed_optimizer"):
            value = getattr(self, name)
            if value not in OPTIMIZERS and not (name == "speed_optimizer" and value is None):
                raise ValueError(f"{name} must be one of {', '.join(OPTIMIZERS)}; got {value!r}")
        for name in ("model_options", "fit_options"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), dict):
                raise ValueError(f"{name} must be None or a dict; got {getattr(self, name)!r}")
        merged_model_options(self.model_options, self.schedule)  # a weight given twice fails before the data loads


def merged_model_options(model_options, schedule):
    """The extra `StructuralJumpLSTM` arguments: `model_options` and the
    schedule's reward weight (a recipe's trade-off), given in one place."""
    options = dict(model_options or {})
    weight = None if schedule is None else schedule.rolling_weight
    if weight is not None:
        if options.get("rolling_weight", weight) != weight:
            raise ValueError(
                f"rolling_weight is given twice: {options['rolling_weight']} in model_options and {weight} "
                "in the schedule; give it in one place"
            )
        options["rolling_weight"] = weight
    return options


def training_arguments(output_dir, dataset, config, run_dir):
    """The `arguments` of `train_config.json`: the output folder, the data
    (its resolved spec, None for encoded data), the settings of `config`
    (a schedule in steps as its `to_dict`, without the epoch counts it
    replaces), the run's checkpoint folder and the `--cell`."""
    arguments = {"output_dir": None if output_dir is None else os.fspath(output_dir), "dataset": dataset}
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        arguments[field.name] = dict(value) if isinstance(value, dict) else value
    if config.schedule is not None:
        arguments["schedule"] = config.schedule.to_dict()
        del arguments["full_read_epochs"], arguments["speed_read_epochs"]
    arguments["run_dir"] = None if run_dir is None else os.fspath(run_dir)
    arguments["cell"] = "sj-lstm"  # the `keras-skim train --cell` of this model
    return arguments
