"""The text classifier family's training: what `keras-skim train --cell`
runs for the family's kinds, through the one pipeline
(`keras_skim.training.pipeline`), and its evaluation (accuracy, skim rate,
Flop-R) that `evaluate` and the benchmarks share.
"""

import dataclasses
import os

import numpy as np

from keras_skim.datasets.encoded_splits import load_encoded  # noqa: F401 (re-exported: the benchmarks use it)
from keras_skim.models.text_classifier.text_classifier_config import (
    TextClassifierTrainingConfig,
    training_arguments,
)

# Re-exported: callers (the CLI, `demo`, the benchmarks) import them from here.
from keras_skim.training.pipeline import data_input_paths, train_model, versions  # noqa: F401


def predicted_classes(logits):
    """Class ids from a `[N, 1]` logit (class 1 iff >= 0) or `[N, k]` logits."""
    logits = np.asarray(logits)
    if logits.shape[-1] == 1:
        return (logits[:, 0] >= 0).astype(np.int32)
    return np.argmax(logits, axis=-1).astype(np.int32)


def evaluate_model(model, ids, labels, threshold=None, batch_size=64, progress=None):
    """Accuracy at the current (or given) threshold, and exact skim
    statistics, in one compiled pass; a progress bar on stderr when
    `progress` (None: when stderr is a terminal)."""
    from keras_skim.model_kinds import skim_gate
    from keras_skim.training.progress_batches import in_batches

    gate = skim_gate()
    cells = gate.gated_cells(model)
    stats = None
    if cells:
        logits, stats = gate.skim_predictions(model, ids, batch_size=batch_size, threshold=threshold, progress=progress)
    elif len(ids):
        batches = in_batches(np.asarray(ids), batch_size, progress, "evaluating")
        logits = np.concatenate([np.asarray(model.predict_on_batch(batch)) for batch in batches])
    else:
        logits = model.predict(ids, verbose=0)
    truth = np.rint(np.asarray(labels, np.float64)).astype(np.int32)
    result = {"accuracy": float(np.mean(predicted_classes(logits) == truth)) if len(truth) else 0.0}
    if cells:
        result["skim_rate"] = stats["skim_rate"]
        result["threshold"] = cells[0].threshold if threshold is None else threshold
    else:
        result["skim_rate"] = 0.0
    return result


def flop_summary(model, skim_rate):
    """The model's FLOP report at a skim rate (every skimming direction at
    `skim_rate`): `keras_skim.analysis.flops.plan_flop_report` over its
    export plan. A one-direction model gives its direction's report (a plain
    cell's Flop-R is 1); a stack gives the report over all of it.

    Raises:
        ExportError: (one line) a model the exporter cannot plan.
    """
    from keras_skim.analysis.flops import plan_flop_report
    from keras_skim.export.plan import plan_model

    report = plan_flop_report(plan_model(model), skim_rate)
    return report["directions"][0] if len(report["directions"]) == 1 else report


def train_text_model(output_dir, dataset="rotten_tomatoes", *, force=False, verbose=1, **settings):
    """Trains a model and writes its folder; returns the results dict.

    The keyword form of `train_text_classifier`: `settings` are the fields
    of a `TextClassifierTrainingConfig` (`cell`, `units`, `epochs`, ...).
    """
    config = TextClassifierTrainingConfig(**settings)
    return train_text_classifier(dataset, config, output_dir, force=force, verbose=verbose)


def train_text_classifier(data, config, output_dir, force=False, verbose=1, run_dir=None, resume=False, restart=False):
    """Trains the model `config` describes on `data` and writes its folder;
    returns the results dict (the `train_config.json` record).

    Args:
        data: A `--data` argument (see `keras_skim.datasets.registry`) or a
            source from `resolve_data`. Two classes train one logit, more
            train one logit per class; `config.split_seed` seeds the
            stratified held-out split of data that has none.
        config: A `TextClassifierTrainingConfig`.
        output_dir: The model folder to write.
        force: Replace an `output_dir` keras-skim wrote.
        verbose: The fit's verbosity.
        run_dir: The run's checkpoint folder (None: no checkpoint): the
            state of each finished epoch is written there
            (`keras_skim.training.epoch_checkpoint`).
        resume: Continue the run from its checkpoint in `run_dir` (when
            there is one), ending as the run would have without the stop.
        restart: Delete the checkpoint in `run_dir` and start over.

    Raises:
        OutputRefused: `output_dir` may not be written (exists and not
            `force`, holds the data or files keras-skim did not write,
            cannot be created); checked before the data is read.
        DataSourceError, DatasetUnavailableError: unusable data (one line).
        RunExists, CheckpointMismatch, CheckpointUnreadable,
            CheckpointUnwritable: a checkpoint that cannot be used (one
            line; see `keras_skim.training.run_checkpoint`).
    """
    from keras_skim.model_kinds import CLI_KINDS

    def prepare():
        import keras

        from keras_skim.training.pipeline import encode_source, resolve_source

        source = resolve_source(data, config.split_seed)
        resolved = dataclasses.replace(config, max_length=config.max_length or source.default_max_length)
        keras.utils.set_random_seed(config.seed)
        encoded = encode_source(
            source, resolved.max_length, resolved.max_tokens, resolved.limit, resolved.seed, resolved.glove
        )
        arguments = training_arguments(output_dir, source.spec, resolved)
        if run_dir is not None:
            arguments["run_dir"] = os.fspath(run_dir)
        return encoded, resolved, arguments

    kind = CLI_KINDS[config.cell].name
    run = {"run_dir": run_dir, "resume": resume, "restart": restart}
    _, results = train_model(output_dir, kind, data, prepare, force=force, verbose=verbose, **run)
    return results


