"""One training run of a text classifier, as `keras-skim train` does it.

Writes a model folder: `model.keras`, `tokenizer.json` (the vocabulary the
exporter and the Android app need) and `train_config.json` (arguments,
history, test results, and a `data` section: the source, its classes and
how it was split, so that `evaluate` and `show` can rebuild the same split).
"""

import os
import platform
import time

import numpy as np

from keras_skim import contracts, output_folder
from keras_skim.datasets import Tokenizer, glove_embedding_matrix
from keras_skim.datasets.registry import DEFAULT_SPLIT_SEED, resolve_data


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
    from keras_skim.layers.skim_controls import skim_cells
    from keras_skim.layers.skim_statistics import in_batches, skim_predictions

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
    from keras_skim.layers.skim_controls import skim_cells
    from keras_skim.layers.skim_gru_cell import SkimGRUCell

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
    # The staging folder is made before the data is read: a folder that
    # cannot be written fails now, not after the training run.
    with output_folder.staged_output_dir(output_dir, force=force, inputs=data_input_paths(dataset)) as stage:
        model, tokenizer, results = _fit_text_model(arguments, dataset, verbose)
        with output_folder.deferred_signals():  # Keras' save swallows a Ctrl-C in a bare `except:`
            model.save(os.path.join(stage, contracts.MODEL_FILE))
            tokenizer.save(os.path.join(stage, contracts.TOKENIZER_FILE))
            contracts.write_json(os.path.join(stage, contracts.TRAIN_CONFIG_FILE), results)
    return results


def data_input_paths(dataset):
    """The files and folders a `--data` argument makes a command read: the
    file or folder it names, the local copies named by `KERAS_SKIM_DATA_*`
    and the cache folder named by `KERAS_SKIM_CACHE` (an output folder must
    not hold them)."""
    from keras_skim.datasets.registry import DATASETS, TFDS_PREFIX

    paths = []
    if isinstance(dataset, (str, os.PathLike)):
        spec = os.fspath(dataset)
        if spec not in DATASETS and not spec.startswith(TFDS_PREFIX) and os.path.lexists(spec):
            paths.append(spec)
    for name, value in os.environ.items():
        if (name.startswith("KERAS_SKIM_DATA_") or name == "KERAS_SKIM_CACHE") and value and os.path.lexists(value):
            paths.append(value)
    return paths


def _fit_text_model(arguments, dataset, verbose):
    """Trains the model `arguments` describe on `dataset`; returns (model,
    tokenizer, the train_config.json record)."""
    import keras

    from keras_skim.models.text_classifier import (
        build_text_classifier,
        compile_text_classifier,
    )
    from keras_skim.training.gumbel_temperature_schedule import GumbelTemperatureSchedule

    cell, seed, limit, epochs = arguments["cell"], arguments["seed"], arguments["limit"], arguments["epochs"]
    source = (
        resolve_data(dataset, split_seed=arguments["split_seed"], training=True)
        if isinstance(dataset, (str, os.PathLike))
        else dataset
    )
    arguments["dataset"] = source.spec
    max_length = arguments["max_length"] or source.default_max_length
    arguments["max_length"] = max_length
    num_classes = len(source.classes)
    keras.utils.set_random_seed(seed)

    eval_limit = None if limit is None else max(limit // 4, 100)
    splits = source.training_splits(limit=limit, eval_limit=eval_limit, seed=seed)
    # One logit takes float 0/1 targets; k logits take integer class ids.
    label_type = "float32" if num_classes == 2 else "int32"
    train_texts, y_train = splits["train"][0], np.asarray(splits["train"][1], label_type)
    val_texts, y_val = splits["validation"][0], np.asarray(splits["validation"][1], label_type)
    tokenizer = Tokenizer(max_length=max_length).fit(train_texts, max_tokens=arguments["max_tokens"])
    x_train = tokenizer.encode(train_texts, max_length=max_length)
    validation = (tokenizer.encode(val_texts, max_length=max_length), y_val)
    x_test = tokenizer.encode(splits["test"][0], max_length=max_length)
    y_test = np.asarray(splits["test"][1], "int32")

    glove = arguments["glove"]
    embedding_matrix = glove_embedding_matrix(tokenizer.vocabulary, dim=50, seed=seed) if glove else None
    model = build_text_classifier(
        cell,
        tokenizer.vocabulary_size,
        max_length,
        embedding_dim=50,
        units=arguments["units"],
        small_units=arguments["small_units"],
        gamma=arguments["gamma"],
        threshold=arguments["threshold"],
        embedding_matrix=embedding_matrix,
        train_embedding=arguments["train_embedding"],
        seed=seed,
        num_classes=num_classes,
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
    results = contracts.train_config_record(
        arguments,
        data=source.to_config(),
        history={k: [float(v) for v in vs] for k, vs in history.history.items()},
        seconds_per_epoch=train_seconds / epochs,
        validation={**valid, "examples": int(len(validation[1]))},
        test={**test, "flop_r": flops["flop_r"], "examples": int(len(y_test))},
        flops=flops,
        train_examples=int(len(y_train)),
        vocabulary_size=tokenizer.vocabulary_size,
        versions=versions(),
    )
    results["epochs_run"] = len(history.history["loss"])
    return model, tokenizer, results


def versions():
    import keras
    import tensorflow as tf

    from keras_skim.version import __version__

    return {
        "keras_skim": __version__,
        "keras": keras.__version__,
        "tensorflow": tf.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "cpus": os.cpu_count(),
    }
