"""`keras-skim train/evaluate/show/export/bench --data` on the user's own
files: a three-class CSV end to end, a binary class folder, bad files."""

import csv
import json
import sys

import pytest

from keras_skim.cli.main import main
from tests.assertions import one_line
from tests.data_files import bad_data_arguments

WORDS = {
    "cooking": "recipe oven bake flour sugar butter taste dish".split(),
    "sports": "goal match team score win league player coach".split(),
    "weather": "rain sun cloud storm wind snow forecast cold".split(),
}
MODEL = [
    "--cell",
    "skim-lstm",
    "--units",
    "8",
    "--small-units",
    "2",
    "--epochs",
    "1",
    "--no-glove",
    "--max-length",
    "12",
    "--quiet",
]


def _three_class_rows(per_class=30):
    import random

    rng = random.Random(0)
    return [(" ".join(rng.choices(WORDS[name], k=8)) + f" note {i}", name) for i in range(per_class) for name in WORDS]


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    """three.csv (30 texts per class, names as labels) and the model folder
    `keras-skim train` wrote from it (the CLI's `main`, in this process: the
    entry point's own process is tested in test_one_line_errors.py)."""
    import contextlib
    import io

    root = tmp_path_factory.mktemp("three")
    data = root / "three.csv"
    with open(data, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["text", "label"])
        writer.writerows(_three_class_rows())
    run = root / "run"
    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(printed):
        patch.chdir(root)
        code = main(["train", "--data", str(data), *MODEL, "-o", str(run)])
    assert code == 0, printed.getvalue()[-2000:]
    assert f"wrote {run}" in printed.getvalue()
    return data, run


def _json_out(capsys, argv):
    capsys.readouterr()
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_train_records_the_data_and_gives_one_logit_per_class(three):
    from keras_skim.model_io import load_model

    data, run = three
    config = json.loads((run / "train_config.json").read_text())
    section = config["data"]
    assert section["classes"] == ["cooking", "sports", "weather"] and section["labels"] == "names"
    assert section["format"] == "csv" and section["path"] == str(data) and section["rows"] == 90
    assert section["split"]["seed"] == 0 and section["split"]["sizes"] == {"train": 72, "validation": 9, "test": 9}
    assert config["test"]["examples"] == 9 and config["train_examples"] == 72
    assert load_model(run / "model.keras").outputs[0].shape[-1] == 3


def test_evaluate_uses_the_recorded_split(three, capsys):
    data, run = three
    default = _json_out(capsys, ["evaluate", str(run), "--json"])
    assert default["classes"] == ["cooking", "sports", "weather"] and default["examples"] == 9
    config = json.loads((run / "train_config.json").read_text())
    assert default["accuracy"] == pytest.approx(config["test"]["accuracy"])
    named = _json_out(capsys, ["evaluate", str(run), "--data", str(data), "--json"])
    assert named["accuracy"] == default["accuracy"]
    assert _json_out(capsys, ["evaluate", str(run), "--split", "all", "--json"])["examples"] == 90
    reseeded = _json_out(capsys, ["evaluate", str(run), "--split-seed", "3", "--split", "validation", "--json"])
    assert reseeded["examples"] == 9


def test_show_prints_the_class_name_probability_and_label(three, capsys):
    from keras_skim.datasets.registry import resolve_data

    data, run = three
    capsys.readouterr()
    assert main(["show", str(run), "--data", str(data), "--index", "1", "--color", "never"]) == 0
    summary = capsys.readouterr().out.splitlines()[-1]
    texts, labels = resolve_data(str(data)).load("test")
    truth = ["cooking", "sports", "weather"][labels[1]]
    assert summary.startswith("prediction: ") and " (p=" in summary and f"label: {truth};" in summary
    assert summary.split()[1] in ("cooking", "sports", "weather")
    assert main(["show", str(run), "--data", str(data), "--index", "9"]) == 2
    assert "has 9 texts" in one_line(capsys.readouterr().err)


def test_export_and_bench_read_the_same_split(three, tmp_path, capsys):
    data, run = three
    evaluated = _json_out(capsys, ["evaluate", str(run), "--json"])
    exported = tmp_path / "exp"
    assert main(["export", str(run), "-o", str(exported)]) == 0
    assert json.loads((exported / "metadata.json").read_text())["num_classes"] == 3
    report = tmp_path / "report"
    assert main(["bench", str(exported), "--data", str(data), "--repeats", "1", "-o", str(report)]) == 0
    bench = json.loads((report / "report.json").read_text())
    assert bench["samples"] == 9 and "test split" in bench["data"]
    assert bench["results"][0]["accuracy"] == pytest.approx(evaluated["accuracy"])
    assert main(["bench", str(exported), "--data", "rotten_tomatoes", "--split", "all"]) == 2
    assert "rotten_tomatoes: unknown split 'all'" in one_line(capsys.readouterr().err)


def test_a_changed_file_is_not_split_again_silently(three, tmp_path, capsys):
    import shutil

    data, run = three
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    config = json.loads((copy / "train_config.json").read_text())
    config["data"]["sha256"] = "0" * 64  # as if three.csv had been edited since
    (copy / "train_config.json").write_text(json.dumps(config))
    capsys.readouterr()
    assert main(["evaluate", str(copy)]) == 2
    assert "changed since the model was trained" in one_line(capsys.readouterr().err)
    assert main(["evaluate", str(copy), "--split", "all", "--json"]) == 0


def test_binary_class_folder_keeps_the_single_logit(tmp_path, capsys):
    from keras_skim.model_io import load_model

    folder = tmp_path / "reviews"
    for name, words in (("neg", "dull boring flat awful"), ("pos", "great warm funny brilliant")):
        (folder / name).mkdir(parents=True)
        for i in range(12):
            (folder / name / f"{i}.txt").write_text(f"{words} review {i}", encoding="utf-8")
    run = tmp_path / "run"
    assert main(["train", "--data", str(folder), *MODEL, "-o", str(run)]) == 0
    assert load_model(run / "model.keras").outputs[0].shape[-1] == 1
    config = json.loads((run / "train_config.json").read_text())
    assert config["data"]["classes"] == ["neg", "pos"] and config["data"]["format"] == "folder"
    capsys.readouterr()
    assert main(["show", str(run), "--text", "great warm film", "--threshold", "0", "--color", "never"]) == 0
    summary = capsys.readouterr().out.splitlines()[-1]
    assert summary.split()[1] in ("neg", "pos") and "logit" in summary


def test_bad_data_exits_2_with_one_line_and_writes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorflow_datasets", None)  # as where it is not installed
    cases = bad_data_arguments(tmp_path) + [("tfds:imdb_reviews", "pip install 'keras-skim[tfds]'")]
    out = tmp_path / "out"
    for argument, expect in cases:
        capsys.readouterr()
        assert main(["train", "--data", argument, *MODEL, "-o", str(out)]) == 2, argument
        err = one_line(capsys.readouterr().err)
        assert expect in err, (argument, err)
        assert not out.exists()
