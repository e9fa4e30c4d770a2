"""Hostile `--data` files (issue 30, rows 1-4): labels that overflow a
float, deeply nested JSON lines, data "files" that are devices, FIFOs or
huge sparse files, and folder walks through link loops. Each is one
`DataSourceError` line naming the file, read with bounded memory, never a
hang. TensorFlow-free."""

import os
import resource

import pytest

from keras_skim.datasets import DataSourceError, text_files
from keras_skim.datasets.registry import resolve_data
from tests.assertions import one_line


def _refused(spec, expect, **kwargs):
    with pytest.raises(DataSourceError) as info:
        resolve_data(str(spec), **kwargs).load("all")
    message = one_line(str(info.value))
    assert expect in message, message
    return message


@pytest.mark.parametrize("label", ["1e400", "-1e400", "1" * 5000, "1." + "0" * 10 + "e999"])
def test_a_label_that_overflows_a_float_is_one_line(tmp_path, label):
    data = tmp_path / "inf.csv"
    data.write_text(f"text,label\ngood,{label}\nbad,0\n", encoding="utf-8")
    message = _refused(data, "line 2: label", labelled=True)
    assert "is neither an integer nor a class name" in message and len(message) < 400


def test_a_json_number_label_of_infinity_is_one_line(tmp_path):
    data = tmp_path / "inf.jsonl"
    data.write_text('{"text": "good", "label": 1e400}\n{"text": "bad", "label": 0}\n', encoding="utf-8")
    _refused(data, "line 1: label inf is neither", labelled=True)


@pytest.mark.parametrize("depth", [100, 100_000])
def test_deeply_nested_json_lines_are_one_line(tmp_path, depth):
    data = tmp_path / "deep.jsonl"
    data.write_text(
        '{"text": "fine", "label": 0}\n{"text": ' + "[" * depth + "]" * depth + ', "label": 1}\n', encoding="utf-8"
    )
    _refused(data, "deep.jsonl line 2: JSON nested too deeply", labelled=True)


def _folder(tmp_path):
    root = tmp_path / "d"
    for label in ("neg", "pos"):
        (root / label).mkdir(parents=True)
        for i in range(3):
            (root / label / f"{i}.txt").write_text(f"{label} text {i}", encoding="utf-8")
    return root


def test_a_device_linked_into_a_folder_data_set_is_refused_unread(tmp_path):
    root = _folder(tmp_path)
    (root / "pos" / "z.txt").symlink_to("/dev/zero")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    _refused(root, "z.txt: is a character device, not a regular file")
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000  # kB


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    root = _folder(tmp_path)
    os.mkfifo(root / "pos" / "p.txt")
    _refused(root, "p.txt: is a FIFO (named pipe), not a regular file")
    os.mkfifo(tmp_path / "p.csv")
    _refused(tmp_path / "p.csv", "p.csv: is a FIFO (named pipe), not a regular file")


def test_dev_zero_as_a_data_file_is_named_for_what_it_is(tmp_path):
    (tmp_path / "z.csv").symlink_to("/dev/zero")
    _refused(tmp_path / "z.csv", "z.csv: is a character device, not a regular file")


def test_a_huge_sparse_data_file_is_refused_from_its_size(tmp_path, monkeypatch):
    monkeypatch.setattr(text_files, "MAX_FILE_BYTES", 1 << 20)
    big = tmp_path / "big.csv"
    with open(big, "wb") as f:
        f.write(b"text,label\n")
        f.truncate(20 << 30)  # 20 GB, sparse: never read
    _refused(big, f"big.csv: larger than {1 << 20} bytes")


def test_a_folder_data_set_is_capped_in_total(tmp_path, monkeypatch):
    root = _folder(tmp_path)
    monkeypatch.setattr(text_files, "MAX_FILE_BYTES", 40)  # six 10-byte files
    _refused(root, "larger than")


@pytest.mark.parametrize(
    "links, expect",
    [
        ({"pos/x": "..", "pos/y": ".."}, "links to a folder already read"),
        ({"pos/self": "."}, "links to a folder already read"),
        ({"pos/out": "/"}, "links to a folder outside"),
    ],
)
def test_folder_walks_stop_at_loops_and_links_out(tmp_path, links, expect):
    root = _folder(tmp_path)
    for name, target in links.items():
        (root / name).symlink_to(target, target_is_directory=True)
    _refused(root, expect)


def test_a_link_to_a_sub_folder_inside_the_data_set_is_read_once(tmp_path):
    root = _folder(tmp_path)
    (root / ".shared").mkdir()
    (root / ".shared" / "more.txt").write_text("more positive text", encoding="utf-8")
    (root / "pos" / "more").symlink_to(root / ".shared", target_is_directory=True)
    table = text_files.read_path(str(root))
    assert sum(text == "more positive text" for text in table.texts) == 1


def test_training_data_too_small_to_hold_out_names_no_split_option(tmp_path):
    # `train` has no --split, so its message must not suggest one.
    data = tmp_path / "small.csv"
    data.write_text("text,label\na,x\nb,y\nc,x\nd,y\n", encoding="utf-8")
    with pytest.raises(DataSourceError) as info:
        resolve_data(str(data), training=True).training_splits()
    assert "--split" not in str(info.value) and "split column" in str(info.value)


def test_bench_maps_labels_through_the_model_class_names(tmp_path):
    # Issue 30, row 13: labels -1/1 were mapped by sorted position onto a 0/1 model (accuracy
    # 0.36 instead of 0.64); `evaluate` refuses such a file, and so does bench now.
    from keras_skim.runtime.bench_data import BenchDataError, load_bench_texts

    data = tmp_path / "signs.csv"
    data.write_text("text,label\n" + "".join(f"t{i},{1 if i % 2 else -1}\n" for i in range(40)), encoding="utf-8")
    with pytest.raises(BenchDataError, match="label '-1' is not one of the model's classes"):
        load_bench_texts(str(data), 10, split="all", num_classes=1, class_names=["0", "1"])
    named = tmp_path / "named.csv"
    named.write_text("text,label\n" + "".join(f"t{i},{'pos' if i % 2 else 'neg'}\n" for i in range(40)), "utf-8")
    texts, labels, _ = load_bench_texts(str(named), 40, split="all", num_classes=1, class_names=["pos", "neg"])
    assert all(label == (0 if int(text[1:]) % 2 else 1) for text, label in zip(texts, labels))
