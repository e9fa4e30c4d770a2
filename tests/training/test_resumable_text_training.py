"""`keras-skim train --resume` for the skim cells and baselines (issue 31): a real tiny run stopped in the middle
of an epoch and resumed ends exactly as the run never stopped (weights, history, early-stopping state); bad uses
of the checkpoint are one line, exit 2."""

import json
import os
import zipfile

import numpy as np
import pytest

from keras_skim.cli.main import main
from tests.tiny_data import use_tiny_rotten_tomatoes

# A skim cell (Gumbel noise each step) under step patience; its stopper state and seed generators must carry over.
# (At this learning rate the validation accuracy peaks by the second epoch, so the stop comes after the resume.)
SKIM = [
    "--cell",
    "skim-lstm",
    "--small-units",
    "4",
    "--epochs",
    "8",
    "--patience-steps",
    "4",
    "--learning-rate",
    "0.01",
]
# A baseline under Keras' own EarlyStopping (patience 2 epochs, best weights restored).
LSTM = ["--cell", "lstm", "--epochs", "6", "--learning-rate", "0.01"]
TRAIN = ["train", "--data", "rotten_tomatoes", "--units", "8", "--no-glove", "--max-length", "12", "--quiet"]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """cell arguments -> the folder of `keras-skim train` run with them and without the checkpoint
    options: trained on first use, then shared (the stopped runs must end as it did, and a
    checkpointed run must train what it trained)."""
    root, folders = tmp_path_factory.mktemp("uninterrupted"), {}

    def get(cell):
        key = " ".join(cell)
        if key not in folders:
            with pytest.MonkeyPatch.context() as patch:
                use_tiny_rotten_tomatoes(patch, root)
                folders[key] = root / f"run{len(folders)}"
                assert main(TRAIN + cell + ["-o", str(folders[key])]) == 0
        return folders[key]

    return get


@pytest.fixture
def tiny_data(tmp_path, monkeypatch):
    (tmp_path / "data").mkdir()
    use_tiny_rotten_tomatoes(monkeypatch, tmp_path / "data")
    monkeypatch.setenv("KERAS_SKIM_CACHE", str(tmp_path / "cache"))
    return tmp_path


def _weights(folder):
    """The model's weights (every array of model.weights.h5 in the .keras archive), by name."""
    import h5py

    with zipfile.ZipFile(os.path.join(folder, "model.keras")) as archive:
        with archive.open("model.weights.h5") as raw, h5py.File(raw, "r") as h5:
            arrays = {}
            h5.visititems(lambda name, item: arrays.update({name: item[()]}) if hasattr(item, "shape") else None)
    return arrays


def _record(folder):
    with open(os.path.join(folder, "train_config.json")) as f:
        return json.load(f)


def _stop_in_epoch(monkeypatch, epoch):
    """Ctrl-C at the second batch of `epoch` (0-based): the epochs before it are checkpointed, that one is lost."""
    from keras_skim.training.epoch_checkpoint import EpochCheckpoint

    def interrupt(self, batch, logs=None):
        if self.initial_epoch == epoch and batch == 1:
            raise KeyboardInterrupt

    monkeypatch.setattr(EpochCheckpoint, "on_train_batch_end", interrupt, raising=False)


