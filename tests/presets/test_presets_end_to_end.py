"""A real preset end to end: benchmarks/make_preset.py turns the suite's trained Skim-LSTM folder into a
preset (the real test-split evaluation), then from_preset, tokenizer_from_preset, list_presets and the CLI
(`presets`, `show`, `evaluate`, `export`'s resolution) find it by name, folder and file:// handle."""

import json
import pathlib

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
    for name in ("model.keras", "tokenizer.json", "train_config.json"):
        assert (folder / name).read_bytes() == (pathlib.Path(trained_folder("skim")) / name).read_bytes()
