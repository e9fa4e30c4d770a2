"""The text classifier family's training: what `keras-skim train --cell
skim-lstm|skim-gru|lstm|gru` runs, through the one pipeline
(`keras_skim.training.pipeline`), and its evaluation (accuracy, skim rate,
Flop-R) that `evaluate` and the benchmarks share.
"""

import dataclasses
import os
import time

import numpy as np

from keras_skim.datasets.registry import resolve_data
from keras_skim.models.text_classifier.text_classifier_config import (
    TextClassifierTrainingConfig,
    training_arguments,
)

# Re-exported: callers (the CLI, `demo`, the benchmarks) import them from here.
from keras_skim.training.pipeline import data_input_paths, train_model, versions  # noqa: F401


def load_encoded(data, tokenizer, split, max_length, limit=None, seed=0):
    """(token ids, int labels, texts) of one split.

    `data` is a `--data` argument (a name, file, folder or `tfds:NAME`) or a
    source from `keras_skim.datasets.registry.resolve_data`; `limit` takes a
    seeded class-balanced subset.
    """
    source = resolve_data(data) if isinstance(data, (str, os.PathLike)) else data
    texts, labels = source.load(split, limit=limit, seed=seed)
    return tokenizer.encode(texts, max_length=max_length), np.asarray(labels, "int32"), texts


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
    from keras_skim.models.skim_rnn.skim_controls import skim_cells
    from keras_skim.models.skim_rnn.skim_statistics import in_batches, skim_predictions

    cells = skim_cells(model)
    stats = None
    if cells:
        logits, stats = skim_predictions(model, ids, batch_size=batch_size, threshold=threshold, progress=progress)
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
    """Flop-R of the model's first recurrent layer at a skim rate."""
    import keras

    from keras_skim.analysis.flops import flop_report
    from keras_skim.models.skim_rnn.skim_controls import skim_cells
    from keras_skim.models.skim_rnn.skim_gru_cell import SkimGRUCell

    cells = skim_cells(model)
    embedding = next(layer for layer in model.layers if isinstance(layer, keras.layers.Embedding))
    if cells:
        cell = cells[0]
        kind = "gru" if isinstance(cell, SkimGRUCell) else "lstm"
        return flop_report(kind, cell.units, cell.small_units, embedding.output_dim, skim_rate)
    rnn = next(layer for layer in model.layers if isinstance(layer, keras.layers.RNN))
    kind = "gru" if isinstance(rnn, keras.layers.GRU) else "lstm"
    report = flop_report(kind, rnn.cell.units, 0, embedding.output_dim, 0.0)
    # A plain RNN has no gate: it is the baseline itself.
    report.update(expected_flops=report["baseline_flops"], flop_r=1.0)
    return report


def train_text_model(output_dir, dataset="rotten_tomatoes", *, force=False, verbose=1, **settings):
    """Trains a model and writes its folder; returns the results dict.

    The keyword form of `train_text_classifier`: `settings` are the fields
    of a `TextClassifierTrainingConfig` (`cell`, `units`, `epochs`, ...).
    """
    config = TextClassifierTrainingConfig(**settings)
    return train_text_classifier(dataset, config, output_dir, force=force, verbose=verbose)


def train_text_classifier(data, config, output_dir, force=False, verbose=1):
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

    Raises:
        OutputRefused: `output_dir` may not be written (exists and not
            `force`, holds the data or files keras-skim did not write,
            cannot be created); checked before the data is read.
        DataSourceError, DatasetUnavailableError: unusable data (one line).
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
        return encoded, resolved, training_arguments(output_dir, source.spec, resolved)

    kind = CLI_KINDS[config.cell].name
    _, results = train_model(output_dir, kind, data, prepare, force=force, verbose=verbose)
    return results


def fit_text_classifier(data, config, verbose):
    """The family's trainer (`keras_skim.model_kinds`): builds the model
    `config` (a `TextClassifierTrainingConfig`) describes, fits it on
    `data` (a `pipeline.TrainingData`) and evaluates it; returns (model,
    its train_config.json record)."""
    from keras_skim.models.text_classifier.text_classifier import build_text_classifier, compile_text_classifier

    # One logit takes float 0/1 targets; k logits take integer class ids.
    label_type = "float32" if data.num_classes == 2 else "int32"
    x_train, y_train = data.splits["train"][0], data.splits["train"][1].astype(label_type)
    validation = (data.splits["validation"][0], data.splits["validation"][1].astype(label_type))
    model = build_text_classifier(
        config.cell,
        data.tokenizer.vocabulary_size,
        data.max_length,
        embedding_dim=50,
        units=config.units,
        small_units=config.small_units,
        gamma=config.gamma,
        threshold=config.threshold,
        embedding_matrix=data.embedding_matrix,
        train_embedding=config.train_embedding,
        seed=config.seed,
        num_classes=data.num_classes,
    )
    compile_text_classifier(model, config.learning_rate)
    started = time.perf_counter()
    history = model.fit(
        x_train,
        y_train,
        batch_size=config.batch_size,
        epochs=config.epochs,
        validation_data=validation,
        callbacks=_callbacks(config),
        verbose=verbose,
    )
    train_seconds = time.perf_counter() - started
    evaluation = _evaluation_record(model, validation, data.splits["test"], verbose)
    record = {
        "history": {k: [float(v) for v in vs] for k, vs in history.history.items()},
        "seconds_per_epoch": train_seconds / config.epochs,
        **evaluation,
        "train_examples": int(len(y_train)),
        "vocabulary_size": data.tokenizer.vocabulary_size,
        "versions": versions(),
        "epochs_run": len(history.history["loss"]),
    }
    return model, record


def _callbacks(config):
    """The Gumbel temperature's decay (skim cells) and early stopping."""
    import keras

    from keras_skim.models.skim_rnn.gumbel_temperature_schedule import GumbelTemperatureSchedule

    callbacks = [GumbelTemperatureSchedule(rate=config.temperature_rate)] if config.cell.startswith("skim") else []
    if config.early_stopping and config.patience_steps is not None:
        from keras_skim.models.text_classifier.step_patience import StepPatience

        callbacks.append(StepPatience(config.patience_steps))
    elif config.early_stopping and config.epochs > 1:
        callbacks.append(
            keras.callbacks.EarlyStopping(monitor="val_accuracy", mode="max", patience=2, restore_best_weights=True)
        )
    return callbacks


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
