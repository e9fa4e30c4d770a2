import os
import pathlib
import shlex
import sys

import pytest

from tests.tiny_data import use_tiny_rotten_tomatoes

BENCHMARKS = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"
NAME = "tiny_skim_rotten_tomatoes"


@pytest.fixture
def benchmarks(monkeypatch):
    """benchmarks/ on sys.path, as its scripts put it, for the preset scripts the tests import."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    yield
    for module in ("make_preset", "train_presets", "scornn_tasks", "presets_table", "preset_check", "skim_attempts"):
        sys.modules.pop(module, None)


@pytest.fixture
def tiny_rotten_tomatoes(tmp_path, monkeypatch):
    """The suite's tiny Rotten Tomatoes data (tests/tiny_data.py), the data the shared trained folders read."""
    (tmp_path / "data").mkdir()
    return use_tiny_rotten_tomatoes(monkeypatch, tmp_path / "data")


@pytest.fixture
def preset_root(tmp_path, monkeypatch, trained_folder, tiny_rotten_tomatoes, benchmarks):
    """A presets root holding one real preset, made by benchmarks/make_preset.py from the suite's
    Skim-LSTM folder (tests/conftest.py `trained_folder`), and found by name through $KERAS_SKIM_PRESETS."""
    import make_preset

    from tests import conftest

    root = tmp_path / "presets"
    argv = [trained_folder("skim"), "--name", NAME, "--data", "rotten_tomatoes", "-o", str(root / NAME)]
    argv += ["--baseline", "lstm_rotten_tomatoes", "--baseline-accuracy", "0.75", "--commit", "0123abc"]
    # The command that trained the suite's folder; not one of train_presets.py, so given here.
    argv += ["--command", shlex.join(["keras-skim", *conftest.TRAIN, *conftest.KINDS["skim"]])]
    assert make_preset.main(argv) == 0
    monkeypatch.setenv("KERAS_SKIM_PRESETS", str(root))
    assert os.path.isfile(root / NAME / "preset.json")
    return root
