"""Every dataset ``--data`` can name, in one place.

``--data`` takes a registry name (``DATASETS``), ``tfds:NAME`` (through the
optional tensorflow-datasets), a ``.csv``/``.tsv`` file with ``text`` and
``label`` columns, a ``.jsonl`` file with ``text`` and ``label`` keys, or a
folder with one sub-folder of ``.txt`` files per class (a ``.txt`` file of
one text per line serves where no labels are needed, as in ``bench``).
``resolve_data`` turns the argument into a source with ``load(split, limit,
seed)``, ``training_splits(...)``, ``classes``, ``default_max_length`` and
``to_config()`` (the ``data`` section of train_config.json); the CLI's
choices and help come from here. TensorFlow-free.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import Any

from keras_skim.datasets.errors import DataSourceError
from keras_skim.datasets.imdb import load_imdb
from keras_skim.datasets.registry_source import RegistrySource
from keras_skim.datasets.rotten_tomatoes import load_rotten_tomatoes
from keras_skim.datasets.table_source import DEFAULT_MAX_LENGTH, TableSource
from keras_skim.datasets.text_files import FILE_FORMATS, read_path
from keras_skim.datasets.tfds_text import PREFIX as TFDS_PREFIX

SPLITS = ("train", "validation", "test", "all")
DEFAULT_SPLIT_SEED = 0
SENTIMENT = ("negative", "positive")


@dataclasses.dataclass(frozen=True)
class NamedDataset:
    """A dataset known by name.

    Attributes:
        name: The ``--data`` name.
        loader: ``(split, limit=None, seed=0) -> (texts, labels)``.
        splits: Its split names.
        classes: Class names, index = label id.
        default_max_length: Tokens per text when ``--max-length`` is not given.
        description: One line for help texts.
    """

    name: str
    loader: Callable[..., tuple[list[str], Any]]
    splits: tuple
    classes: tuple
    default_max_length: int
    description: str


DATASETS = {
    "rotten_tomatoes": NamedDataset(
        "rotten_tomatoes",
        load_rotten_tomatoes,
        ("train", "validation", "test"),
        SENTIMENT,
        50,
        "Rotten Tomatoes review snippets (fixed seeded 80/10/10 split)",
    ),
    "imdb": NamedDataset(
        "imdb", load_imdb, ("train", "test"), SENTIMENT, 400, "IMDB reviews (official 25,000/25,000 train/test split)"
    ),
}

DATA_HELP = (
    f"{', '.join(DATASETS)}, {TFDS_PREFIX}NAME (tensorflow-datasets), a .csv/.tsv file with text and "
    "label columns, a .jsonl file with text and label keys, or a folder with one sub-folder of .txt "
    "files per class"
)
MAX_LENGTH_HELP = (
    "tokens per text (default: "
    + ", ".join(f"{entry.default_max_length} {name}" for name, entry in DATASETS.items())
    + f", {DEFAULT_MAX_LENGTH} other data)"
)
SPLIT_HELP = (
    "train, validation, test (default) or all; labelled data without its own split is split per "
    "class (stratified): 10%% validation, 10%% test, seeded by --split-seed; unlabelled texts are "
    "read whole"
)


def dataset_names():
    """The names ``--data`` accepts besides files, folders and ``tfds:NAME``."""
    return tuple(DATASETS)


def default_max_length(spec):
    """Tokens per text for ``spec`` when ``--max-length`` is not given."""
    entry = DATASETS.get(spec)
    return entry.default_max_length if entry else DEFAULT_MAX_LENGTH


def _same_data(spec, recorded):
    if recorded.get("path"):
        return os.path.abspath(spec) == os.path.abspath(recorded["path"])
    return spec == recorded.get("source")


def resolve_data(
    spec: str | os.PathLike[str] | None = None,
    *,
    split_seed: int | None = None,
    recorded: dict[str, Any] | None = None,
    training: bool = False,
    labelled: bool | None = None,
) -> RegistrySource | TableSource:
    """Turns a ``--data`` argument into a data source.

    A registry name wins over a file or folder of the same name (write
    ``./imdb`` for the folder).

    Args:
        spec: The argument; None means the data a model was trained on
            (``recorded``).
        split_seed: Seed of the held-out split of data without one; None
            means the recorded seed, else ``DEFAULT_SPLIT_SEED``.
        recorded: The ``data`` section of a model's train_config.json, if
            any: its classes map labels to the model's class ids, its split
            seed is the default, and the file it names is checked to be
            unchanged (sha256) before its held-out split is used.
        training: Whether a model is to be trained on it (labels of at least
            two classes are then required).
        labelled: Whether labels are required; default ``training``.

    Returns:
        A ``RegistrySource`` or ``TableSource``.

    Raises:
        DataSourceError: Unknown name, missing path, or a bad file; one line.
        DatasetUnavailableError: A ``tfds:`` dataset that cannot be had.
    """
    recorded = recorded or {}
    if spec is None:
        spec = recorded.get("path") or recorded.get("source")
        if spec is None:
            raise DataSourceError("no --data given and no recorded training data to default to")
        if recorded.get("path") and not os.path.exists(spec):
            raise DataSourceError(
                f"{spec}: no such file or folder (the data recorded in train_config.json); pass --data"
            )
    spec = os.fspath(spec)
    same = bool(recorded) and _same_data(spec, recorded)
    if split_seed is None:
        split_seed = (recorded.get("split") or {}).get("seed")
        split_seed = DEFAULT_SPLIT_SEED if split_seed is None else split_seed
    if spec in DATASETS:
        return RegistrySource(DATASETS[spec])
    classes = recorded.get("classes")
    if spec.startswith(TFDS_PREFIX):
        from keras_skim.datasets.tfds_text import read_tfds

        table = read_tfds(spec[len(TFDS_PREFIX) :])
    elif os.path.exists(spec):
        table = read_path(spec)
    elif os.sep in spec or "/" in spec or os.path.splitext(spec)[1]:
        raise DataSourceError(f"{spec}: no such file or folder; expected {DATA_HELP}")
    else:
        raise DataSourceError(f"unknown dataset {spec!r}; expected {DATA_HELP}")
    return TableSource(
        spec,
        table,
        split_seed=split_seed,
        classes=classes,
        training=training,
        labelled=training if labelled is None else labelled,
        expected_sha256=recorded.get("sha256") if same else None,
    )


def recorded_data(train_config):
    """The ``data`` section of a train_config.json dict.

    Model folders written before the section existed name only
    ``arguments.dataset``; their classes come from the registry.

    Args:
        train_config: The parsed file, or None.

    Returns:
        A dict, empty when nothing is known.
    """
    config = train_config or {}
    if isinstance(config.get("data"), dict):
        return config["data"]
    name = config.get("arguments", {}).get("dataset")
    if name in DATASETS:
        return {"source": name, "format": "registry", "classes": list(DATASETS[name].classes)}
    return {}


__all__ = [
    "DATASETS",
    "DATA_HELP",
    "FILE_FORMATS",
    "SPLITS",
    "NamedDataset",
    "dataset_names",
    "default_max_length",
    "recorded_data",
    "resolve_data",
]
