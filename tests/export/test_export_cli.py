"""`keras-skim export` on bad input: one line, exit 2, nothing written, and
`--force` that never deletes what keras-skim did not write."""

import json
import os
import zipfile

import pytest

from tests.assertions import one_line
from tests.export.helpers import run_cli, train_tiny


def _refused(tmp_path, argv, expect, out_dir=None):
    out_dir = out_dir or tmp_path / "out"
    existed = out_dir.exists()
    code, _, err = run_cli(["export", *argv, "-o", str(out_dir)])
    assert code == 2, err
    assert expect in one_line(err), err
    assert out_dir.exists() == existed
    assert [p for p in os.listdir(out_dir.parent) if p.startswith(".keras-skim")] == []
    return err


def test_missing_file(tmp_path):
    _refused(tmp_path, [str(tmp_path / "nope.keras")], "no such model file")


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


def test_missing_tokenizer_argument(tmp_path):
    path, _ = train_tiny(str(tmp_path / "m"), "lstm", fit=False)
    _refused(tmp_path, [path, "--tokenizer", str(tmp_path / "none.json")], "no such tokenizer")


def test_tokenizer_argument_that_is_a_model_file(tmp_path):
    path, _ = train_tiny(str(tmp_path / "m"), "lstm", fit=False)
    err = _refused(tmp_path, [path, "--tokenizer", path], "not a tokenizer")
    assert "model.keras/tokenizer.json" not in err


def test_corrupt_train_config(tmp_path, trained_folder):
    import shutil

    folder = tmp_path / "run"
    shutil.copytree(trained_folder("lstm"), folder)
    (folder / "train_config.json").write_text("{not json")
    _refused(tmp_path, [str(folder)], "train_config.json: not valid JSON")


def test_force_keeps_what_keras_skim_did_not_write(tmp_path):
    from keras_skim import contracts

    path, _ = train_tiny(str(tmp_path / "m"), "lstm", fit=False)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "keep.txt").write_text("x")
    _refused(tmp_path, [path], "--force", out_dir=out_dir)
    _refused(tmp_path, [path, "--force"], "did not write", out_dir=out_dir)
    assert os.listdir(out_dir) == ["keep.txt"]
    (out_dir / "keep.txt").unlink()  # an empty folder may be replaced
    for _ in range(2):  # and a folder keras-skim wrote, again and again
        code, out, err = run_cli(["export", path, "-o", str(out_dir), "--force", "--parity-samples", "1"])
        assert code == 0, err
        assert "no keras-skim layer" in out and "parity OK" in out
        assert sorted(os.listdir(out_dir)) == sorted(
            [contracts.MARKER_FILE, "metadata.json", "model.tflite", "tokenizer.json"]
        )


def test_force_never_replaces_the_input_or_its_parents(tmp_path, monkeypatch):
    path, _ = train_tiny(str(tmp_path / "run"), "lstm", fit=False)
    before = sorted(os.listdir(tmp_path / "run"))
    for target in (tmp_path / "run", tmp_path):
        _refused(tmp_path, [str(tmp_path / "run"), "--force"], "input", out_dir=target)
    monkeypatch.chdir(tmp_path / "run")
    for target in (".", "..", os.path.expanduser("~"), "/"):
        code, _, err = run_cli(["export", path, "-o", target, "--force"])
        assert code == 2 and "refusing" in one_line(err), (target, err)
    assert sorted(os.listdir(tmp_path / "run")) == before


def test_default_output_is_next_to_the_model(tmp_path):
    from keras_skim import contracts

    path, _ = train_tiny(str(tmp_path / "run"), "lstm", fit=False)
    h5 = tmp_path / "run" / "model.h5"
    import keras

    keras.saving.load_model(path).save(h5)
    for model, expected in (
        (str(tmp_path / "run"), tmp_path / "run_tflite"),
        (str(h5), tmp_path / "run" / "model_tflite"),
    ):
        code, out, err = run_cli(["export", model, "--parity-samples", "1"])
        assert code == 0, err
        assert os.path.isfile(expected / "model.tflite") and os.path.isfile(expected / contracts.MARKER_FILE)
        code, _, err = run_cli(["export", model, "--parity-samples", "1"])
        assert code == 2 and "already exists" in one_line(err)


def test_unwritable_output_folder(tmp_path):
    path, _ = train_tiny(str(tmp_path / "m"), "lstm", fit=False)
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    code, _, err = run_cli(["export", path, "-o", str(blocker / "out"), "--parity-samples", "1"])
    assert code == 2 and "cannot create the output folder" in one_line(err)
    readonly = tmp_path / "ro"
    readonly.mkdir()
    readonly.chmod(0o555)
    try:
        if os.access(readonly, os.W_OK):
            pytest.skip("running as root: a read-only folder is still writable")
        code, _, err = run_cli(["export", path, "-o", str(readonly / "out"), "--parity-samples", "1"])
        assert code == 2 and "cannot create the output folder" in one_line(err)
    finally:
        readonly.chmod(0o755)
