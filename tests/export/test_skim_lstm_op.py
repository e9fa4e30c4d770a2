"""KerasSkimLSTM's input modes beyond the default export: folded per-word
rows, int8 weights, a forced instruction set, and its errors."""

import numpy as np
import pytest

V, E, D, DS = 300, 8, 16, 4
THRESHOLDS = [0.0, 0.5, 1.5]


@pytest.fixture(scope="module")
def model():
    import keras

    from keras_skim import SkimLSTMCell

    keras.utils.set_random_seed(7)
    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(V, E, mask_zero=True)(inp)
    x = keras.layers.RNN(SkimLSTMCell(D, DS))(x)
    model = keras.Model(inp, keras.layers.Dense(3, activation="softmax")(x))
    model.compile("adam", "sparse_categorical_crossentropy")
    rng = np.random.default_rng(0)
    model.fit(rng.integers(1, V, (16, 10)), rng.integers(0, 3, (16,)), batch_size=8, epochs=1, verbose=0)
    return model


def _samples():
    rng = np.random.default_rng(5)
    samples = [rng.integers(1, V, n).astype(np.int32) for n in (1, 13, 60)]
    samples.append(np.array([0, 4, 0, 0, 9, 11, 0, 2], np.int32))  # padding (mask_zero)
    return samples


def _write(model, tmp_path, name, **kwargs):
    from keras_skim.export.custom_op_backend import write_custom_op_model

    return write_custom_op_model(model, str(tmp_path / name), threshold=0.5, **kwargs)


@pytest.mark.parametrize("quantize", [None, "int8"])
@pytest.mark.parametrize("fold", [False, True], ids=["projected", "folded"])
def test_parity(model, op_cache, tmp_path, fold, quantize):
    """Float exports match Keras; int8 ones match Keras' math on their
    dequantized weights: every decision, outputs within 1e-4."""
    from keras_skim.export.custom_op_backend import custom_op_parity, model_settings

    path = _write(model, tmp_path, "m.tflite", fold=fold, quantize=quantize)
    settings = model_settings(path)
    assert settings["folded"] is fold and settings["quantize"] == quantize
    result = custom_op_parity(model, path, _samples(), thresholds=THRESHOLDS)
    assert result.ok, result.message
    assert result.decisions == len(THRESHOLDS) * sum(len(s) for s in _samples())
    assert ("dequantized" in result.message) == (quantize == "int8")


def test_the_fold_option_of_keras_skim_export(model, op_cache, tmp_path, capsys):
    """`--fold` folds where the default would not (folding grows this small-embedding model)."""
    from keras_skim.cli.main import main
    from keras_skim.export.custom_op_backend import model_settings

    model.save(tmp_path / "m.keras")
    out = tmp_path / "folded"
    assert main(["export", str(tmp_path / "m.keras"), "--backend", "custom", "--fold", "-o", str(out)]) == 0
    assert "parity" in capsys.readouterr().out
    assert model_settings(str(out / "model.tflite"))["folded"] is True


def test_without_mask_zero_id_0_is_a_word(op_cache, tmp_path):
    import keras

    from keras_skim import SkimLSTMCell
    from keras_skim.export.custom_op_backend import custom_op_parity, model_settings

    keras.utils.set_random_seed(3)
    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(V, E)(inp)
    model = keras.Model(inp, keras.layers.Dense(2)(keras.layers.RNN(SkimLSTMCell(D, DS))(x)))
    path = _write(model, tmp_path, "m.tflite")
    assert model_settings(path)["mask_zero"] is False
    result = custom_op_parity(model, path, [np.array([0, 0, 5, 0, 7], np.int32)], thresholds=[0.0, 0.5])
    assert result.ok, result.message


