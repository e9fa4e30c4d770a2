"""Training and evaluating `ClozeQA` on CBT-format files (`keras_skim.datasets.cloze_files`).

A model folder holds `model.keras`, `tokenizer.json` (the project's tokenizer, fitted on the train
questions) and `cloze_config.json` (the settings, and the test accuracy and skim rate).
"""

import dataclasses
import json
import os

from keras_skim.datasets.cloze_splits import encode_questions, load_splits, question_text
from keras_skim.datasets.tokenizer import Tokenizer
from keras_skim.model_kinds import cli_kind, skim_gate

CONFIG_FILE = "cloze_config.json"
MODEL_FILE = "model.keras"
TOKENIZER_FILE = "tokenizer.json"


@dataclasses.dataclass(frozen=True)
class ClozeTrainingConfig:
    """The settings of `train_cloze`.

    Attributes:
        cell: The reader's `--cell` value (`ClozeQA`'s `cell`).
        units, small_units, gamma, threshold: The reader's d, d', gamma and threshold.
        embedding_dim: Word embedding size.
        epochs, batch_size, learning_rate: Adam's training run (`epochs`: passes over the train questions).
        steps_per_epoch: With a number, `fit`'s epochs are slices of that many batches of seeded passes
            (`keras_skim.training.chunked_passes.ChunkedPasses`), each checkpointed and validated, and the
            early stopping's patience is two passes of them: a pass that outlasts the process loses only
            its last slice. None: an epoch is one pass, in Keras' order.
        max_length: Tokens read per question (the query's, then the document's; the document is cut).
        max_tokens: Vocabulary size.
        limit: Train on at most this many questions (None: all).
        seed: Seed of the weights, the Gumbel noise and the held-out split.
        temperature_rate: The Gumbel temperature's decay per step (skim readers).
    """

    cell: str = "lstm"
    units: int = 200
    small_units: int = 10
    gamma: float = 0.01
    threshold: float = 0.5
    embedding_dim: int = 100
    epochs: int = 5
    batch_size: int = 32
    learning_rate: float = 1e-3
    max_length: int = 600
    max_tokens: int = 30000
    limit: int = None
    seed: int = 0
    temperature_rate: float = 1e-4
    steps_per_epoch: int = None


def build_cloze_model(config, vocabulary_size):
    """A compiled `ClozeQA` of `config` (Adam, cross-entropy over the candidates, accuracy)."""
    import keras

    from keras_skim.models.cloze_qa.cloze_qa import ClozeQA

    keras.utils.set_random_seed(config.seed)
    model = ClozeQA(
        vocabulary_size,
        cell=config.cell,
        embedding_dim=config.embedding_dim,
        units=config.units,
        small_units=config.small_units,
        gamma=config.gamma,
        threshold=config.threshold,
        seed=config.seed,
    )
    model.compile(
        optimizer=keras.optimizers.Adam(config.learning_rate),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=[keras.metrics.SparseCategoricalAccuracy(name="accuracy")],
    )
    return model


def evaluate_cloze(model, inputs, labels, threshold=None, batch_size=64):
    """{"accuracy", "skim_rate", "questions"} of a `ClozeQA` on encoded questions, at `threshold` (None:
    the model's); the skim rate is over all real tokens its skim cells read (0 for a reader that does
    not skim)."""
    gate = skim_gate()
    cells = gate.gated_cells(model)
    with gate.thresholds_set_to(cells, threshold):
        logs = model.evaluate(inputs, labels, batch_size=batch_size, verbose=0, return_dict=True)
    return {
        "accuracy": float(logs["accuracy"]),
        "skim_rate": float(logs.get("skim_rate", 0.0)) if cells else 0.0,
        "questions": int(len(labels)),
    }


