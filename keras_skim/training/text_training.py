"""One training run of a text classifier, as `keras-skim train` does it.

Writes a model folder: `model.keras`, `tokenizer.json` (the vocabulary the
exporter and the Android app need) and `train_config.json` (arguments,
history, test results).
"""
import os
import platform
import time

import numpy as np

from keras_skim.datasets import Tokenizer, glove_embedding_matrix, load_text_dataset
from keras_skim import contracts

DEFAULT_MAX_LENGTH = {"imdb": 400, "rotten_tomatoes": 50}


def load_encoded(dataset, tokenizer, split, max_length, limit=None, seed=0):
    texts, labels = load_text_dataset(dataset, split, limit=limit, seed=seed)
    return tokenizer.encode(texts, max_length=max_length), np.asarray(labels, "float32"), texts


def evaluate_model(model, ids, labels, threshold=None, batch_size=64):
    """Accuracy at the current (or given) threshold, and exact skim statistics."""
    from keras_skim.layers.skim_controls import skim_cells, thresholds_set_to
    from keras_skim.layers.skim_statistics import skim_statistics

    cells = skim_cells(model)
    with thresholds_set_to(cells, threshold):
        logits = model.predict(ids, batch_size=batch_size, verbose=0)[:, 0]
    result = {"accuracy": float(np.mean((logits >= 0) == (labels >= 0.5)))}
    if cells:
        stats = skim_statistics(model, ids, batch_size=batch_size, threshold=threshold)
        result["skim_rate"] = stats["skim_rate"]
        result["threshold"] = cells[0].threshold if threshold is None else threshold
    else:
        result["skim_rate"] = 0.0
    return result


def flop_summary(model, skim_rate):
    """Flop-R of the model's first recurrent layer at a skim rate."""
    import keras

    from keras_skim.analysis.flops import flop_report
    from keras_skim.layers.skim_gru_cell import SkimGRUCell
    from keras_skim.layers.skim_controls import skim_cells

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
    force=False,
    verbose=1,
    temperature_rate=1e-4,
    train_embedding=True,
    early_stopping=True,
):
    """Trains a model and writes its folder; returns the results dict."""
    arguments = {k: v for k, v in locals().items() if k not in ("force", "verbose")}
    import keras

    from keras_skim.training.gumbel_temperature_schedule import GumbelTemperatureSchedule
    from keras_skim.training.text_classifier import (
        build_text_classifier,
        compile_text_classifier,
    )

    arguments["output_dir"] = os.fspath(output_dir)
    contracts.check_output_folder(output_dir, force=force)
    max_length = max_length or DEFAULT_MAX_LENGTH.get(dataset, 200)
    arguments["max_length"] = max_length
    keras.utils.set_random_seed(seed)

    train_texts, train_labels = load_text_dataset(dataset, "train", limit=limit, seed=seed)
    y_train = np.asarray(train_labels, "float32")
    eval_limit = None if limit is None else max(limit // 4, 100)
    if dataset == "rotten_tomatoes":
        val_texts, y_val = load_text_dataset(dataset, "validation", limit=eval_limit, seed=seed)
    else:
        # IMDB has no validation split: hold out a seeded 10% of train, so
        # the official test set is only used for the final numbers.
        order = np.random.RandomState(seed).permutation(len(train_texts))
        held = order[: max(len(order) // 10, 1)]
        kept = order[len(held) :]
        val_texts, y_val = [train_texts[i] for i in held], y_train[held]
        train_texts, y_train = [train_texts[i] for i in kept], y_train[kept]
    tokenizer = Tokenizer(max_length=max_length).fit(train_texts, max_tokens=max_tokens)
    x_train = tokenizer.encode(train_texts, max_length=max_length)
    validation = (tokenizer.encode(val_texts, max_length=max_length), np.asarray(y_val, "float32"))
    x_test, y_test, _ = load_encoded(dataset, tokenizer, "test", max_length, eval_limit, seed)

    embedding_matrix = (
        glove_embedding_matrix(tokenizer.vocabulary, dim=50, seed=seed) if glove else None
    )
    model = build_text_classifier(
        cell,
        tokenizer.vocabulary_size,
        max_length,
        embedding_dim=50,
        units=units,
        small_units=small_units,
        gamma=gamma,
        threshold=threshold,
        embedding_matrix=embedding_matrix,
        train_embedding=train_embedding,
        seed=seed,
    )
    compile_text_classifier(model, learning_rate)
    callbacks = [GumbelTemperatureSchedule(rate=temperature_rate)] if cell.startswith("skim") else []
    if early_stopping and epochs > 1:
        callbacks.append(
            keras.callbacks.EarlyStopping(
                monitor="val_accuracy", mode="max", patience=2, restore_best_weights=True
            )
        )
    started = time.perf_counter()
    history = model.fit(
        x_train,
        y_train,
        batch_size=batch_size,
        epochs=epochs,
        validation_data=validation,
        callbacks=callbacks,
        verbose=verbose,
    )
    train_seconds = time.perf_counter() - started
    valid = evaluate_model(model, *validation)
    test = evaluate_model(model, x_test, y_test)
    flops = flop_summary(model, test["skim_rate"])
    results = contracts.train_config_record(
        arguments,
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
    with contracts.staged_output_dir(output_dir, force=force) as stage:
        model.save(os.path.join(stage, contracts.MODEL_FILE))
        tokenizer.save(os.path.join(stage, contracts.TOKENIZER_FILE))
        contracts.write_json(os.path.join(stage, contracts.TRAIN_CONFIG_FILE), results)
    return results


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