def test_int8_is_smaller_and_close_to_float(model, op_cache, tmp_path):
    from keras_skim.export.custom_op_backend import read_model
    from keras_skim.models.skim_rnn.skim_op_reference import op_reference
    from keras_skim.models.skim_rnn.skim_op_weights import quantized_weights
    from keras_skim.runtime.interpreter_loader import make_interpreter

    float_path = _write(model, tmp_path, "f.tflite")
    int8_path = _write(model, tmp_path, "q.tflite", quantize="int8")
    size = lambda p: len(open(p, "rb").read())  # noqa: E731
    # rows [V, E] and kernel [E + D, 4D] go from 4 bytes to 1, plus a float
    # scale per row and per column (the float file has a 1-element placeholder
    # for each scale instead); nothing else changes, up to the 64-byte
    # alignment of each of the 4 buffers that differ
    saved = 3 * (V * E + (E + D) * 4 * D) - 4 * (V + 4 * D) + 2 * 4
    assert abs(size(float_path) - size(int8_path) - saved) <= 4 * 63
    info = read_model(model)
    ids = _samples()[2]
    runs = {}
    for name, path in (("float", float_path), ("int8", int8_path)):
        runner = make_interpreter(path).get_signature_runner()
        runs[name] = runner(token_ids=ids[None], threshold=np.array(0.0, np.float32))
    # Reading every token, int8 moves the class probabilities a little, the
    # way the dequantized weights move the float64 reference.
    _, mask = op_reference(info, quantized_weights(info), ids, 0.0)
    assert mask.sum() == len(ids) == int(runs["int8"]["read_count"][0])
    expected_int8, _ = op_reference(info, quantized_weights(info, quantize="int8"), ids, 0.0)
    got = np.exp(runs["int8"]["logits"]) / np.exp(runs["int8"]["logits"]).sum()
    np.testing.assert_allclose(got, expected_int8, atol=1e-4)
    float_probs = np.exp(runs["float"]["logits"]) / np.exp(runs["float"]["logits"]).sum()
    assert 0 < np.abs(got - float_probs).max() < 0.05


def test_quantize_int8_scales():
    from keras_skim.models.skim_rnn.skim_op_weights import quantize_int8

    a = np.random.default_rng(0).normal(size=(5, 7)).astype(np.float32)
    a[2] = 0.0
    for axis in (0, 1):
        q, scale = quantize_int8(a, axis)
        assert q.dtype == np.int8 and scale.shape == (a.shape[axis],)
        shaped = scale[:, None] if axis == 0 else scale[None, :]
        assert np.all(np.abs(q.astype(np.float32) * shaped - a) <= shaped / 2 + 1e-7)
        peaks = np.abs(q).max(axis=1 - axis)
        assert set(peaks[np.abs(a).max(axis=1 - axis) > 0]) == {127}
    assert np.all(quantize_int8(a, 0)[0][2] == 0)


def test_instruction_sets_decide_alike(model, op_cache, tmp_path, monkeypatch):
    from keras_skim.runtime.interpreter_loader import make_interpreter

    path = _write(model, tmp_path, "m.tflite")
    ids = _samples()[2][None]
    outputs = []
    for simd in ("", "generic", "sse"):
        monkeypatch.setenv("KERAS_SKIM_SIMD", simd)
        runner = make_interpreter(path).get_signature_runner()
        outputs.append(runner(token_ids=ids, threshold=np.array(0.5, np.float32)))
    for out in outputs[1:]:
        np.testing.assert_array_equal(out["read_mask"], outputs[0]["read_mask"])
        np.testing.assert_allclose(out["logits"], outputs[0]["logits"], atol=1e-5)


def test_token_outside_vocabulary_is_refused(model, op_cache, tmp_path):
    from keras_skim.runtime.interpreter_loader import make_interpreter

    runner = make_interpreter(_write(model, tmp_path, "m.tflite")).get_signature_runner()
    with pytest.raises(RuntimeError, match=r"token id 300 at position 1 is outside the vocabulary \[0, 300\)"):
        runner(token_ids=np.array([[3, V]], np.int32), threshold=np.array(0.5, np.float32))


def test_bad_quantize_is_one_line(model):
    from keras_skim.export.custom_op_backend import custom_op_flatbuffer

    with pytest.raises(ValueError, match="quantize must be None or 'int8'") as info:
        custom_op_flatbuffer(model, quantize="int4")
    assert "\n" not in str(info.value)