@pytest.mark.parametrize("cell", [SKIM, LSTM], ids=["skim-lstm-step-patience", "lstm-early-stopping"])
def test_a_run_stopped_mid_epoch_and_resumed_ends_as_the_uninterrupted_run(
    cell, tiny_data, uninterrupted, monkeypatch, capsys
):
    whole = uninterrupted(cell)
    argv = TRAIN + cell + ["--run-name", "stopped", "-o", str(tiny_data / "stopped")]
    with monkeypatch.context() as patch:
        _stop_in_epoch(patch, 2)
        assert main(argv) == 130
    assert "run the same command with --resume to continue" in capsys.readouterr().err
    assert not os.path.exists(tiny_data / "stopped")
    assert main(argv) == 2  # a checkpoint there: resume it or start over, never silently
    assert "holds a checkpoint of this run: resume it (--resume) or start over (--force)" in capsys.readouterr().err
    assert main(argv + ["--resume"]) == 0
    expected, resumed = _record(whole), _record(tiny_data / "stopped")
    assert resumed["history"] == expected["history"] and resumed["epochs_run"] == expected["epochs_run"]
    assert resumed["test"] == expected["test"] and resumed["validation"] == expected["validation"]
    # The stop fell inside the run, and early stopping ended it after the resume: its state was carried over.
    assert 3 <= expected["epochs_run"] < int(cell[cell.index("--epochs") + 1])
    one, other = _weights(whole), _weights(tiny_data / "stopped")
    assert one.keys() == other.keys() and all(np.array_equal(one[k], other[k]) for k in one)
    assert resumed["arguments"]["run_dir"] == str(tiny_data / "cache" / "runs" / "stopped")


def test_a_finished_run_is_rewritten_from_its_checkpoint_and_resume_starts_a_new_one(tiny_data, uninterrupted, capsys):
    argv = TRAIN + LSTM + ["--resume", "-o", str(tiny_data / "m")]
    assert main(argv) == 0  # no checkpoint yet: --resume starts the run (the presets' commands rely on it)
    first = _record(tiny_data / "m")
    run_dir = first["arguments"]["run_dir"]
    assert os.path.basename(run_dir).startswith("m-") and os.listdir(run_dir) == ["checkpoint.npz"]
    assert main(argv + ["--force"]) == 0  # resumed after its last epoch: nothing trained, the same model
    again = _record(tiny_data / "m")
    assert again["history"] == first["history"] and again["test"] == first["test"]
    plain_folder = uninterrupted(LSTM)  # the command without the options: no checkpoint
    plain = _record(plain_folder)
    # ... and the same training: a checkpointed command trains what the command without the options would.
    assert plain["history"] == first["history"] and plain["test"] == first["test"]
    assert "run_dir" not in plain["arguments"] and not os.path.exists(plain_folder.parent / "cache" / "runs")
    assert os.listdir(tiny_data / "cache" / "runs") == [os.path.basename(run_dir)]
    _bad_resumes_are_one_line(tiny_data, os.path.basename(run_dir), first, capsys)


def _error_line(capsys):
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


def _bad_resumes_are_one_line(tiny_data, run_name, first, capsys):
    """Bad resumes of the finished run's checkpoint (`run_name`, of TRAIN + LSTM) are one line, exit 2."""
    capsys.readouterr()
    argv = TRAIN + LSTM + ["--run-name", run_name, "-o", str(tiny_data / "m")]
    # Other settings than the checkpoint's: refused, naming the difference.
    other = ["--cell", "lstm", "--epochs", "5", "--learning-rate", "0.01"]
    assert main(TRAIN + other + ["--run-name", run_name, "--resume", "-o", str(tiny_data / "o")]) == 2
    line = _error_line(capsys)
    assert "was written with other settings (epochs: 6 then, 5 now)" in line and "start over (--force)" in line
    # A damaged checkpoint: one line, and --force without --resume starts over.
    checkpoint = tiny_data / "cache" / "runs" / run_name / "checkpoint.npz"
    with open(checkpoint, "r+b") as f:
        f.truncate(os.path.getsize(checkpoint) // 2)
    assert main(argv + ["--resume", "--force"]) == 2
    assert "checkpoint.npz: not a checkpoint keras-skim can resume" in _error_line(capsys)
    assert main(argv + ["--force"]) == 0
    assert _record(tiny_data / "m")["history"] == first["history"]


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--run-name", "../up"], "--run-name must be a folder name"),
        (["--run-name", "r" * 300], "--run-name must be at most 255 bytes"),
    ],
)
def test_a_bad_run_name_is_one_line_before_any_training(extra, message, tmp_path, capsys):
    assert main(["train", "--cell", "skim-lstm", "--resume", *extra, "-o", str(tmp_path / "o")]) == 2
    assert message in _error_line(capsys)
    assert not os.path.exists(tmp_path / "o")
