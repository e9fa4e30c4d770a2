"""Data sets of float sequences, not texts, by ``--data`` name: what a model on float sequences
(``Input((T, F)) -> RNN(cell) -> Dense``) trains and is evaluated on. TensorFlow-free.

``mnist`` is pixel-by-pixel MNIST: each image a sequence of 784 steps of one pixel in [0, 1], row by row
(``load_mnist_digits``), with three splits: ``train`` and ``validation`` (the train split less a stratified
1/12 hold-out, ``mnist_digits.hold_out_validation``: 55,000 / 5,000 of the full MNIST, 7,333 / 667 of the
registry's 10,000 digits) and ``test``. A ``permutation_seed`` reads the pixels in a fixed random order
(permuted pixel MNIST).

    x, y = load_sequences("mnist", "validation")   # float32 [N, 784, 1], int32 [N]
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from keras_skim.datasets.errors import DataSourceError
from keras_skim.datasets.mnist_digits import PIXELS, hold_out_validation, load_mnist_digits
from keras_skim.datasets.sampling import balanced_subset


@dataclasses.dataclass(frozen=True)
class SequenceDataset:
    """A data set of float sequences known by name.

    Attributes:
        name: The ``--data`` name.
        loader: ``(split, cache_dir=None) -> (float32 [N, T, F], int32 [N])``.
        splits: Its split names.
        classes: Class names, index = label id.
        description: One line for help texts and reports.
    """

    name: str
    loader: Callable[..., tuple[np.ndarray, np.ndarray]]
    splits: tuple
    classes: tuple
    description: str


def _pixel_mnist(split, cache_dir=None):
    if split == "test":
        images, labels = load_mnist_digits("test", cache_dir=cache_dir)
    else:
        train, validation = hold_out_validation(*load_mnist_digits("train", cache_dir=cache_dir))
        images, labels = train if split == "train" else validation
    return np.asarray(images, np.float32).reshape(-1, PIXELS, 1), np.asarray(labels, np.int32)


SEQUENCE_DATASETS = {
    "mnist": SequenceDataset(
        "mnist",
        _pixel_mnist,
        ("train", "validation", "test"),
        tuple(str(digit) for digit in range(10)),
        "pixel-by-pixel MNIST (784 steps of one pixel; train less a 1/12 validation hold-out, test)",
    ),
}


def load_sequences(
    name: str,
    split: str,
    limit: int | None = None,
    seed: int = 0,
    permutation_seed: int | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """One split of a sequence data set.

    Args:
        name: A ``SEQUENCE_DATASETS`` name.
        split: One of its splits.
        limit: If set, a seeded class-balanced subset of this size.
        seed: Seed of the ``limit`` subset.
        permutation_seed: If set, every sequence's steps in the order of
            ``numpy.random.default_rng(permutation_seed).permutation(T)``.
        cache_dir: Cache folder override.

    Returns:
        ``(sequences, labels)``: float32 ``[N, T, F]``, int32 ``[N]``.

    Raises:
        DataSourceError: An unknown name or split (one line).
        DatasetUnavailableError: The data cannot be had.
    """
    entry = sequence_dataset(name)
    if split not in entry.splits:
        raise DataSourceError(f"{name} has the splits {', '.join(entry.splits)}; got {split!r}")
    sequences, labels = entry.loader(split, cache_dir=cache_dir)
    if permutation_seed is not None:
        sequences = sequences[:, np.random.default_rng(permutation_seed).permutation(sequences.shape[1])]
    keep = balanced_subset(labels, limit, seed)
    return sequences[keep], labels[keep]


def sequence_dataset(name: Any) -> SequenceDataset:
    """The ``SequenceDataset`` of a ``--data`` name; DataSourceError (one line) otherwise."""
    if name not in SEQUENCE_DATASETS:
        raise DataSourceError(
            f"{name!r} is not a data set of float sequences; expected one of {', '.join(SEQUENCE_DATASETS)}"
        )
    return SEQUENCE_DATASETS[name]
