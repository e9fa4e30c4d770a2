"""One split of a data set as token ids: what `evaluate`, `show` and the
trainers read (every family's texts are encoded the same way)."""

import os

import numpy as np

from keras_skim.datasets.registry import resolve_data


def load_encoded(data, tokenizer, split, max_length, limit=None, seed=0):
    """(token ids, int labels, texts) of one split.

    `data` is a `--data` argument (a name, file, folder or `tfds:NAME`) or a
    source from `keras_skim.datasets.registry.resolve_data`; `limit` takes a
    seeded class-balanced subset.
    """
    source = resolve_data(data) if isinstance(data, (str, os.PathLike)) else data
    texts, labels = source.load(split, limit=limit, seed=seed)
    return tokenizer.encode(texts, max_length=max_length), np.asarray(labels, "int32"), texts
