"""``TableSource``: the user's own labelled texts, with a reproducible split."""

import os

import numpy as np

from keras_skim.datasets.errors import DataSourceError
from keras_skim.datasets.labels import NAMES, encode_labels
from keras_skim.datasets.sampling import balanced_subset, stratified_holdout

HOLDOUT = {"validation": 0.1, "test": 0.1}
DEFAULT_MAX_LENGTH = 200


class TableSource:
    """Texts read from a file, a folder or TFDS, split into train,
    validation and test.

    When the data gives no split (no ``split`` column, no ``train/`` folder),
    each class is split on its own (stratified): ``HOLDOUT`` fractions go to
    validation and test, the rest to train, shuffled with
    ``numpy.random.RandomState(split_seed)``. The split is recomputed from
    the seed wherever it is needed (``train`` records the seed and the data's
    sha256; ``evaluate``/``show``/``bench`` recompute it), so no index list
    is stored. Data that gives train and test but no validation has
    validation held out of train the same way.

    Args:
        spec: The ``--data`` argument.
        table: A ``text_files.TextTable``.
        split_seed: Seed of the held-out split.
        classes: A model's recorded class list; None derives the classes
            from the labels (sorted; see ``labels.encode_labels``).
        training: Whether the data is to train a model: then it must have
            labels of at least two classes.
        labelled: Whether every row must have a label (training and
            evaluation); unlabelled texts serve ``show`` and ``bench``.
        expected_sha256: The digest recorded at training time, when this is
            the data a model was trained on: a held-out split of changed data
            is refused, since it would not be the split trained on.
    """

    def __init__(self, spec, table, split_seed=0, classes=None, training=False, labelled=False, expected_sha256=None):
        self.spec = spec
        self.table = table
        self.format = table.format
        self.split_seed = int(split_seed)
        self.default_max_length = DEFAULT_MAX_LENGTH
        self.expected_sha256 = expected_sha256
        self.training = training
        self._indices = None
        self.sizes = None
        if table.labels is None:
            if training or labelled:
                raise DataSourceError(
                    f"{table.path}: no labels (no 'label' column or key); expected a text and a label for every row"
                )
            self.labels, self.classes, self.label_kind = None, classes, None
            return
        if table.format == "tfds" and table.label_names and classes is None:
            self.labels = np.asarray(table.labels, np.int32)
            self.classes, self.label_kind = list(table.label_names), NAMES
        else:
            self.labels, self.classes, self.label_kind = encode_labels(
                table.labels, table.where, classes=classes if classes is not None else table.label_names
            )
        if training and len(np.unique(self.labels)) < 2:
            only = self.classes[int(self.labels[0])]
            raise DataSourceError(f"{table.path}: every row has the label {only!r}; expected at least two classes")

    @property
    def labelled(self):
        """Whether the rows have labels (else only the ``all`` split exists)."""
        return self.labels is not None

    @property
    def path(self):
        return self.table.path

    @property
    def splits(self):
        return ("train", "validation", "test", "all") if self.labels is not None else ("all",)

    def _holdout(self, labels, fractions):
        try:
            return stratified_holdout(labels, fractions, self.split_seed, lambda i: self.classes[i])
        except ValueError as err:
            # `train` has no --split: it needs held-out rows, or a split column / train/ test/ folders.
            hint = "or give the rows a split column" if self.training else "or pass --split all to use every row"
            raise DataSourceError(f"{self.path}: {err} ({hint})") from None

    def split_indices(self):
        """Dict ``train``/``validation``/``test`` -> sorted row indices."""
        if self._indices is not None:
            return self._indices
        if self.table.splits is None:
            self._indices = self._holdout(self.labels, HOLDOUT)
            return self._indices
        given = np.asarray(self.table.splits)
        parts = {name: np.flatnonzero(given == name) for name in ("train", "validation", "test")}
        if not len(parts["train"]):
            raise DataSourceError(f"{self.path}: no rows in the train split; expected train rows")
        missing = {name: fraction for name, fraction in HOLDOUT.items() if not len(parts[name])}
        if missing:
            train = parts["train"]
            carved = self._holdout(self.labels[train], missing)
            parts["train"] = train[carved["train"]]
            for name in missing:
                parts[name] = train[carved[name]]
        self._indices = parts
        return self._indices

    def _check_unchanged(self):
        if self.expected_sha256 and self.table.sha256 and self.table.sha256 != self.expected_sha256:
            raise DataSourceError(
                f"{self.path}: changed since the model was trained (sha256 differs), so its held-out "
                "split would not be the one trained on; pass --split all to use every row"
            )

    def load(self, split, limit=None, seed=0):
        """Texts and labels of one split.

        Args:
            split: ``"train"``, ``"validation"``, ``"test"`` or ``"all"``.
            limit: A seeded class-balanced subset of this size (the first
                ``limit`` rows for unlabelled data).
            seed: Seed of that subset.

        Returns:
            ``(texts, labels)``: list of str and int32 array, or None for
            unlabelled data.
        """
        if split not in self.splits:
            if self.labels is None:
                raise DataSourceError(f"{self.path}: no labels, so no {split} split to hold out; pass --split all")
            raise DataSourceError(f"{self.spec}: unknown split {split!r}; expected one of {', '.join(self.splits)}")
        if split == "all":
            rows = np.arange(len(self.table.texts))
        else:
            self._check_unchanged()
            rows = self.split_indices()[split]
        if self.labels is None:
            rows = rows[:limit] if limit is not None else rows
            return [self.table.texts[i] for i in rows], None
        rows = rows[balanced_subset(self.labels[rows], limit, seed)]
        return [self.table.texts[i] for i in rows], self.labels[rows]

    def describe(self, split):
        if split == "all":
            return f"{self.spec} (every row)"
        how = "given" if self.table.splits is not None else f"stratified holdout, seed {self.split_seed}"
        return f"{self.spec}, {split} split ({how})"

    def training_splits(self, limit=None, eval_limit=None, seed=0):
        """Train, validation and test ``(texts, labels)`` for ``train``."""
        out = {
            "train": self.load("train", limit, seed),
            "validation": self.load("validation", eval_limit, seed),
            "test": self.load("test", eval_limit, seed),
        }
        self.sizes = {name: len(texts) for name, (texts, _) in out.items()}
        return out

    def to_config(self):
        """The ``data`` section of train_config.json."""
        if self.table.splits is None:
            method = "stratified holdout"
        else:
            missing = [name for name in HOLDOUT if name not in set(self.table.splits)]
            method = "given" + (f"; {' and '.join(missing)} held out of train, stratified" if missing else "")
        config = {
            "source": self.spec,
            "format": self.format,
            "classes": list(self.classes),
            "labels": self.label_kind,
            "rows": len(self.table.texts),
            "split": {"method": method, "seed": self.split_seed, "holdout": dict(HOLDOUT), "sizes": self.sizes},
        }
        if self.format != "tfds":
            config["path"] = os.path.abspath(self.path)
            config["sha256"] = self.table.sha256
        if self.table.dropped_empty:
            config["empty_texts_dropped"] = self.table.dropped_empty
        return config
