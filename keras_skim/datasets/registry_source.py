"""``RegistrySource``: a dataset known by name (``imdb``, ``rotten_tomatoes``)."""

import numpy as np

from keras_skim.datasets import sources
from keras_skim.datasets.errors import DataSourceError


class RegistrySource:
    """A named dataset of the registry, read split by split through its loader.

    Args:
        dataset: Its ``registry.NamedDataset`` entry.
    """

    format = "registry"
    label_kind = "integers"
    labelled = True

    def __init__(self, dataset):
        self.dataset = dataset
        self.spec = dataset.name
        self.classes = list(dataset.classes)
        self.default_max_length = dataset.default_max_length
        self.splits = dataset.splits
        self.sizes = None
        self._seed = None
        # split -> the source it came from (tensorflow-datasets and the
        # registry copies differ for Rotten Tomatoes and MNIST)
        self.fetched_from = {}

    def load(self, split, limit=None, seed=0):
        """``(texts, int32 labels)`` of one of ``self.splits``; ``limit``
        takes a seeded class-balanced subset."""
        if split not in self.splits:
            raise DataSourceError(f"{self.spec}: unknown split {split!r}; expected one of {', '.join(self.splits)}")
        texts, labels = self.dataset.loader(split, limit=limit, seed=seed)
        self.fetched_from[split] = sources.source_used(self.spec, split)
        return list(texts), np.asarray(labels, np.int32)

    def describe(self, split):
        return f"{self.spec} {split} split"

    def training_splits(self, limit=None, eval_limit=None, seed=0):
        """Train, validation and test ``(texts, labels)`` for ``train``.

        A dataset without a validation split (IMDB) holds out the first
        ``max(n // 10, 1)`` of ``numpy.random.RandomState(seed).permutation(n)``
        of its train split (after ``limit``), so that the test split is only
        used for the final numbers.
        """
        self._seed = seed
        train = self.load("train", limit, seed)
        if "validation" in self.splits:
            validation = self.load("validation", eval_limit, seed)
        else:
            texts, labels = train
            order = np.random.RandomState(seed).permutation(len(texts))
            held, kept = order[: max(len(order) // 10, 1)], order[max(len(order) // 10, 1) :]
            validation = ([texts[i] for i in held], labels[held])
            train = ([texts[i] for i in kept], labels[kept])
        out = {"train": train, "validation": validation, "test": self.load("test", eval_limit, seed)}
        self.sizes = {name: len(texts) for name, (texts, _) in out.items()}
        return out

    def to_config(self):
        """The ``data`` section of train_config.json."""
        if "validation" in self.splits:
            split = {"method": "given", "sizes": self.sizes}
        else:
            split = {
                "method": "given; validation = 10% of train, RandomState(seed) permutation",
                "seed": self._seed,
                "sizes": self.sizes,
            }
        return {
            "source": self.spec,
            "format": self.format,
            "classes": self.classes,
            "labels": self.label_kind,
            "split": split,
            "fetched_from": dict(self.fetched_from),
        }
