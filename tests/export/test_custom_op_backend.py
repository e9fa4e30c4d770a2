"""The optional custom-op export backend (`KerasSkimLSTM`): library build,
op inventory and Keras parity of logits and read decisions."""

import os

import numpy as np
import pytest

V, E, D = 40, 8, 16
THRESHOLDS = [0.0, 0.5, 1.5]


def _tiny(small_units, classes=2):
    import keras

    from keras_skim import SkimLSTMCell

    keras.utils.set_random_seed(small_units + 1)
    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(V, E, mask_zero=True)(inp)
    x = keras.layers.RNN(SkimLSTMCell(D, small_units))(x)
    x = keras.layers.Dropout(0.1)(x)
    model = keras.Model(inp, keras.layers.Dense(classes)(x))
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    rng = np.random.default_rng(0)
    model.fit(rng.integers(1, V, (16, 10)), rng.integers(0, classes, (16,)), batch_size=8, epochs=1, verbose=0)
    return model


@pytest.fixture(scope="module", params=[4, 0], ids=["d'=4", "d'=0"])
def written(request, op_cache, tmp_path_factory):
    from keras_skim.export.custom_op_backend import write_custom_op_model

    model = _tiny(request.param)
    path = str(tmp_path_factory.mktemp("custom_op") / "model.tflite")
    write_custom_op_model(model, path, threshold=0.5)
    return model, path


def test_library_is_the_packaged_one(op_cache):
    from keras_skim import litert_ops

    path = litert_ops.library_path()
    assert path == op_cache == os.path.join(os.path.dirname(litert_ops.__file__), "libkeras_skim_ops.so")
    assert os.path.getsize(path) > 0
    # every op of contracts.CUSTOM_OPS, registered with every model
    assert litert_ops.op_names() == ["KerasSkimLSTM", "KerasSjLSTM", "KerasSkimGRU"] == list(litert_ops.OP_NAMES)


def test_op_inventory_has_custom_op(written):
    from keras_skim.runtime.tflite_check import non_builtin_ops, op_inventory

    _, path = written
    data = open(path, "rb").read()
    ops = op_inventory(data)["main"]
    assert ops == ["CUSTOM:KerasSkimLSTM", "CAST", "FULLY_CONNECTED"]  # CAST: the int32 read_mask
    assert non_builtin_ops(data) == ["CUSTOM:KerasSkimLSTM"]


def test_op_inventory_reads_through_the_runtime_check(written):
    """One TFLite schema reader: export's op inventory is the runtime's
    bounds-checked reader, so a damaged file is one line, not a bad list."""
    from keras_skim.runtime.tflite_check import ModelCheckError, op_inventory

    data = open(written[1], "rb").read()
    with pytest.raises(ModelCheckError, match="not a TFLite model") as info:
        op_inventory(data[: len(data) // 2])
    assert "\n" not in str(info.value)


def test_signature(written):
    from keras_skim.runtime.interpreter_loader import make_interpreter

    _, path = written
    interpreter = make_interpreter(path)
    sig = interpreter.get_signature_list()["serving_default"]
    assert sorted(sig["inputs"]) == ["threshold", "token_ids"]
    assert sorted(sig["outputs"]) == ["logits", "read_count", "read_mask"]


def test_parity_with_keras(written):
    from keras_skim.export.custom_op_backend import custom_op_parity

    model, path = written
    rng = np.random.default_rng(3)
    samples = [rng.integers(1, V, n).astype(np.int32) for n in (1, 9, 40)]
    samples.append(np.array([0, 0, 5, 7, 0, 3, 9, 0], np.int32))  # padding (mask_zero)
    result = custom_op_parity(model, path, samples, thresholds=THRESHOLDS)
    assert result.ok, result.message
    assert result.mismatched_decisions == 0 and result.max_abs_diff <= 1e-4
    assert result.decisions == len(THRESHOLDS) * sum(len(s) for s in samples)


def test_threshold_extremes(written):
    from keras_skim.runtime.interpreter_loader import make_interpreter

    _, path = written
    runner = make_interpreter(path).get_signature_runner()
    ids = np.arange(1, 13, dtype=np.int32)[None]
    for threshold, reads in ((0.0, 12), (1.5, 0)):
        out = runner(token_ids=ids, threshold=np.array(threshold, np.float32))
        assert int(out["read_count"][0]) == reads
        assert out["read_mask"].shape == (1, 12)


def test_unsupported_model_names_layer():
    import keras

    from keras_skim.export.custom_op_backend import write_custom_op_model

    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(V, E)(inp)
    x = keras.layers.LSTM(D, name="plain_lstm")(x)
    model = keras.Model(inp, keras.layers.Dense(2)(x))
    with pytest.raises(ValueError, match="plain_lstm") as info:
        write_custom_op_model(model, "/nonexistent/never.tflite", 0.5)
    assert "\n" not in str(info.value)
