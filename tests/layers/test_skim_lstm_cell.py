import keras
import numpy as np
import pytest

from keras_skim import SkimLSTMCell
from tests.numpy_reference import cell_weights, skim_lstm_hard_step


def _randomise(cell, rs, scale=0.6):
    for v in cell.trainable_weights:
        v.assign(rs.normal(0, scale, v.shape).astype("float32"))


@pytest.mark.parametrize("small_units", [0, 3])
@pytest.mark.parametrize("threshold", [0.3, 0.5, 0.7])
def test_hard_decisions_match_numpy_reference(small_units, threshold):
    rs = np.random.RandomState(0)
    x = rs.normal(size=(4, 9, 5)).astype("float32")
    cell = SkimLSTMCell(8, small_units, threshold=threshold)
    layer = keras.layers.RNN(cell, return_sequences=True)
    layer(x)
    _randomise(cell, rs)
    got = np.asarray(layer(x))

    w = cell_weights(cell)
    h = np.zeros((4, 8))
    c = np.zeros((4, 8))
    decisions = []
    for t in range(9):
        h, c, read = skim_lstm_hard_step(x[:, t].astype(np.float64), h, c, w, small_units, threshold)
        decisions.append(read)
        np.testing.assert_allclose(got[:, t], h, atol=1e-5)
    decisions = np.stack(decisions)
    # The reference must exercise both branches, or the test proves little.
    assert decisions.any() and not decisions.all()


def test_threshold_zero_equals_keras_lstm_with_big_weights():
    rs = np.random.RandomState(1)
    x = rs.normal(size=(3, 12, 6)).astype("float32")
    cell = SkimLSTMCell(10, 4, threshold=0.0)
    skim = keras.layers.RNN(cell, return_sequences=True)
    skim(x)
    _randomise(cell, rs)
    lstm = keras.layers.LSTM(10, return_sequences=True)
    lstm(x)
    lstm.set_weights([cell.kernel.numpy(), cell.recurrent_kernel.numpy(), cell.bias.numpy()])
    np.testing.assert_allclose(skim(x), lstm(x), atol=1e-6)


def test_threshold_above_one_always_skims_and_state_tail_is_copied():
    rs = np.random.RandomState(2)
    x = rs.normal(size=(2, 6, 4)).astype("float32")
    cell = SkimLSTMCell(7, 2, threshold=1.5)
    layer = keras.layers.RNN(cell, return_sequences=True)
    out = np.asarray(layer(x))
    # Only the first d' = 2 dims ever change from the zero initial state.
    np.testing.assert_array_equal(out[:, :, 2:], 0.0)
    assert np.abs(out[:, :, :2]).max() > 0
    assert float(cell.skim_rate.result()) == 1.0


def test_skip_variant_small_units_zero_copies_state():
    x = np.random.RandomState(3).normal(size=(2, 5, 4)).astype("float32")
    cell = SkimLSTMCell(6, 0, threshold=1.5)
    out = keras.layers.RNN(cell, return_sequences=True)(x)
    np.testing.assert_array_equal(np.asarray(out), 0.0)
    assert not hasattr(cell, "small_kernel")


def test_threshold_can_change_after_build_without_retracing():
    rs = np.random.RandomState(4)
    x = rs.normal(size=(2, 6, 4)).astype("float32")
    inputs = keras.Input((6, 4))
    cell = SkimLSTMCell(8, 2)
    model = keras.Model(inputs, keras.layers.RNN(cell)(inputs))
    import tensorflow as tf

    predict = tf.function(model)
    cell.threshold = 0.0
    a = np.asarray(predict(x))
    cell.threshold = 1.5
    b = np.asarray(predict(x))
    assert not np.allclose(a, b)
    assert cell.threshold == 1.5
    assert cell.get_config()["threshold"] == 1.5


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"units": 0, "small_units": 0}, "units"),
        ({"units": 10, "small_units": 10}, "small_units"),
        ({"units": 10, "small_units": -1}, "small_units"),
        ({"units": 10.5, "small_units": 1}, "units"),
        ({"units": 10, "small_units": 2, "gamma": -1}, "gamma"),
        ({"units": 10, "small_units": 2, "threshold": float("nan")}, "threshold"),
        ({"units": 10, "small_units": 2, "dropout": 1.0}, "dropout"),
    ],
)
def test_bad_arguments_raise_one_line_errors(kwargs, message):
    with pytest.raises(ValueError, match=message) as info:
        SkimLSTMCell(**kwargs)
    assert "\n" not in str(info.value)


def test_get_config_round_trip():
    cell = SkimLSTMCell(12, 3, gamma=0.02, threshold=0.4, dropout=0.1, seed=7, unit_forget_bias=False)
    config = cell.get_config()
    clone = SkimLSTMCell.from_config(config)
    assert clone.get_config() == config
    for name in ("units", "small_units", "gamma", "threshold", "dropout", "seed", "unit_forget_bias"):
        assert getattr(clone, name) == getattr(cell, name)
