"""A real preset end to end: benchmarks/make_preset.py turns the suite's trained Skim-LSTM folder into a
preset (the real test-split evaluation), then from_preset, tokenizer_from_preset, list_presets and the CLI
(`presets`, `show`, `evaluate`, `export`'s resolution) find it by name, folder and file:// handle."""

import json
import pathlib
import zipfile

import numpy as np

from keras_skim.cli.main import main
from tests.presets.conftest import NAME


def _json_of(capsys, argv):
    capsys.readouterr()
    assert main(argv) == 0
    out = capsys.readouterr().out
    return json.loads(out[out.rfind("\n{\n") + 1 if not out.startswith("{") else 0 :])


def test_make_preset_writes_the_card_of_the_real_evaluation(preset_root, trained_folder, capsys):
    folder = preset_root / NAME
    card = json.loads((folder / "preset.json").read_text())
    evaluated = _json_of(capsys, ["evaluate", trained_folder("skim"), "--data", "rotten_tomatoes", "--json"])
    assert card["test_accuracy"] == evaluated["accuracy"] and card["skim_rate"] == evaluated["skim_rate"]
    assert card["flop_r"] == evaluated["flop_r"] and card["test_examples"] == evaluated["examples"] > 0
    assert (card["name"], card["data"], card["split"], card["commit"]) == (NAME, "rotten_tomatoes", "test", "0123abc")
    assert card["baseline"] == {"name": "lstm_rotten_tomatoes", "test_accuracy": 0.75}
    assert "read_fraction_per_document" not in card and card["license"] == "Apache-2.0"
    assert card["command"].startswith("keras-skim train --data rotten_tomatoes")
    readme = (folder / "README.md").read_text()
    assert readme.startswith(f"# {NAME}\n")
    assert f"| test accuracy | {100 * card['test_accuracy']:.2f}% |" in readme
    assert f"| skim rate | {100 * card['skim_rate']:.2f}% |" in readme
    assert card["command"] in readme and "## Intended use" in readme and "## Limits" in readme
    # model.keras is re-saved without its optimizer state (its predictions: the next test).
    for name in ("tokenizer.json", "train_config.json"):
        assert (folder / name).read_bytes() == (pathlib.Path(trained_folder("skim")) / name).read_bytes()
    with zipfile.ZipFile(folder / "model.keras") as archive:
        assert "optimizer" not in archive.read("config.json").decode()


def test_from_preset_loads_the_model_and_its_tokenizer_by_name_folder_and_file_url(preset_root, trained_folder):
    import keras_skim
    from keras_skim.datasets import Tokenizer
    from keras_skim.model_io import load_model

    original = load_model(pathlib.Path(trained_folder("skim")) / "model.keras")
    expected_tokenizer = Tokenizer.load(trained_folder("skim"))
    texts = ["a fine and moving film", "dull and tired"]
    ids = expected_tokenizer.encode(texts, max_length=original.inputs[0].shape[1])
    expected = np.asarray(original.predict(ids, verbose=0))
    folder = preset_root / NAME
    for name in (NAME, str(folder), f"file://{folder}"):
        model, tokenizer = keras_skim.from_preset(name, tokenizer=True)
        np.testing.assert_allclose(np.asarray(model.predict(ids, verbose=0)), expected, rtol=1e-6, atol=1e-6)
        assert tokenizer.vocabulary == expected_tokenizer.vocabulary
    assert keras_skim.tokenizer_from_preset(NAME).vocabulary == expected_tokenizer.vocabulary
    assert type(keras_skim.from_preset(NAME)) is type(original)


def test_list_presets_and_the_presets_command(preset_root, capsys):
    import keras_skim

    cards = keras_skim.list_presets()
    card = cards[NAME]
    assert card.name == NAME and card.baseline.name == "lstm_rotten_tomatoes"
    assert main(["presets"]) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert header.split() == ["name", "data", "test", "acc", "skim", "/", "read", "Flop-R", "baseline", "from"]
    (row,) = [line for line in rows if line.startswith(f"{NAME} ")]  # the checkout's own presets are listed too
    assert row.split()[:3] == [NAME, "rotten_tomatoes", f"{card.test_accuracy:.2%}"]
    assert f"skim {card.skim_rate:.1%}" in row and "KERAS_SKIM_PRESETS" in row
    assert main(["presets", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[NAME] == card.as_dict()


def test_show_and_evaluate_take_a_preset_name(preset_root, capsys):
    import keras_skim

    card = keras_skim.list_presets()[NAME]
    capsys.readouterr()
    assert main(["show", NAME, "--text", "a fine and moving film"]) == 0
    assert "fine" in capsys.readouterr().out
    # The card is reproducible: evaluate on its data prints its accuracy and skim rate.
    assert main(["evaluate", NAME, "--data", card.data]) == 0
    out = capsys.readouterr().out
    assert f"accuracy  {card.test_accuracy:.4f}" in out and f"skim rate {card.skim_rate:.4f}" in out


def test_export_reads_a_preset_and_writes_into_the_working_folder(preset_root, tmp_path, monkeypatch):
    from keras_skim.cli.export_command import _model_and_output

    monkeypatch.chdir(tmp_path)
    assert main(["export", NAME, "--backend", "builtin", "--parity-samples", "1"]) == 0
    assert (tmp_path / f"{NAME}_tflite" / "model.tflite").stat().st_size > 0
    assert not (preset_root / f"{NAME}_tflite").exists()  # never next to the preset
    assert _model_and_output(NAME, None) == (str(preset_root / NAME), f"{NAME}_tflite")
    assert _model_and_output(NAME, "out") == (str(preset_root / NAME), "out")
    assert _model_and_output("some/folder", None) == ("some/folder", None)  # a path: as before


def test_a_jump_model_gets_its_read_fraction_per_document(trained_folder, tiny_rotten_tomatoes, benchmarks, tmp_path):
    import make_preset

    from keras_skim.presets import read_card

    argv = [trained_folder("sj"), "--name", "tiny_jump", "--data", "rotten_tomatoes", "-o", str(tmp_path / "p")]
    assert make_preset.main(argv + ["--command", "keras-skim train --cell sj-lstm (tests/conftest.py)"]) == 0
    card = read_card(tmp_path / "p" / "preset.json")
    assert card.skim_rate is None and 0.0 <= card.read_fraction_per_document <= 1.0 and card.baseline is None
    assert "| read per document |" in (tmp_path / "p" / "README.md").read_text()
