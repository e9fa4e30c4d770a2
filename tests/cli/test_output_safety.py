"""Nothing lost through the CLI: `--force` never deletes what keras-skim did
not write nor a command's own inputs, a folder that cannot be written fails
before training, and Ctrl-C or a full disk during `train`'s save leave no
half-written folder (exit 130 / 2, one line). Run in-process on tiny data."""

import os
import resource
import shutil
import signal

import pytest

from keras_skim import output_folder
from keras_skim.cli.main import main
from tests.assertions import one_line
from tests.conftest import TRAIN


def _made_by_keras_skim(folder, files):
    with output_folder.staged_output_dir(folder) as stage:
        for name, text in files.items():
            with open(os.path.join(stage, name), "w") as f:
                f.write(text)


def test_export_force_keeps_files_the_user_added(exported, tmp_path, capsys):
    model, export_dir, _ = exported("skim")
    out = tmp_path / "exp"
    shutil.copytree(export_dir, out)
    (out / "notes.txt").write_text("mine")
    (out / "mydata").mkdir()
    (out / "mydata" / "keep.csv").write_text("text,label\n")
    capsys.readouterr()
    assert main(["export", model, "-o", str(out), "--force", "--parity-samples", "1"]) == 2
    line = one_line(capsys.readouterr().err)
    assert "notes.txt" in line and "mydata/" in line and "--force replaces only" in line
    assert (out / "notes.txt").read_text() == "mine" and (out / "mydata" / "keep.csv").read_text() == "text,label\n"
    (out / "notes.txt").unlink()
    shutil.rmtree(out / "mydata")
    output_folder.check_output_folder(out, force=True)  # as keras-skim wrote it: replaceable
    assert sorted(output_folder.written_files(out)) == ["metadata.json", "model.tflite", "tokenizer.json"]


@pytest.mark.parametrize("command", ["train", "demo"])
def test_force_never_replaces_the_training_data(command, tmp_path, capsys):
    out = tmp_path / "run"
    _made_by_keras_skim(out, {"reviews.csv": "text,label\ngood,1\nbad,0\n"})
    data = out / "reviews.csv"
    argv = TRAIN[:1] + ["--data", str(data)] if command == "train" else ["demo", "--data", str(data)]
    assert main(argv + ["-o", str(out), "--force"]) == 2
    assert f"would replace the input {data}" in one_line(capsys.readouterr().err)
    assert data.read_text().startswith("text,label")


def test_a_name_too_long_fails_before_training(tmp_path, capsys):
    out = tmp_path / ("x" * 300)
    assert main(TRAIN + ["--cell", "lstm", "-o", str(out)]) == 2
    assert "cannot create the output folder" in one_line(capsys.readouterr().err)
    assert os.listdir(tmp_path) == []


def _during_save(monkeypatch, action):
    """Runs `action()` once, as Keras' model.save opens its weights file
    (inside a bare `except:` that falls back to another way of writing)."""
    from keras.src.saving import saving_lib

    done = []

    class Store(saving_lib.H5IOStore):
        def __init__(self, *args, **kwargs):
            if not done:
                done.append(True)
                action()
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(saving_lib, "H5IOStore", Store)


def test_ctrl_c_during_the_save_exits_130_and_leaves_nothing(
    tmp_path, tiny_rotten_tomatoes, monkeypatch, capsys, sigint_handler
):
    sigint_handler(signal.default_int_handler)  # Ctrl-C as in a terminal, also when pytest runs in the background
    _during_save(monkeypatch, lambda: os.kill(os.getpid(), signal.SIGINT))
    out = tmp_path / "out"
    assert main(TRAIN + ["--cell", "lstm", "-o", str(out)]) == 130
    assert one_line(capsys.readouterr().err) == "keras-skim train: interrupted"
    assert not out.exists() and [n for n in os.listdir(tmp_path) if n.startswith(".keras-skim")] == []


def test_a_full_disk_during_the_save_is_one_line_and_leaves_nothing(
    tmp_path, tiny_rotten_tomatoes, monkeypatch, capsys
):
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
    # The file size limit stands in for a full disk: the real write fails.
    _during_save(monkeypatch, lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (4096, hard)))
    out = tmp_path / "out"
    try:
        code = main(TRAIN + ["--cell", "lstm", "-o", str(out)])
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)
    assert code == 2
    line = one_line(capsys.readouterr().err)
    assert "cannot write the output" in line and "nothing was written" in line
    assert not out.exists() and [n for n in os.listdir(tmp_path) if n.startswith(".keras-skim")] == []
