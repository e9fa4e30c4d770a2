"""`keras_skim.export(model_or_path, output_dir, ...)`: the callable export
package takes a Keras model in memory as well as a path, and gives the
bytes a bare `.keras` file of the same model gives."""

import json
import shutil

import pytest

import keras_skim
from keras_skim import contracts


def test_the_package_is_callable_and_keeps_its_names():
    import keras_skim.export as package
    from keras_skim.export import ExportError, export, export_model

    assert callable(keras_skim.export) and keras_skim.export is package
    assert package.export is export and package.export_model is export_model
    assert issubclass(ExportError, Exception)
    with pytest.raises(ExportError, match="^expected a keras.Model, a model folder or a .keras/.h5 file; got int$"):
        keras_skim.export(42, "unused")


def _without(metadata, *names):
    return {key: value for key, value in metadata.items() if key not in names}


def test_a_model_in_memory_exports_as_its_bare_keras_file(trained_folder, op_cache, tmp_path):
    """Byte for byte with the custom-op backend, whose flatbuffer is written
    by keras-skim (two TensorFlow conversions in one process differ in their
    subgraph names' counters)."""
    import keras

    from keras_skim.datasets import Tokenizer
    from keras_skim.export import ExportError, export_model

    folder = trained_folder("skim")
    bare = tmp_path / "bare"
    bare.mkdir()  # the model and its tokenizer without train_config.json
    for name in ("model.keras", contracts.TOKENIZER_FILE):
        shutil.copy(f"{folder}/{name}", bare / name)
    from_file = export_model(str(bare / "model.keras"), str(tmp_path / "from_file"), backend="custom")

    model = keras.saving.load_model(f"{folder}/model.keras")
    tokenizer = Tokenizer.load(folder)
    with pytest.raises(ExportError, match="^a model in memory has no folder to export next to: pass output_dir$"):
        keras_skim.export(model)
    in_memory = keras_skim.export(model, tmp_path / "in_memory", tokenizer=tokenizer, backend="custom")
    assert in_memory.parity.ok and in_memory.files == from_file.files
    for name in (contracts.TFLITE_FILE, contracts.TOKENIZER_FILE):
        assert (tmp_path / "in_memory" / name).read_bytes() == (tmp_path / "from_file" / name).read_bytes()
    memory_metadata = json.loads((tmp_path / "in_memory" / contracts.METADATA_FILE).read_text())
    file_metadata = json.loads((tmp_path / "from_file" / contracts.METADATA_FILE).read_text())
    assert memory_metadata["source_model"] is None and file_metadata["source_model"].endswith("model.keras")
    assert _without(memory_metadata, "source_model") == _without(file_metadata, "source_model")

    # Without a tokenizer the export takes token ids only, and says so.
    ids_only = keras_skim.export(model, str(tmp_path / "ids_only"), backend="custom", parity_samples=1)
    assert contracts.TOKENIZER_FILE not in ids_only.files
    assert "no tokenizer.json given (tokenizer=...): the export takes token ids only" in ids_only.notes
    runner = keras_skim.runtime.SkimRunner(ids_only.output_dir)
    assert runner.tokenizer is None and runner.run_ids([5, 6, 7])["logits"].size