def fit_text_classifier(data, config, verbose, run_dir=None, resume=False, restart=False):
    """The family's trainer (`keras_skim.model_kinds`): builds the model
    `config` (a `TextClassifierTrainingConfig`) describes, fits it on
    `data` (a `pipeline.TrainingData`) and evaluates it; returns (model,
    its train_config.json record). With a `run_dir`, the fit is
    checkpointed there at each epoch's end and resumes from it (`resume`;
    see `train_text_classifier`)."""
    from keras_skim.models.text_classifier.text_classifier import (
        TextClassifierSpec,
        build_text_classifier,
        compile_text_classifier,
    )

    # One logit takes float 0/1 targets; k logits take integer class ids.
    label_type = "float32" if data.num_classes == 2 else "int32"
    x_train, y_train = data.splits["train"][0], data.splits["train"][1].astype(label_type)
    validation = (data.splits["validation"][0], data.splits["validation"][1].astype(label_type))
    model = build_text_classifier(
        config.cell,
        data.tokenizer.vocabulary_size,
        data.max_length,
        TextClassifierSpec(
            embedding_dim=50,
            units=config.units,
            small_units=config.small_units,
            gamma=config.gamma,
            threshold=config.threshold,
            embedding_matrix=data.embedding_matrix,
            train_embedding=config.train_embedding,
            dropout=config.dropout,
            seed=config.seed,
            num_classes=data.num_classes,
        ),
    )
    compile_text_classifier(model, config.learning_rate)
    run = None
    if run_dir is not None:
        run = {"run_dir": run_dir, "resume": resume, "restart": restart, "settings": _run_settings(config, data)}
    history, train_seconds = _fit(model, config, (x_train, y_train), validation, verbose, run)
    evaluation = _evaluation_record(model, validation, data.splits["test"], verbose)
    record = {
        "history": history,
        "seconds_per_epoch": train_seconds / config.epochs,
        **evaluation,
        "train_examples": int(len(y_train)),
        "vocabulary_size": data.tokenizer.vocabulary_size,
        "versions": versions(),
        "epochs_run": len(history["loss"]),
    }
    return model, record


def _fit(model, config, train, validation, verbose, run):
    """Fits `model`; returns (the history of every epoch, the seconds it
    took). `run`: the checkpoint's folder, `resume`, `restart` and the
    `settings` it must have been written with, or None."""
    from keras_skim.training.epoch_checkpoint import fit_resumable
    from keras_skim.training.epoch_lines import fit_progress

    callbacks, stopper = _callbacks(config)
    # a progress bar on a terminal, one plain line per epoch in a log file
    fit_verbose, progress = fit_progress(verbose)
    return fit_resumable(
        model,
        run,
        stopper,
        callbacks + progress,
        config.epochs,
        verbose=verbose,
        fit_verbose=fit_verbose,
        x=train[0],
        y=train[1],
        batch_size=config.batch_size,
        validation_data=validation,
    )


def _run_settings(config, data):
    """What a checkpoint must have been written with to be resumed: the
    settings and the data's sizes."""
    settings = dataclasses.asdict(config)
    if not config.dropout:  # a checkpoint written before the option existed resumes: it has no "dropout"
        del settings["dropout"]
    return {
        **settings,
        "dataset": None if data.source is None else data.source.spec,
        "train_examples": int(len(data.splits["train"][1])),
        "validation_examples": int(len(data.splits["validation"][1])),
        "vocabulary_size": int(data.tokenizer.vocabulary_size),
        "num_classes": int(data.num_classes),
    }


def _callbacks(config):
    """(The skim gate's training callbacks (a skimming cell's) and early
    stopping, the early-stopping callback or None)."""
    import keras

    from keras_skim.model_kinds import CLI_KINDS, skim_gate

    callbacks = skim_gate().training_callbacks(config.temperature_rate) if CLI_KINDS[config.cell].skims else []
    stopper = None
    if config.early_stopping and config.patience_steps is not None:
        from keras_skim.models.text_classifier.step_patience import StepPatience

        stopper = StepPatience(config.patience_steps)
    elif config.early_stopping and config.epochs > 1:
        stopper = keras.callbacks.EarlyStopping(
            monitor="val_accuracy", mode="max", patience=2, restore_best_weights=True
        )
    return callbacks + ([stopper] if stopper is not None else []), stopper


def _evaluation_record(model, validation, test_split, verbose):
    """The validation and test results and the Flop counts of a trained model."""
    x_test, y_test = test_split
    progress = None if verbose else False
    valid = evaluate_model(model, *validation, progress=progress)
    test = evaluate_model(model, x_test, y_test, progress=progress)
    flops = flop_summary(model, test["skim_rate"])
    return {
        "validation": {**valid, "examples": int(len(validation[1]))},
        "test": {**test, "flop_r": flops["flop_r"], "examples": int(len(y_test))},
        "flops": flops,
    }
