"""`keras-skim demo` prints, beside its own short training's table, what the presets of its two models reach on
its data (their cards), and says so plainly when there is none (issue 31). No TensorFlow: the cards only."""

import pytest

from keras_skim.presets import read_card
from keras_skim.presets.preset_card import card_from_record, card_json


def _card(folder, name, data="rotten_tomatoes", **fields):
    record = {
        "name": name,
        "data": data,
        "split": "test",
        "test_examples": 1066,
        "test_accuracy": 0.8125,
        "flop_r": 1.0,
        "baseline": None,
        "command": "keras-skim train ...",
        "commit": "0123abc",
        "license": "Apache-2.0",
        **fields,
    }
    (folder / name).mkdir(parents=True)
    (folder / name / "preset.json").write_text(card_json(card_from_record("x", record)))
    return read_card(folder / name / "preset.json")


@pytest.fixture
def cards(monkeypatch):
    """The cards `list_presets()` returns, as the test sets them (not the checkout's presets/)."""
    import keras_skim.presets

    found = {}
    monkeypatch.setattr(keras_skim.presets, "list_presets", lambda: dict(found))
    return found


def test_the_demo_prints_each_preset_of_its_models_on_its_data(cards, tmp_path):
    from keras_skim.cli.demo_command import preset_lines

    cards["skim_lstm_rotten_tomatoes"] = _card(tmp_path, "skim_lstm_rotten_tomatoes", skim_rate=0.61, flop_r=2.25)
    cards["lstm_rotten_tomatoes"] = _card(tmp_path, "lstm_rotten_tomatoes")
    cards["skim_lstm_imdb"] = _card(tmp_path, "skim_lstm_imdb", data="imdb", skim_rate=0.9, flop_r=3.0)
    lines = preset_lines("rotten_tomatoes")
    assert "| skim_lstm_rotten_tomatoes | 0.8125 | 0.610 | 2.25x | test (1066) |" in lines
    assert "| lstm_rotten_tomatoes | 0.8125 | - | 1.00x | test (1066) |" in lines  # no skim rate: none claimed
    assert not any("imdb" in line for line in lines) and not any(line.startswith("No preset") for line in lines)


def test_the_demo_says_which_preset_is_missing_and_claims_nothing_for_it(cards, tmp_path):
    from keras_skim.cli.demo_command import preset_lines

    assert preset_lines("rotten_tomatoes") == [
        "No preset of Skim-LSTM or LSTM on rotten_tomatoes is installed (`keras-skim presets` lists those that are)."
    ]
    cards["lstm_rotten_tomatoes"] = _card(tmp_path, "lstm_rotten_tomatoes")
    # A card named like the demo's model but of other data is not its preset on this data.
    cards["skim_lstm_rotten_tomatoes"] = _card(tmp_path, "skim_lstm_rotten_tomatoes", data="imdb", skim_rate=0.5)
    lines = preset_lines("rotten_tomatoes")
    assert lines[-1] == (
        "No preset of Skim-LSTM on rotten_tomatoes is installed (`keras-skim presets` lists those that are)."
    )
    assert [line for line in lines if line.startswith("| ") and "preset" not in line] == [
        "| lstm_rotten_tomatoes | 0.8125 | - | 1.00x | test (1066) |"
    ]


def test_a_bad_card_is_one_line_not_a_failed_demo(monkeypatch):
    import keras_skim.presets
    from keras_skim.cli.demo_command import preset_lines
    from keras_skim.presets import PresetError

    def bad():
        raise PresetError('presets/x/preset.json: "test_accuracy" must be a finite number from 0 to 1; got 1.5')

    monkeypatch.setattr(keras_skim.presets, "list_presets", bad)
    assert preset_lines("rotten_tomatoes") == [
        'The presets could not be read: presets/x/preset.json: "test_accuracy" must be a finite number from 0 to 1; '
        "got 1.5"
    ]
