"""``--data tfds:NAME``: a text classification dataset of tensorflow-datasets.

tensorflow-datasets is an optional extra (``pip install 'keras-skim[tfds]'``)
and downloads from the web on first use; both failures become one
``DatasetUnavailableError`` line. TensorFlow is imported only inside
``read_tfds``.
"""

from keras_skim.datasets.errors import DatasetUnavailableError, describe_failure
from keras_skim.datasets.sources import import_tfds
from keras_skim.datasets.text_files import GIVEN_SPLITS, TextTable

PREFIX = "tfds:"
INSTALL_HINT = "Install it with: pip install 'keras-skim[tfds]' (or pip install tensorflow-datasets)."


def _decode(value):
    return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else str(value)


def read_tfds(name):
    """Loads every train/validation/test split of a TFDS text dataset.

    Args:
        name: The TFDS name, with an optional config or version
            (``"imdb_reviews"``, ``"ag_news_subset:1.0.0"``).

    Returns:
        A ``TextTable`` with integer labels, the split of each row and, when
        the dataset's label feature names its classes, ``label_names``.

    Raises:
        DatasetUnavailableError: tensorflow-datasets missing, or the dataset
            unknown, not downloadable, or without (text, label) pairs.
    """
    dataset = f"{PREFIX}{name}"
    try:
        tfds = import_tfds()
    except ImportError as err:
        reason = "not installed" if err.name == "tensorflow_datasets" else describe_failure(err)
        raise DatasetUnavailableError(dataset, [("tensorflow_datasets", reason)], hint=INSTALL_HINT) from None
    try:
        loaded, info = tfds.load(name, split=None, as_supervised=True, batch_size=-1, with_info=True)
        arrays = tfds.as_numpy(loaded)
    except Exception as err:  # noqa: BLE001 - TFDS raises many types; one line says which
        raise DatasetUnavailableError(
            dataset,
            [("tensorflow_datasets", describe_failure(err))],
            hint="tensorflow-datasets downloads a dataset on first use: it needs the web then.",
        ) from None
    missing = [split for split in ("train",) if split not in arrays]
    if missing:
        raise DatasetUnavailableError(
            dataset, [("tensorflow_datasets", f"no train split (found {', '.join(sorted(arrays))})")]
        )
    table = TextTable(dataset, "tfds", [], labels=[], splits=[], places=[], sha256="")
    for split in GIVEN_SPLITS:
        if split not in arrays:
            continue
        texts, labels = arrays[split]
        for row, (text, label) in enumerate(zip(texts, labels)):
            table.texts.append(_decode(text))
            table.labels.append(int(label))
            table.splits.append(split)
            table.places.append(f"{dataset} {split} example {row}")
    label_feature = info.features[info.supervised_keys[1]] if info.supervised_keys else None
    names = getattr(label_feature, "names", None)
    if names:
        table.label_names = list(names)
    return table
