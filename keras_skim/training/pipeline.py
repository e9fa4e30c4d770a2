"""One training pipeline for every model kind, as `keras-skim train` runs it:
data -> tokenizer and word vectors -> the family's fit -> one model folder.

The pipeline resolves the data (`--data`, or splits encoded by the caller),
fits the tokenizer on the training texts, loads GloVe, hands the encoded
splits to the family's trainer (`keras_skim.model_kinds.ModelFamily.trainer`:
build the model, fit it, evaluate it) and writes the model folder:
`model.keras`, `tokenizer.json` (the vocabulary the exporter and the app
need) and `train_config.json` (the arguments, a `data` section telling
`evaluate` and `show` how to rebuild the split, then the trainer's record).

A family that owns the signals during its fit (a resumable run writes a
checkpoint on SIGINT/SIGTERM) has the folder checked before and staged only
after it (`stage_early=False`); the others stage it before the data is read,
so a folder that cannot be written fails before any training.
"""

import dataclasses
import os
import platform

import numpy as np

from keras_skim import contracts, output_folder


@dataclasses.dataclass
class TrainingData:
    """The encoded splits a trainer fits and evaluates on.

    Attributes:
        splits: {"train", "validation"[, "test"]: (token ids, int32 labels)}.
        tokenizer: The `keras_skim.datasets.Tokenizer` that encoded them.
        embedding_matrix: Initial word vectors (GloVe) or None.
        num_classes: The number of classes.
        max_length: Tokens per text.
        source: The data source (`keras_skim.datasets.registry`), or None
            for splits the caller encoded.
    """

    splits: dict
    tokenizer: object
    embedding_matrix: object
    num_classes: int
    max_length: int
    source: object = None


def resolve_source(dataset, split_seed):
    """The training source of a `--data` argument (or `dataset` itself when it is a source)."""
    from keras_skim.datasets.registry import resolve_data

    if isinstance(dataset, (str, os.PathLike)):
        return resolve_data(dataset, split_seed=split_seed, training=True)
    return dataset


def encode_source(source, max_length, max_tokens, limit, seed, glove, embedding_dim=50):
    """`TrainingData` of a source: its train / validation / test splits (the
    evaluation splits shrink to limit // 4, at least 100, with a `limit`),
    encoded with a tokenizer fitted on the training texts, and GloVe 6B
    vectors of `embedding_dim` when `glove`."""
    from keras_skim.datasets import Tokenizer, glove_embedding_matrix

    eval_limit = None if limit is None else max(limit // 4, 100)
    splits = source.training_splits(limit=limit, eval_limit=eval_limit, seed=seed)
    tokenizer = Tokenizer(max_length=max_length).fit(splits["train"][0], max_tokens=max_tokens)
    encoded = {
        name: (tokenizer.encode(texts, max_length=max_length), np.asarray(labels, np.int32))
        for name, (texts, labels) in splits.items()
    }
    matrix = glove_embedding_matrix(tokenizer.vocabulary, dim=embedding_dim, seed=seed) if glove else None
    return TrainingData(encoded, tokenizer, matrix, len(source.classes), max_length, source)


def given_data(data, tokenizer, embedding_matrix=None):
    """`TrainingData` of splits the caller encoded (`{"train", "validation"[,
    "test"]: (token ids, labels)}` and their tokenizer)."""
    if tokenizer is None:
        raise ValueError("data=... needs the tokenizer that encoded the data")
    missing = {"train", "validation"} - set(data)
    if missing:
        raise ValueError(f"data must hold 'train' and 'validation' (token_ids, labels); missing {sorted(missing)}")
    splits = {k: (np.asarray(v[0], np.int32), np.asarray(v[1]).reshape(-1).astype(np.int32)) for k, v in data.items()}
    num_classes = int(max(int(labels.max()) for _, labels in splits.values() if len(labels)) + 1)
    return TrainingData(splits, tokenizer, embedding_matrix, num_classes, splits["train"][0].shape[1])


def train_model(output_dir, kind, dataset, prepare, force=False, verbose=1, stage_early=True, **fit_options):
    """Trains a model of `kind` and writes its folder; returns `(model, record)`.

    Args:
        output_dir: The model folder to write, or None to write nothing.
        kind: A `keras_skim.model_kinds` kind name; its family's trainer,
            `trainer(data, config, verbose, **fit_options) -> (model,
            record)`, builds, fits and evaluates the model.
        dataset: The `--data` argument (or source, or None) the data comes
            from: the folder may not hold the files it names.
        prepare: `prepare() -> (TrainingData, config, arguments)`: loads and
            encodes the data; `config` is the family's training settings
            (a dataclass) with what the data resolves (such as the default
            length) filled in, `arguments` their record in
            `train_config.json`.
        force: Replace an `output_dir` keras-skim wrote.
        verbose: The fit's verbosity.
        stage_early: Stage the folder before the data is read (False: check
            it first, stage it after the fit).
        **fit_options: Passed to the trainer, not recorded.

    Raises:
        OutputRefused: `output_dir` may not be written (one line).
    """
    from keras_skim.model_kinds import family_of, load

    trainer = load(family_of(kind).trainer)
    inputs = data_input_paths(dataset)
    if output_dir is None:
        model, _, record = _fit(trainer, prepare, verbose, fit_options)
        return model, record
    if stage_early:
        with output_folder.staged_output_dir(output_dir, force=force, inputs=inputs) as stage:
            model, tokenizer, record = _fit(trainer, prepare, verbose, fit_options)
            write_model_folder(stage, model, tokenizer, record)
        return model, record
    output_folder.check_output_folder(output_dir, force=force)
    model, tokenizer, record = _fit(trainer, prepare, verbose, fit_options)
    with output_folder.staged_output_dir(output_dir, force=force) as stage:
        write_model_folder(stage, model, tokenizer, record)
    return model, record


def _fit(trainer, prepare, verbose, fit_options):
    data, config, arguments = prepare()
    model, results = trainer(data, config, verbose, **fit_options)
    sections = {"data": data.source.to_config()} if data.source is not None else {}
    return model, data.tokenizer, contracts.train_config_record(arguments, **sections, **results)


def write_model_folder(folder, model, tokenizer, record):
    """`model.keras`, `tokenizer.json` and `train_config.json` into `folder`
    (the one writer of a model folder); no `tokenizer.json` for a model that
    reads no text (`tokenizer` None: a model on float sequences)."""
    with output_folder.deferred_signals():  # Keras' save swallows a Ctrl-C in a bare `except:`
        model.save(os.path.join(folder, contracts.MODEL_FILE))
        if tokenizer is not None:
            tokenizer.save(os.path.join(folder, contracts.TOKENIZER_FILE))
        contracts.write_json(os.path.join(folder, contracts.TRAIN_CONFIG_FILE), record)


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


def versions():
    """The versions and machine a run is recorded with."""
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
