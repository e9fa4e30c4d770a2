"""The text classifier family's training: what `keras-skim train --cell
skim-lstm|skim-gru|lstm|gru` runs, through the one pipeline
(`keras_skim.training.pipeline`), and its evaluation (accuracy, skim rate,
Flop-R) that `evaluate` and the benchmarks share.
"""

import os
import time

import numpy as np

from keras_skim.datasets.registry import DEFAULT_SPLIT_SEED, resolve_data

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


def train_text_model(
    output_dir,
    dataset="rotten_tomatoes",
    cell="skim-lstm",
    units=100,
    small_units=10,
    gamma=0.01,
    threshold=0.5,
    epochs=5,
    batch_size=64,
    learning_rate=1e-3,
    max_length=None,
    max_tokens=20000,
    glove=True,
    limit=None,
    seed=0,
    split_seed=DEFAULT_SPLIT_SEED,
    force=False,
    verbose=1,
    temperature_rate=1e-4,
    train_embedding=True,
    early_stopping=True,
):
    """Trains a model and writes its folder; returns the results dict.

    `dataset` is a `--data` argument (see `keras_skim.datasets.registry`) or
    a source from `resolve_data`. Two classes train one logit, more train
    one logit per class. `split_seed` seeds the stratified held-out split of
    data that has none.

    Raises:
        OutputRefused: `output_dir` may not be written (exists and not
            `force`, holds the data or files keras-skim did not write,
            cannot be created); checked before the data is read.
        DataSourceError, DatasetUnavailableError: unusable data (one line).
    """
    arguments = {k: v for k, v in locals().items() if k not in ("force", "verbose")}
    arguments["output_dir"] = os.fspath(output_dir)

    def prepare(arguments):
        from keras_skim.training.pipeline import encode_source, resolve_source

        source = resolve_source(dataset, arguments["split_seed"])
        arguments["dataset"] = source.spec
        arguments["max_length"] = arguments["max_length"] or source.default_max_length
        import keras

        keras.utils.set_random_seed(seed)
        return encode_source(source, arguments["max_length"], max_tokens, limit, seed, glove)

    from keras_skim.model_kinds import CLI_KINDS, text_classifier_cells

    if cell not in text_classifier_cells():
        raise ValueError(f"cell must be one of {', '.join(text_classifier_cells())}; got {cell!r}")
    _, results = train_model(output_dir, CLI_KINDS[cell].name, arguments, prepare, force=force, verbose=verbose)
    return results


def fit_text_classifier(data, arguments, verbose):
    """The family's trainer (`keras_skim.model_kinds`): builds the model
    `arguments` describe, fits it on `data` (a `pipeline.TrainingData`) and
    evaluates it; returns (model, its train_config.json record)."""
    import keras

    from keras_skim.models.skim_rnn.gumbel_temperature_schedule import GumbelTemperatureSchedule
    from keras_skim.models.text_classifier.text_classifier import build_text_classifier, compile_text_classifier

    cell, epochs = arguments["cell"], arguments["epochs"]
    # One logit takes float 0/1 targets; k logits take integer class ids.
    label_type = "float32" if data.num_classes == 2 else "int32"
    x_train, y_train = data.splits["train"][0], data.splits["train"][1].astype(label_type)
    validation = (data.splits["validation"][0], data.splits["validation"][1].astype(label_type))
    x_test, y_test = data.splits["test"]
    model = build_text_classifier(
        cell,
        data.tokenizer.vocabulary_size,
        data.max_length,
        embedding_dim=50,
        units=arguments["units"],
        small_units=arguments["small_units"],
        gamma=arguments["gamma"],
        threshold=arguments["threshold"],
        embedding_matrix=data.embedding_matrix,
        train_embedding=arguments["train_embedding"],
        seed=arguments["seed"],
        num_classes=data.num_classes,
    )
    compile_text_classifier(model, arguments["learning_rate"])
    callbacks = [GumbelTemperatureSchedule(rate=arguments["temperature_rate"])] if cell.startswith("skim") else []
    if arguments["early_stopping"] and epochs > 1:
        callbacks.append(
            keras.callbacks.EarlyStopping(monitor="val_accuracy", mode="max", patience=2, restore_best_weights=True)
        )
    started = time.perf_counter()
    history = model.fit(
        x_train,
        y_train,
        batch_size=arguments["batch_size"],
        epochs=epochs,
        validation_data=validation,
        callbacks=callbacks,
        verbose=verbose,
    )
    train_seconds = time.perf_counter() - started
    progress = None if verbose else False
    valid = evaluate_model(model, *validation, progress=progress)
    test = evaluate_model(model, x_test, y_test, progress=progress)
    flops = flop_summary(model, test["skim_rate"])
    record = {
        "history": {k: [float(v) for v in vs] for k, vs in history.history.items()},
        "seconds_per_epoch": train_seconds / epochs,
        "validation": {**valid, "examples": int(len(validation[1]))},
        "test": {**test, "flop_r": flops["flop_r"], "examples": int(len(y_test))},
        "flops": flops,
        "train_examples": int(len(y_train)),
        "vocabulary_size": data.tokenizer.vocabulary_size,
        "versions": versions(),
        "epochs_run": len(history.history["loss"]),
    }
    return model, record
