"""`--data` on the user's own files: formats, labels, the held-out split,
long fields and bad files (the data layer; the CLI runs are in tests/cli)."""

import csv
import json
import os

import numpy as np
import pytest

from keras_skim.datasets import DatasetUnavailableError, DataSourceError
from keras_skim.datasets.registry import DATASETS, recorded_data, resolve_data
from keras_skim.runtime.bench_data import BenchDataError, load_bench_texts
from tests.assertions import one_line
from tests.data_files import bad_data_arguments

CLASSES = ("cooking", "sports", "weather")


def _rows(per_class=20):
    return [(f"text {c} number {i}", c) for i in range(per_class) for c in CLASSES]


def _write_csv(path, rows, header=("text", "label"), delimiter=","):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, delimiter=delimiter)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def _write_jsonl(path, rows):
    path.write_text("".join(json.dumps({"text": t, "label": y}) + "\n" for t, y in rows), encoding="utf-8")
    return path


def _write_folder(root, rows):
    for i, (text, label) in enumerate(rows):
        (root / label).mkdir(parents=True, exist_ok=True)
        (root / label / f"{i:03d}.txt").write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def formats(tmp_path):
    rows = _rows()
    folder = tmp_path / "folder"
    return {
        "csv": _write_csv(tmp_path / "d.csv", rows),
        "tsv": _write_csv(tmp_path / "d.tsv", rows, delimiter="\t"),
        "jsonl": _write_jsonl(tmp_path / "d.jsonl", rows),
        "folder": _write_folder(folder, rows),
    }


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "folder"])
def test_every_format_gives_the_same_texts_classes_and_split(formats, fmt):
    source = resolve_data(str(formats[fmt]), training=True)
    reference = resolve_data(str(formats["csv"]), training=True)
    assert source.classes == list(CLASSES) and source.format == fmt
    texts, labels = source.load("all")
    assert sorted(zip(texts, labels.tolist())) == sorted((t, CLASSES.index(c)) for t, c in _rows())
    # The split follows the rows' order, which the folder reads per class.
    if fmt != "folder":
        for part in ("train", "validation", "test"):
            assert source.load(part)[0] == reference.load(part)[0]


def test_split_is_stratified_seeded_and_recorded(formats):
    source = resolve_data(str(formats["csv"]), training=True)
    parts = source.split_indices()
    all_rows = np.concatenate([parts["train"], parts["validation"], parts["test"]])
    assert sorted(all_rows.tolist()) == list(range(60))
    for part, per_class in (("train", 16), ("validation", 2), ("test", 2)):
        _, labels = source.load(part)
        assert np.bincount(labels, minlength=3).tolist() == [per_class] * 3, part
    same = resolve_data(str(formats["csv"]), split_seed=0, training=True).split_indices()
    other = resolve_data(str(formats["csv"]), split_seed=1, training=True).split_indices()
    assert all(np.array_equal(parts[k], same[k]) for k in parts)
    assert not np.array_equal(parts["test"], other["test"])
    source.training_splits()
    config = source.to_config()
    assert config["classes"] == list(CLASSES) and config["labels"] == "names"
    assert config["split"]["seed"] == 0 and config["split"]["method"] == "stratified holdout"
    assert config["split"]["sizes"] == {"train": 48, "validation": 6, "test": 6}
    assert config["path"] == os.path.abspath(formats["csv"]) and len(config["sha256"]) == 64


def test_recorded_seed_is_reused_and_a_changed_file_is_refused(formats):
    path = str(formats["csv"])
    trained = resolve_data(path, split_seed=7, training=True)
    trained.training_splits()
    recorded = recorded_data({"data": trained.to_config()})
    again = resolve_data(path, recorded=recorded)
    assert again.load("test")[0] == trained.load("test")[0]
    with open(path, "a", encoding="utf-8") as f:
        f.write("one more cooking text,cooking\n")
    changed = resolve_data(path, recorded=recorded)
    with pytest.raises(DataSourceError, match="changed since the model was trained"):
        changed.load("test")
    assert len(changed.load("all")[0]) == 61


def test_a_given_split_is_kept_and_validation_is_held_out_of_train(tmp_path):
    rows = _rows(10)
    root = tmp_path / "imdb_like"
    _write_folder(root / "train", rows)
    _write_folder(root / "test", [(t + " test", y) for t, y in rows[:9]])
    source = resolve_data(str(root), training=True)
    test_texts, _ = source.load("test")
    assert len(test_texts) == 9 and all(t.endswith(" test") for t in test_texts)
    train, validation = source.load("train")[1], source.load("validation")[1]
    assert np.bincount(validation).tolist() == [1, 1, 1] and len(train) == 27
    source.training_splits()
    assert source.to_config()["split"]["method"].startswith("given; validation held out of train")

    csv_path = _write_csv(
        tmp_path / "s.csv",
        [(t, y, "test" if i < 6 else "train") for i, (t, y) in enumerate(rows)],
        header=("text", "label", "split"),
    )
    by_column = resolve_data(str(csv_path), training=True)
    assert len(by_column.load("test")[0]) == 6