def train_cloze(path, config, output, verbose=1, run_dir=None, resume=False, restart=False):
    """Trains a `ClozeQA` on a CBT-format file and writes its model folder (`output`, created).

    Args:
        path: The train file (its valid and test files beside it, `load_splits`).
        config: A `ClozeTrainingConfig`.
        output: The model folder to write.
        verbose: `fit`'s verbosity.
        run_dir: With a folder, the fit is checkpointed there at each epoch's end
            (`keras_skim.training.epoch_checkpoint.fit_resumable`); None: no checkpoints.
        resume: Continue from `run_dir`'s checkpoint where there is one (written with the same settings).
        restart: Delete `run_dir`'s checkpoint and start over.

    Returns:
        The results: the config, the number of questions per split, the epochs run, and the test
        `evaluate_cloze`.

    Raises:
        keras_skim.training.run_checkpoint.CheckpointError: a checkpoint that cannot be resumed (one line).
    """
    import keras

    from keras_skim.training.epoch_checkpoint import fit_resumable

    splits = load_splits(path, config.seed, config.limit)
    tokenizer = Tokenizer().fit([question_text(e) for e in splits["train"]], max_tokens=config.max_tokens)
    data = {name: encode_questions(examples, tokenizer, config.max_length) for name, examples in splits.items()}
    model = build_cloze_model(config, tokenizer.vocabulary_size)
    feed = training_feed(data["train"], config)
    stopper = keras.callbacks.EarlyStopping(
        monitor="val_accuracy", mode="max", patience=feed["patience"], restore_best_weights=True
    )
    questions = {name: len(examples) for name, examples in splits.items()}
    run = None
    if run_dir is not None:
        # A checkpoint resumes only the run it was written by: the same settings, data and vocabulary.
        settings = {**dataclasses.asdict(config), "data": str(path), "questions": questions}
        settings["vocabulary_size"] = int(tokenizer.vocabulary_size)
        run = {"run_dir": run_dir, "resume": resume, "restart": restart, "settings": settings}
    history, seconds = fit_resumable(
        model,
        run,
        stopper,
        gate_callbacks(config) + feed["callbacks"] + [stopper],
        feed["epochs"],
        verbose=verbose,
        validation_data=data["validation"],
        **feed["fit"],
    )
    results = {
        "data": str(path),
        "config": dataclasses.asdict(config),
        "questions": questions,
        "epochs_run": len(history["loss"]),
        "train_seconds": seconds,
        "test": evaluate_cloze(model, *data["test"]),
    }
    save_cloze_folder(output, model, tokenizer, results)
    return results


def training_feed(train, config):
    """What `fit` reads the encoded train questions from: {"fit": its data arguments, "epochs", "patience"
    (of early stopping, in those epochs: two passes), "callbacks"}, whole passes or `ChunkedPasses`."""
    if config.steps_per_epoch is None:
        fit = {"x": train[0], "y": train[1], "batch_size": config.batch_size}
        return {"fit": fit, "epochs": config.epochs, "patience": 2, "callbacks": []}
    from keras_skim.training.chunked_passes import ChunkedPasses

    batches = ChunkedPasses(train[0], train[1], config.batch_size, config.steps_per_epoch, seed=config.seed)
    epochs, patience = batches.epochs_for(config.epochs), batches.epochs_for(2)
    return {"fit": {"x": batches}, "epochs": epochs, "patience": patience, "callbacks": [batches.callback()]}


def gate_callbacks(config):
    """The skim gate's callbacks (its Gumbel temperature schedule) for a skim reader, else none."""
    return skim_gate().training_callbacks(config.temperature_rate) if cli_kind(config.cell).skims else []


def save_cloze_folder(output, model, tokenizer, results):
    os.makedirs(output, exist_ok=True)
    model.save(os.path.join(output, MODEL_FILE))
    tokenizer.save(os.path.join(output, TOKENIZER_FILE))
    with open(os.path.join(output, CONFIG_FILE), "w", encoding="utf-8") as out:
        json.dump(results, out, indent=2)


def load_cloze_folder(folder):
    """(model, tokenizer, results) of a folder `train_cloze` wrote."""
    import keras

    # Imported for its registration: a fresh process that has not built a ClozeQA must know the class (its
    # reader's layer is imported by ClozeQA itself, through the kinds table).
    from keras_skim.models.cloze_qa.cloze_qa import ClozeQA  # noqa: F401

    model = keras.saving.load_model(os.path.join(folder, MODEL_FILE))
    tokenizer = Tokenizer.load(os.path.join(folder, TOKENIZER_FILE))
    with open(os.path.join(folder, CONFIG_FILE), encoding="utf-8") as f:
        return model, tokenizer, json.load(f)
