"""The `KerasSkimGRU` custom op: a Skim-GRU classifier exported by the real
exporter (`--backend custom`) and run by the runtime matches Keras, with and
without mask_zero, at thresholds 0, 0.5 and 1; folded rows and int8 weights;
instruction sets; bad token ids. The op library is built once into the
user cache (keras_skim.litert_ops.cache_dir), shared with the runtime tests."""

import json
import os
import shutil

import numpy as np
import pytest

V, E, D, DS = 60, 8, 16, 4
THRESHOLDS = [0.0, 0.5, 1.0]


@pytest.fixture(scope="module", autouse=True)
def _compiler():
    if shutil.which(os.environ.get("CXX", "g++")) is None:
        pytest.skip("no C++ compiler: the custom-op library cannot be built")


def _model(mask_zero, seed=5):
    import keras

    from keras_skim import SkimGRUCell

    keras.utils.set_random_seed(seed)
    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(V, E, mask_zero=mask_zero)(inp)
    x = keras.layers.RNN(SkimGRUCell(D, DS))(x)
    x = keras.layers.Dropout(0.1)(x)
    model = keras.Model(inp, keras.layers.Dense(3, activation="softmax")(x))
    model.compile("adam", "sparse_categorical_crossentropy")
    rng = np.random.default_rng(seed)
    model.fit(rng.integers(0, V, (16, 10)), rng.integers(0, 3, (16,)), batch_size=8, epochs=1, verbose=0)
    return model


def _samples():
    rng = np.random.default_rng(11)
    samples = [rng.integers(1, V, n).astype(np.int32) for n in (1, 9, 40)]
    samples.append(np.array([0, 4, 0, 0, 9, 11, 0, 2], np.int32))  # id 0: padding, or a word without mask_zero
    return samples


@pytest.fixture(scope="module", params=[True, False], ids=["mask_zero", "no_mask_zero"])
def exported(request, tmp_path_factory):
    """(model, export folder, ExportResult) of `export_model(..., backend="custom")`."""
    from keras_skim.export.exporter import export_model

    folder = tmp_path_factory.mktemp("skim_gru")
    model = _model(request.param)
    model.save(str(folder / "model.keras"))
    result = export_model(str(folder / "model.keras"), str(folder / "export"), backend="custom")
    return model, str(folder / "export"), result


def test_exporter_writes_the_op_and_checks_parity(exported):
    from keras_skim.runtime.tflite_check import op_inventory

    model, out, result = exported
    meta = json.load(open(os.path.join(out, "metadata.json")))
    assert meta["model_kind"] == "skim_gru" and meta["backend"] == "custom"
    assert meta["custom_ops"] == ["KerasSkimGRU"]
    # the exporter's own parity check ran against Keras, thresholds 0 and 1 among them
    assert result.parity.ok and result.parity.mismatched_decisions == 0
    assert {0.0, 1.0} <= set(result.parity.thresholds)
    ops = op_inventory(open(os.path.join(out, "model.tflite"), "rb").read())["main"]
    assert ops == ["CUSTOM:KerasSkimGRU", "CAST", "FULLY_CONNECTED"]  # CAST: the int32 read_mask


def test_runtime_matches_keras_at_0_half_and_1(exported):
    from keras_skim.export.custom_op_backend import custom_op_parity, model_settings

    model, out, _ = exported
    path = os.path.join(out, "model.tflite")
    settings = model_settings(path)
    assert settings["custom_op"] == "KerasSkimGRU" and settings["mask_zero"] == model.layers[1].mask_zero
    result = custom_op_parity(model, path, _samples(), thresholds=THRESHOLDS)
    assert result.ok, result.message
    assert result.max_abs_diff <= 1e-4
    assert result.decisions == len(THRESHOLDS) * sum(len(s) for s in _samples())


def test_threshold_extremes_read_all_or_none(exported):
    from keras_skim.runtime.interpreter_loader import make_interpreter

    _, out, _ = exported
    runner = make_interpreter(os.path.join(out, "model.tflite")).get_signature_runner()
    ids = np.arange(1, 13, dtype=np.int32)[None]
    for threshold, reads in ((0.0, 12), (1.0, 0)):
        got = runner(token_ids=ids, threshold=np.array(threshold, np.float32))
        assert int(got["read_count"][0]) == reads == int(got["read_mask"].sum())


@pytest.mark.parametrize(
    "fold, quantize", [(True, None), (False, "int8"), (True, "int8")], ids=["folded", "int8", "folded-int8"]
)
def test_folded_rows_and_int8(exported, tmp_path, fold, quantize):
    """Folded float rows match Keras; int8 exports match the op's math on
    their dequantized weights (every decision, outputs within 1e-4)."""
    from keras_skim.export.custom_op_backend import custom_op_parity, model_settings, write_custom_op_model

    model = exported[0]
    path = write_custom_op_model(model, str(tmp_path / "m.tflite"), threshold=0.5, fold=fold, quantize=quantize)
    settings = model_settings(path)
    assert settings["folded"] is fold and settings["quantize"] == quantize
    result = custom_op_parity(model, path, _samples(), thresholds=THRESHOLDS)
    assert result.ok, result.message
    assert ("dequantized" in result.message) == (quantize == "int8")


def test_op_reference_is_keras_gru_with_reset_after():
    """The NumPy reference the int8 parity relies on, on the float weights,
    equals Keras' own GRU layer holding the big cell's weights at threshold 0."""
    import keras

    from keras_skim.export.custom_op_backend import read_model
    from keras_skim.models.skim_rnn.skim_op_reference import op_reference
    from keras_skim.models.skim_rnn.skim_op_weights import quantized_weights

    model = _model(False, seed=9)
    info = read_model(model)
    gru = keras.layers.GRU(D, reset_after=True)
    ids = _samples()[2]
    x = keras.ops.convert_to_numpy(model.layers[1](ids[None]))
    gru.build(x.shape)
    cell = model.layers[2].cell
    gru.set_weights([cell.kernel.numpy(), cell.recurrent_kernel.numpy(), cell.bias.numpy()])
    h = keras.ops.convert_to_numpy(gru(x))
    dense = model.layers[-1]
    want = keras.ops.convert_to_numpy(dense(h))
    got, reads = op_reference(info, quantized_weights(info), ids, 0.0)
    assert reads.sum() == len(ids)
    np.testing.assert_allclose(got, want, atol=1e-5)


def test_instruction_sets_decide_alike(exported, monkeypatch):
    from keras_skim.runtime.interpreter_loader import make_interpreter

    _, out, _ = exported
    ids = _samples()[2][None]
    outputs = []
    for simd in ("", "generic", "sse"):
        monkeypatch.setenv("KERAS_SKIM_SIMD", simd)
        runner = make_interpreter(os.path.join(out, "model.tflite")).get_signature_runner()
        outputs.append(runner(token_ids=ids, threshold=np.array(0.5, np.float32)))
    for got in outputs[1:]:
        np.testing.assert_array_equal(got["read_mask"], outputs[0]["read_mask"])
        np.testing.assert_allclose(got["logits"], outputs[0]["logits"], atol=1e-5)


def test_token_outside_vocabulary_is_refused(exported):
    from keras_skim.runtime.interpreter_loader import make_interpreter

    _, out, _ = exported
    runner = make_interpreter(os.path.join(out, "model.tflite")).get_signature_runner()
    with pytest.raises(RuntimeError, match=rf"KerasSkimGRU: token id {V} at position 1 is outside the vocabulary"):
        runner(token_ids=np.array([[3, V]], np.int32), threshold=np.array(0.5, np.float32))