def test_integer_labels_keep_their_ids_and_records_map_other_files(tmp_path):
    ints = _write_csv(tmp_path / "i.csv", [(f"t{i}", str(i % 3)) for i in range(30)])
    source = resolve_data(str(ints), training=True)
    assert source.classes == ["0", "1", "2"] and source.label_kind == "integers"
    assert source.load("all")[1].tolist() == [i % 3 for i in range(30)]
    numeric = _write_csv(tmp_path / "n.csv", [(f"t{i}", v) for i, v in enumerate(["10", "9", "2.0"] * 3)])
    assert resolve_data(str(numeric), training=True).classes == ["2", "9", "10"]

    other = _write_csv(tmp_path / "other.csv", [("a", "weather"), ("b", "cooking")])
    mapped = resolve_data(str(other), recorded={"classes": list(CLASSES)})
    assert mapped.load("all")[1].tolist() == [2, 0]
    stranger = _write_csv(tmp_path / "stranger.csv", [("a", "politics"), ("b", "cooking")])
    with pytest.raises(DataSourceError, match="'politics' is not one of the model's classes"):
        resolve_data(str(stranger), recorded={"classes": list(CLASSES)})
    # A registry model's classes are names, and its data's labels are 0/1.
    binary = _write_csv(tmp_path / "b.csv", [("good", "1"), ("bad", "0")])
    recorded = recorded_data({"arguments": {"dataset": "rotten_tomatoes"}})
    assert recorded["classes"] == list(DATASETS["rotten_tomatoes"].classes)
    assert resolve_data(str(binary), recorded=recorded).load("all")[1].tolist() == [1, 0]


def test_long_csv_fields_just_work(tmp_path):
    import csv as csv_module

    big = "word " * 250_000  # 1.25 MB in one field, past csv's 128 KB default limit
    rows = [(big if i == 0 else f"short text {i}", "spam" if i % 2 else "ham") for i in range(12)]
    path = _write_csv(tmp_path / "mail.csv", rows)
    limit = csv_module.field_size_limit()
    texts, labels = resolve_data(str(path), training=True).load("all")
    assert texts[0] == big and len(texts) == 12
    assert csv_module.field_size_limit() == limit
    bench_texts, bench_labels, _ = load_bench_texts(str(path), 50, split="all")
    assert bench_texts.count(big) == 1 and sorted(bench_labels) == [0] * 6 + [1] * 6


def test_bench_reads_the_held_out_split_and_unlabelled_lines(formats, tmp_path):
    texts, labels, description = load_bench_texts(str(formats["csv"]), 50)
    assert sorted(texts) == sorted(resolve_data(str(formats["csv"])).load("test")[0])
    assert len(texts) == 6 and "test split" in description
    with pytest.raises(BenchDataError, match="3 classes .* but the model has 2"):
        load_bench_texts(str(formats["csv"]), 50, num_classes=1)
    lines = tmp_path / "lines.txt"
    lines.write_text("first text\n\nsecond text\n", encoding="utf-8")
    assert load_bench_texts(str(lines), 5)[:2] == (["first text", "second text"], None)


def test_bad_files_give_one_line_naming_the_file(tmp_path):
    for argument, expect in bad_data_arguments(tmp_path):
        with pytest.raises(DataSourceError) as info:
            resolve_data(argument, training=True)
        message = one_line(str(info.value))
        assert expect in message, (argument, message)
        if os.path.exists(argument):
            assert argument in message


def test_too_few_rows_per_class_to_hold_out(tmp_path):
    path = _write_csv(tmp_path / "tiny.csv", [("a", "x"), ("b", "x"), ("c", "x"), ("d", "y"), ("e", "y")])
    source = resolve_data(str(path), training=True)
    with pytest.raises(DataSourceError, match="class 'y' has 2 row.*at least 3 per class.*split column"):
        source.load("test")
    assert len(source.load("all")[0]) == 5


def test_tfds_without_tensorflow_datasets_says_how_to_install(no_tfds):
    with pytest.raises(DatasetUnavailableError) as info:
        resolve_data("tfds:imdb_reviews", training=True)
    message = one_line(str(info.value))
    assert "tfds:imdb_reviews" in message and "not installed" in message
    assert "pip install 'keras-skim[tfds]'" in message
