import json
import os
import zipfile

from tests.assertions import one_line
from tests.export.helpers import run_cli, train_tiny


def _refused(tmp_path, argv, expect):
    out_dir = tmp_path / "out"
    code, _, err = run_cli(["export", *argv, "-o", str(out_dir)])
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert expect in lines[0], lines[0]
    assert not out_dir.exists()
    assert [p for p in os.listdir(tmp_path) if p.startswith(".keras-skim")] == []


def test_missing_file(tmp_path):
    _refused(tmp_path, [str(tmp_path / "nope.keras")], "no such file")


def test_not_a_keras_model(tmp_path):
    bad = tmp_path / "model.keras"
    bad.write_text("hello")
    _refused(tmp_path, [str(bad)], "not a Keras archive")


def test_corrupt_h5(tmp_path):
    bad = tmp_path / "model.h5"
    bad.write_bytes(b"\x89HDF\r\n\x1a\n" + b"garbage" * 20)
    _refused(tmp_path, [str(bad)], "not a readable HDF5 model")


def test_unknown_custom_layer(tmp_path):
    path, _ = train_tiny(str(tmp_path / "m"), "lstm", fit=False)
    patched = tmp_path / "custom.keras"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(patched, "w") as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "config.json":
                config = json.loads(data)
                text = json.dumps(config).replace('"class_name": "Dense"', '"class_name": "MysteryLayer"')
                data = text.replace('"module": "keras.layers"', '"module": "nowhere.layers"', 1).encode()
            dst.writestr(item, data)
    _refused(tmp_path, [str(patched)], "custom.keras")


def test_unsupported_layer_is_named(tmp_path):
    import keras

    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(20, 4)(inp)
    x = keras.layers.Conv1D(4, 3, padding="same", name="my_conv")(x)
    x = keras.layers.LSTM(8)(x)
    model = keras.Model(inp, keras.layers.Dense(1)(x))
    path = tmp_path / "conv.keras"
    model.save(path)
    _refused(tmp_path, [str(path)], "my_conv")


def test_existing_output_needs_force(tmp_path):
    path, _ = train_tiny(str(tmp_path / "m"), "lstm", fit=False)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "keep.txt").write_text("x")
    code, _, err = run_cli(["export", path, "-o", str(out_dir)])
    assert code == 2 and "--force" in one_line(err)
    assert os.listdir(out_dir) == ["keep.txt"]
    code, out, err = run_cli(["export", path, "-o", str(out_dir), "--force", "--parity-samples", "1"])
    assert code == 0, err
    assert "no keras-skim layer" in out and "parity OK" in out
    assert sorted(os.listdir(out_dir)) == ["metadata.json", "model.tflite", "tokenizer.json"]


def test_missing_tokenizer_argument(tmp_path):
    path, _ = train_tiny(str(tmp_path / "m"), "lstm", fit=False)
    _refused(tmp_path, [path, "--tokenizer", str(tmp_path / "none.json")], "no such tokenizer file")
