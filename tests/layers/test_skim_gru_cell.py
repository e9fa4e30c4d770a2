import keras
import numpy as np
import pytest

from keras_skim import SkimGRUCell
from tests.numpy_reference import cell_weights, skim_gru_hard_step


def _randomise(cell, rs, scale=0.6):
    for v in cell.trainable_weights:
        v.assign(rs.normal(0, scale, v.shape).astype("float32"))


@pytest.mark.parametrize("small_units", [0, 3])
def test_hard_decisions_match_numpy_reference(small_units):
    rs = np.random.RandomState(0)
    x = rs.normal(size=(4, 9, 5)).astype("float32")
    cell = SkimGRUCell(8, small_units)
    layer = keras.layers.RNN(cell, return_sequences=True)
    layer(x)
    _randomise(cell, rs)
    got = np.asarray(layer(x))
    w = cell_weights(cell)
    h = np.zeros((4, 8))
    decisions = []
    for t in range(9):
        h, read = skim_gru_hard_step(x[:, t].astype(np.float64), h, w, small_units, 0.5)
        decisions.append(read)
        np.testing.assert_allclose(got[:, t], h, atol=1e-5)
    decisions = np.stack(decisions)
    assert decisions.any() and not decisions.all()


def test_threshold_zero_equals_keras_gru_with_big_weights():
    rs = np.random.RandomState(1)
    x = rs.normal(size=(3, 12, 6)).astype("float32")
    cell = SkimGRUCell(10, 4, threshold=0.0)
    skim = keras.layers.RNN(cell, return_sequences=True)
    skim(x)
    _randomise(cell, rs)
    gru = keras.layers.GRU(10, return_sequences=True)
    gru(x)
    gru.set_weights([cell.kernel.numpy(), cell.recurrent_kernel.numpy(), cell.bias.numpy()])
    np.testing.assert_allclose(skim(x), gru(x), atol=1e-6)


def test_threshold_above_one_only_first_small_units_change():
    x = np.random.RandomState(2).normal(size=(2, 6, 4)).astype("float32")
    out = np.asarray(keras.layers.RNN(SkimGRUCell(7, 2, threshold=1.5), return_sequences=True)(x))
    np.testing.assert_array_equal(out[:, :, 2:], 0.0)
    assert np.abs(out[:, :, :2]).max() > 0


def test_get_config_round_trip():
    cell = SkimGRUCell(12, 3, gamma=0.05, threshold=0.6, seed=3)
    config = cell.get_config()
    assert SkimGRUCell.from_config(config).get_config() == config
