import json
import os

import numpy as np
import pytest

from tests.export.helpers import train_tiny


def _ops(export_dir):
    from keras_skim.runtime.tflite_check import op_inventory

    with open(os.path.join(export_dir, "model.tflite"), "rb") as f:
        return op_inventory(f.read())


@pytest.mark.parametrize("name", ["skim", "lstm"])
def test_builtin_ops_only(exported, name):
    _, export_dir, _ = exported(name)
    ops = _ops(export_dir)
    flat = [op for subgraph in ops.values() for op in subgraph]
    assert not [op for op in flat if op.startswith("CUSTOM") or "FLEX" in op]
    assert "WHILE" in flat and "FULLY_CONNECTED" in flat
    assert "ARG_MAX" not in flat and "BITWISE_AND" not in flat
    if name == "skim":
        assert "IF" in flat
        # every branch holds its own FULLY_CONNECTED: the skim branch has no big matmul
        branches = [ops for sub, ops in ops.items() if "cond_true" in sub or "cond_false" in sub]
        assert len(branches) == 2
    else:
        assert "IF" not in flat


def test_metadata_and_files(exported, trained_folder):
    """A folder written by the real `keras-skim train` exports with its
    training length, and parity runs real texts of its data set."""
    from keras_skim import contracts
    from keras_skim.datasets.tokenizer import Tokenizer
    from tests.conftest import MAX_LENGTH

    _, export_dir, result = exported("skim")
    assert sorted(os.listdir(export_dir)) == sorted(
        [contracts.MARKER_FILE, "metadata.json", "model.tflite", "tokenizer.json"]
    )
    meta = json.load(open(os.path.join(export_dir, "metadata.json")))
    assert meta["format"] == "keras_skim.export" and meta["version"] == 3  # 3: the one signature, class_names
    assert meta["model_kind"] == "skim_lstm"
    vocabulary = Tokenizer.load(os.path.join(trained_folder("skim"), "tokenizer.json")).vocabulary_size
    assert (meta["units"], meta["small_units"], meta["embedding_dim"], meta["vocabulary_size"]) == (
        16,
        4,
        50,
        vocabulary,
    )
    assert meta["num_classes"] == 1 and meta["output_activation"] == "linear"
    assert meta["max_length"] == MAX_LENGTH and meta["default_threshold"] == pytest.approx(0.5)
    assert meta["padding_id"] == 0 and "p_read >= t" in meta["threshold_rule"]
    assert set(meta["inputs"]) == {"token_ids", "threshold"}
    assert set(meta["outputs"]) == {"logits", "read_mask", "read_count"}
    assert meta["flops"]["skim_flops_per_token"] < meta["flops"]["read_flops_per_token"]
    assert meta["tflite_bytes"] == os.path.getsize(os.path.join(export_dir, "model.tflite"))
    assert meta["parity"]["ok"] and result.parity.mismatched_decisions == 0
    assert meta["parity"]["real_texts"] == 4


@pytest.mark.parametrize("name", ["skim", "skip", "gru"])
def test_parity_against_read_decisions(exported, name):
    """Cross-check with the step-by-step Keras reference at several thresholds."""
    import keras

    from keras_skim import set_threshold
    from keras_skim.models.skim_rnn.skim_statistics import read_decisions
    from keras_skim.runtime import SkimRunner

    path, export_dir, result = exported(name)
    assert result.parity.ok and len(result.parity.thresholds) >= 4
    model = keras.saving.load_model(path)
    runner = SkimRunner(export_dir)
    ids = np.random.default_rng(3).integers(1, runner.vocabulary_size, size=20).astype(np.int32)
    for threshold in (0.0, 0.4, 0.5, 0.6, 2.0):
        out = runner.run_ids(ids, threshold)
        np.testing.assert_array_equal(out["read_mask"][0], read_decisions(model, ids, threshold))
        set_threshold(model, threshold)
        padded = np.zeros((1, 30), np.int32)
        padded[0, :20] = ids
        expected = np.asarray(model(padded, training=False))
        np.testing.assert_allclose(out["logits"], expected, atol=1e-4)


