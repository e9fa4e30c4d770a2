"""A model on float sequences (`Input((T, F)) -> RNN -> Dense`, issue 19 item 3) exports and
runs in Python, but the app reads text: its export (a real one, `input_kind "sequence"`) is refused
in one line that says what the app runs, by the app's metadata reader (the Java core on the
desktop JVM), by its repository as a Problem the UI shows (never a crash), and by the release
pipeline that bundles the assets."""

import json
import os
import shutil

import pytest

from export import release_assets
from keras_skim import contracts
from tests.android.conftest import APP_MAIN, run_pipeline

REFUSAL = 'input_kind "sequence": ' + release_assets.TEXT_INPUTS_ONLY


@pytest.fixture(scope="module")
def sequence_export(tmp_path_factory):
    """The folder of a real export of a tiny scoRNN on [8, 1] float sequences."""
    import keras

    from keras_skim import ScoRNNCell
    from keras_skim.export.exporter import export_model

    root = tmp_path_factory.mktemp("sequence_app")
    model = keras.Sequential([keras.Input((8, 1)), keras.layers.RNN(ScoRNNCell(4, seed=0)), keras.layers.Dense(2)])
    model.save(root / "model.keras")
    export_model(str(root / "model.keras"), str(root / "export"), parity_samples=1)
    return root / "export"


def test_the_export_is_a_sequence_one(sequence_export):
    meta = json.loads((sequence_export / "metadata.json").read_text(encoding="utf-8"))
    assert meta["input_kind"] == contracts.INPUT_KIND_SEQUENCE and meta["vocabulary_size"] is None
    assert list(meta["inputs"]) == [contracts.INPUT_SEQUENCE]


def test_the_app_and_the_pipeline_say_the_same(probe):
    constants = probe.call("constants")
    assert constants["text_inputs_only"] == release_assets.TEXT_INPUTS_ONLY
    assert constants["token_ids_input"] == contracts.INPUT_KIND_TOKEN_IDS


def test_metadata_reader_refuses_it_in_one_line(probe, sequence_export):
    answer = probe.call("metadata", path=str(sequence_export / "metadata.json"))
    assert answer["error"] == REFUSAL
    # A token-id export (and one written before input_kind existed) still reads.
    token_meta = os.path.join(APP_MAIN, "assets", "keras_skim", "lstm_builtin", "metadata.json")
    meta = json.load(open(token_meta, encoding="utf-8"))
    assert meta["input_kind"] == contracts.INPUT_KIND_TOKEN_IDS
    assert probe.call("metadata", text=json.dumps(meta))["model_kind"] == "lstm"
    del meta["input_kind"]
    assert probe.call("metadata", text=json.dumps(meta))["model_kind"] == "lstm"


def test_repository_shows_it_as_a_problem(probe, sequence_export, tmp_path):
    """The committed assets with the LSTM's files swapped for the sequence export's: that model
    is a BAD_METADATA Problem naming the file, the others still load."""
    assets = tmp_path / "assets"
    shutil.copytree(os.path.join(APP_MAIN, "assets"), assets)
    target = assets / "keras_skim" / "lstm_builtin"
    for name in ("metadata.json", "model.tflite"):
        shutil.copyfile(sequence_export / name, target / name)
    answer = probe.call("repository", assets=str(assets))
    files = {m["id"]: m["files"] for m in answer["models"]}
    assert files.pop("lstm_builtin") == {
        "problem": "BAD_METADATA",
        "message": "keras_skim/lstm_builtin/metadata.json: " + REFUSAL,
    }
    assert files and all(value == "ok" for value in files.values())


def test_release_pipeline_refuses_it_in_one_line(sequence_export, tmp_path):
    code, out, err = run_pipeline(
        "assets",
        "--from-exports",
        str(sequence_export),
        "-o",
        str(tmp_path / "out"),
        "--golden",
        str(tmp_path / "golden"),
    )
    assert code == 2, err
    assert err == f"build_release.py assets: error: {sequence_export}: {REFUSAL}\n"  # one line, no traceback
    assert not os.path.exists(tmp_path / "out") and not os.path.exists(tmp_path / "golden")
