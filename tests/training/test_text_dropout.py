"""`keras-skim train --dropout` (issue 31, item 4's attempts): the skim cells' and baselines' dropout on the
recurrent layer's output reaches the model and its record, bad rates are one line, and a run checkpointed
before the option existed (no "dropout" in its settings) still resumes."""

import json

import pytest

from keras_skim.cli.main import main
from tests.tiny_data import use_tiny_rotten_tomatoes

TRAIN = ["train", "--data", "rotten_tomatoes", "--units", "8", "--no-glove", "--max-length", "12", "--quiet"]


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--dropout", "1"], "argument --dropout: expected a number in [0, 1), got '1'"),
        (["--dropout", "-0.1"], "argument --dropout: expected a number in [0, 1), got '-0.1'"),
        (["--dropout", "0.1", "--cell", "sj-lstm"], "--dropout does not apply to --cell sj-lstm"),
    ],
)
def test_a_bad_dropout_is_one_line(tmp_path, capsys, extra, message):
    assert main(["train", "--data", "rotten_tomatoes", "-o", str(tmp_path / "m"), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("rate", [1.0, -0.5, float("nan")])
def test_the_config_refuses_a_rate_outside_zero_to_one(rate):
    from keras_skim.models.text_classifier.text_classifier_config import TextClassifierTrainingConfig

    with pytest.raises(ValueError, match="dropout must be"):
        TextClassifierTrainingConfig(dropout=rate)


def test_the_dropout_is_in_the_model_and_its_record(tmp_path, monkeypatch):
    import keras

    (tmp_path / "data").mkdir()
    use_tiny_rotten_tomatoes(monkeypatch, tmp_path / "data")
    monkeypatch.setenv("KERAS_SKIM_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "model"
    assert main([*TRAIN, "--cell", "lstm", "--epochs", "1", "--dropout", "0.3", "-o", str(out)]) == 0
    model = keras.saving.load_model(out / "model.keras")
    assert model.get_layer("dropout").rate == pytest.approx(0.3)
    assert json.loads((out / "train_config.json").read_text())["arguments"]["dropout"] == pytest.approx(0.3)


def test_a_checkpoint_of_no_dropout_keeps_the_settings_it_had_before_the_option():
    """`_run_settings` leaves "dropout" out at 0, so that checkpoints written before the option resume; a rate
    other than 0 is part of the settings (a run with another rate is refused, not resumed)."""
    import types

    import numpy as np

    from keras_skim.models.text_classifier.text_classifier_config import TextClassifierTrainingConfig
    from keras_skim.models.text_classifier.text_classifier_training import _run_settings

    data = types.SimpleNamespace(
        source=None,
        splits={"train": (None, np.zeros(4)), "validation": (None, np.zeros(2))},
        tokenizer=types.SimpleNamespace(vocabulary_size=9),
        num_classes=2,
    )
    assert "dropout" not in _run_settings(TextClassifierTrainingConfig(cell="lstm"), data)
    assert _run_settings(TextClassifierTrainingConfig(cell="lstm", dropout=0.2), data)["dropout"] == 0.2