def test_threshold_is_a_runtime_input(exported):
    from keras_skim.runtime import SkimRunner

    _, export_dir, _ = exported("skim")
    runner = SkimRunner(export_dir)
    ids = np.random.default_rng(1).integers(1, runner.vocabulary_size, size=40)
    counts = [int(runner.run_ids(ids, t)["read_count"][0]) for t in (0.0, 0.3, 0.5, 0.7, 1.0, 1.5)]
    # A lower threshold reads more (contracts.THRESHOLD_RULE): 0 reads all, >= 1 none.
    assert counts[0] == 40 and counts[-1] == 0 and counts[-2] == 0
    assert counts == sorted(counts, reverse=True)


def test_gru_and_lstm_baseline(exported):
    _, _, gru = exported("gru")
    assert gru.metadata["model_kind"] == "skim_gru" and gru.parity.ok
    _, export_dir, lstm = exported("lstm")
    assert lstm.metadata["model_kind"] == "lstm" and lstm.metadata["small_units"] == 0
    assert any("no keras-skim layer" in note for note in lstm.notes)
    from keras_skim.runtime import SkimRunner

    out = SkimRunner(export_dir).run_ids(np.arange(1, 15))
    assert out["read_mask"].tolist() == [[1] * 14] and int(out["read_count"][0]) == 14


def test_exported_size_close_to_keras_weights(tmp_path):
    from keras_skim.export.exporter import export_model

    path, _ = train_tiny(
        str(tmp_path / "big"), "skim_lstm", vocabulary=3000, embedding=32, units=32, small_units=4, fit=False
    )
    result = export_model(path, str(tmp_path / "out"), parity_samples=1, backend="builtin")
    meta = result.metadata
    assert meta["tflite_bytes"] <= 1.1 * meta["keras_weights_bytes"], meta


def test_parity_runs_the_caller_s_texts(tmp_path):
    """Texts the caller gives are encoded with the export's tokenizer and
    checked first, then random ids fill up to parity_samples."""
    from keras_skim.export.exporter import export_model

    path, _ = train_tiny(str(tmp_path / "m"), "skim_lstm", fit=False)
    texts = ["a good film", "not a good film at all"]
    result = export_model(path, str(tmp_path / "out"), parity_samples=3, backend="builtin", parity_texts=texts)
    assert result.metadata["parity"]["real_texts"] == 2 and result.parity.samples == 3


def test_recorded_data_not_at_hand_is_a_note(tmp_path):
    """A train_config.json whose data file is gone: parity runs on random
    ids and a note says why (no silent fallback)."""
    from keras_skim.export.exporter import export_model

    folder = tmp_path / "m"
    train_tiny(str(folder), "skim_lstm", fit=False)
    gone = str(tmp_path / "gone.csv")
    record = {"arguments": {"dataset": gone, "max_length": 30}, "data": {"path": gone, "format": "csv"}}
    (folder / "train_config.json").write_text(json.dumps(record))
    result = export_model(str(folder), str(tmp_path / "out"), parity_samples=2, backend="builtin")
    assert result.metadata["parity"]["real_texts"] == 0
    assert [note for note in result.notes if "not at hand" in note and "gone.csv" in note and "\n" not in note]


def test_parity_failure_writes_nothing(tmp_path, monkeypatch):
    from keras_skim.export import ExportError, parity
    from keras_skim.export.exporter import export_model

    path, _ = train_tiny(str(tmp_path / "m"), "skim_lstm", fit=False)
    monkeypatch.setattr(parity, "EXACT", parity.Tolerance(atol=-1.0))
    with pytest.raises(ExportError, match="parity FAILED"):
        export_model(path, str(tmp_path / "out"), parity_samples=1)
    assert not (tmp_path / "out").exists()
    assert [p for p in os.listdir(tmp_path) if p.startswith(".keras-skim")] == []
