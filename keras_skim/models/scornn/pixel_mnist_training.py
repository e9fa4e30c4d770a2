"""Pixel-by-pixel MNIST with a scoRNN, as Helfrich, Willmott and Ye (ICML 2018) train it, into a model folder.

The protocol is the paper's: n = 170 hidden units, RMSprop with learning rate 1e-3 for every weight but the
skew-symmetric `A` and 1e-4 for `A` (`scornn_optimizer`), batch 50, 70 epochs; the kept weights are those of
the epoch with the best validation accuracy (a 1/12 hold-out of the train split, as the paper's 5,000 of
60,000: `keras_skim.datasets.sequence_data`), and the test split is evaluated once, at the end, with them.

The model folder is the one every keras-skim command reads (`training.pipeline.write_model_folder`):
`model.keras` (`Input((784, 1)) -> RNN(ScoRNNCell) -> Dense(10)`, which `keras-skim export` writes as a
float-sequence export that `SkimRunner(folder).run_sequence` runs) and `train_config.json` (the settings, a
`data` section naming the sequence data set, the history, the best epoch, validation and test results); no
`tokenizer.json`, as the model reads no text.

With a `run_dir` the fit is checkpointed at each epoch's end (`training.epoch_checkpoint.EpochCheckpoint`:
model, optimizer, history, best-so-far weights, in one atomic file) and resumes from it, ending as a run that
never stopped would:

    from keras_skim.models.scornn.pixel_mnist_training import PixelMnistConfig, train_pixel_mnist

    record = train_pixel_mnist("runs/scornn_pixel_mnist", PixelMnistConfig(), run_dir="...", resume=True)
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from keras_skim.training import settings as checks

DATASET = "mnist"
MODEL = "scornn"
CHECKPOINT_FORMAT = "pixel_mnist_scornn"


@dataclasses.dataclass
class PixelMnistConfig:
    """The settings of a pixel-MNIST scoRNN run (defaults: the paper's).

    Attributes:
        units: hidden units n.
        rho: number of -1 entries of the scaling matrix D; None: n // 10
            unpermuted, n // 2 permuted (`resolved_rho`).
        epochs: training epochs (all run; the best on validation is kept).
        batch_size: examples per step.
        learning_rate: RMSprop's rate for every weight but `A`.
        skew_learning_rate: RMSprop's rate for the skew-symmetric `A`.
        permutation_seed: None for pixel MNIST; a seed for permuted pixel
            MNIST (the pixels in that seed's fixed random order).
        seed: seed of the initializers and of the batch order.
        limit: train on a class-balanced subset of this size (validation
            and test on limit // 4, at least 100), for quick runs; None: all.
    """

    units: int = 170
    rho: int | None = None
    epochs: int = 70
    batch_size: int = 50
    learning_rate: float = 1e-3
    skew_learning_rate: float = 1e-4
    permutation_seed: int | None = None
    seed: int = 0
    limit: int | None = None

    def __post_init__(self) -> None:
        for name in ("units", "epochs", "batch_size"):
            checks.check_integer(name, getattr(self, name), 1)
        checks.check_integer("rho", self.rho, 0, optional=True)
        checks.check_integer("permutation_seed", self.permutation_seed, 0, optional=True)
        checks.check_integer("seed", self.seed, 0)
        checks.check_integer("limit", self.limit, 1, optional=True)
        checks.check_number("learning_rate", self.learning_rate)
        checks.check_number("skew_learning_rate", self.skew_learning_rate)
        if self.rho is not None and self.rho > self.units:
            raise ValueError(f"rho must be at most units ({self.units}); got {self.rho}")

    @property
    def resolved_rho(self) -> int:
        """`rho`, or the task's default: n // 10 on pixel MNIST, n // 2 permuted."""
        if self.rho is not None:
            return self.rho
        return self.units // 2 if self.permutation_seed is not None else self.units // 10


def build_pixel_scornn(units: int, rho: int, seed: int, steps: int = 784, classes: int = 10) -> Any:
    """`Input((steps, 1)) -> RNN(ScoRNNCell(units, rho)) -> Dense(classes)` (logits), seeded."""
    import keras

    from keras_skim.models.scornn.scornn_cell import ScoRNNCell

    keras.utils.set_random_seed(seed)  # the cell's seed covers only A; this one U and the Dense layer too
    return keras.Sequential(
        [
            keras.Input((steps, 1)),
            keras.layers.RNN(ScoRNNCell(units, rho=rho, seed=seed), name="scornn"),
            keras.layers.Dense(classes, name="logits"),
        ],
        name="pixel_mnist_scornn",
    )


def compile_pixel_scornn(model: Any, config: PixelMnistConfig) -> None:
    """RMSprop `learning_rate` for all weights but `A`, RMSprop `skew_learning_rate` for `A`."""
    import keras

    from keras_skim.models.scornn.scornn_optimizer import scornn_optimizer

    model.compile(
        optimizer=scornn_optimizer(
            optimizer=keras.optimizers.RMSprop(config.learning_rate),
            skew_optimizer=keras.optimizers.RMSprop(config.skew_learning_rate),
        ),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )


def load_splits(config: PixelMnistConfig) -> dict[str, tuple]:
    """{"train", "validation", "test": (float32 [N, 784, 1], int32 [N])} of the run's data."""
    from keras_skim.datasets.sequence_data import load_sequences

    eval_limit = None if config.limit is None else max(config.limit // 4, 100)
    limits = {"train": config.limit, "validation": eval_limit, "test": eval_limit}
    return {
        split: load_sequences(DATASET, split, limit, config.seed, config.permutation_seed)
        for split, limit in limits.items()
    }


def train_pixel_mnist(
    output_dir: str | os.PathLike[str],
    config: PixelMnistConfig,
    *,
    force: bool = False,
    verbose: int = 1,
    run_dir: str | os.PathLike[str] | None = None,
    resume: bool = False,
    restart: bool = False,
) -> dict[str, Any]:
    """Trains the scoRNN `config` describes on pixel MNIST and writes its model folder.

    Args:
        output_dir: the model folder to write (checked before any training).
        config: a `PixelMnistConfig`.
        force: replace an `output_dir` keras-skim wrote.
        verbose: 0 silent; else one line per epoch (a progress bar on a terminal).
        run_dir: the run's checkpoint folder, or None (no checkpoint).
        resume: continue from the checkpoint in `run_dir` (or start when there is none).
        restart: delete the checkpoint in `run_dir` and start over.

    Returns:
        The `train_config.json` record.

    Raises:
        keras_skim.contracts.OutputRefused: `output_dir` may not be written.
        keras_skim.training.run_checkpoint.CheckpointError: a checkpoint that cannot be resumed (one line).
    """
    from keras_skim import contracts, output_folder
    from keras_skim.training.pipeline import write_model_folder

    output_folder.check_output_folder(output_dir, force=force)
    splits = load_splits(config)
    model = build_pixel_scornn(config.units, config.resolved_rho, config.seed)
    compile_pixel_scornn(model, config)
    run = None if run_dir is None else {"run_dir": run_dir, "resume": resume, "restart": restart}
    history, seconds = _fit(model, config, splits, verbose, run)
    arguments = {"dataset": DATASET, "model": MODEL, **dataclasses.asdict(config), "rho": config.resolved_rho}
    if run_dir is not None:
        arguments["run_dir"] = os.fspath(run_dir)
    results = _results(model, splits, history, seconds)
    record = contracts.train_config_record(arguments, data=_data_section(config), **results)
    with output_folder.staged_output_dir(output_dir, force=force) as stage:
        write_model_folder(stage, model, None, record)
    return record


def _fit(model, config, splits, verbose, run):
    """Fits every epoch, keeping the best on validation accuracy; returns (every epoch's history, seconds)."""
    import keras

    from keras_skim.training.epoch_checkpoint import fit_resumable
    from keras_skim.training.epoch_lines import fit_progress

    # Never stops early (patience = all epochs): it only keeps, and restores at the end, the best epoch's weights.
    stopper = keras.callbacks.EarlyStopping(
        monitor="val_accuracy", mode="max", patience=config.epochs, restore_best_weights=True
    )
    fit_verbose, callbacks = fit_progress(verbose)
    run = None if run is None else {**run, "settings": _run_settings(config, splits)}
    return fit_resumable(
        model,
        run,
        stopper,
        [stopper, *callbacks],
        config.epochs,
        verbose=verbose,
        fit_verbose=fit_verbose,
        x=splits["train"][0],
        y=splits["train"][1],
        batch_size=config.batch_size,
        validation_data=splits["validation"],
    )


def _run_settings(config, splits):
    """What a checkpoint must have been written with to be resumed: the settings and the data's sizes."""
    return {
        "format": CHECKPOINT_FORMAT,
        **dataclasses.asdict(config),
        **{f"{split}_examples": int(len(labels)) for split, (_, labels) in splits.items()},
    }


def _results(model, splits, history, seconds):
    """The record's results: history, best epoch, and the validation and test split evaluated once with the
    kept weights."""
    from keras_skim.training.pipeline import versions

    evaluated = {}
    for split in ("validation", "test"):
        x, y = splits[split]
        loss, accuracy = model.evaluate(x, y, batch_size=256, verbose=0)
        evaluated[split] = {"accuracy": float(accuracy), "loss": float(loss), "examples": int(len(y))}
    accuracies = history.get("val_accuracy", [])
    epochs = len(history.get("loss", []))
    return {
        "history": history,
        "best_epoch": 1 + max(range(len(accuracies)), key=accuracies.__getitem__) if accuracies else None,
        **evaluated,
        "train_examples": int(len(splits["train"][1])),
        "epochs_run": epochs,
        "seconds_per_epoch": seconds / epochs if epochs else None,
        "versions": versions(),
    }


def _data_section(config):
    """The `data` section of train_config.json: what `keras-skim evaluate` reads the model's data from."""
    from keras_skim.datasets.sequence_data import sequence_dataset

    return {
        "source": DATASET,
        "format": "sequences",
        "classes": list(sequence_dataset(DATASET).classes),
        "permutation_seed": config.permutation_seed,
    }
