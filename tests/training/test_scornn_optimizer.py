"""Tests of keras_skim.models.scornn.scornn_optimizer."""

import keras
import numpy as np
import pytest
from keras import ops

from keras_skim.models.scornn.scornn_cell import ScoRNNCell
from keras_skim.models.scornn.scornn_optimizer import ScoRNNOptimizer, scornn_optimizer

FEATURES = 2


def build_model():
    return keras.Sequential(
        [
            keras.Input((None, FEATURES)),
            keras.layers.RNN(ScoRNNCell(6, rho=3, seed=0)),
            keras.layers.Dense(1),
        ]
    )


def data(seed=0, batch=8, steps=4):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(batch, steps, FEATURES)).astype("float32")
    y = rng.normal(size=(batch, 1)).astype("float32")
    return x, y


def snapshot(model):
    cell = model.layers[0].cell
    return {
        "skew": ops.convert_to_numpy(cell.skew_parameters).copy(),
        "kernel": ops.convert_to_numpy(cell.kernel).copy(),
        "dense": ops.convert_to_numpy(model.layers[1].kernel).copy(),
    }


def test_defaults_are_the_papers_rmsprop_rates():
    opt = scornn_optimizer()
    assert isinstance(opt, ScoRNNOptimizer)
    assert isinstance(opt, keras.optimizers.Optimizer)
    assert isinstance(opt.optimizer, keras.optimizers.RMSprop)
    assert isinstance(opt.skew_optimizer, keras.optimizers.RMSprop)
    assert np.isclose(float(opt.optimizer.learning_rate), 1e-3)
    assert np.isclose(float(opt.skew_optimizer.learning_rate), 1e-4)


def test_routes_only_skew_parameters_to_skew_optimizer():
    model = build_model()
    opt = scornn_optimizer()
    routed = {v.path: opt.is_skew_variable(v) for v in model.trainable_variables}
    for path, to_skew in routed.items():
        assert to_skew == path.endswith("/skew_parameters"), path
    assert sum(routed.values()) == 1


def test_zero_skew_learning_rate_freezes_a_only():
    model = build_model()
    model.compile(
        optimizer=scornn_optimizer(
            optimizer=keras.optimizers.SGD(0.1),
            skew_optimizer=keras.optimizers.SGD(0.0),
        ),
        loss="mse",
    )
    before = snapshot(model)
    x, y = data()
    model.fit(x, y, batch_size=4, epochs=2, verbose=0)
    after = snapshot(model)
    np.testing.assert_array_equal(after["skew"], before["skew"])
    assert not np.allclose(after["kernel"], before["kernel"])
    assert not np.allclose(after["dense"], before["dense"])


def test_zero_main_learning_rate_trains_a_only():
    model = build_model()
    model.compile(
        optimizer=scornn_optimizer(
            optimizer=keras.optimizers.SGD(0.0),
            skew_optimizer=keras.optimizers.SGD(0.1),
        ),
        loss="mse",
    )
    before = snapshot(model)
    x, y = data()
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    after = snapshot(model)
    assert not np.allclose(after["skew"], before["skew"])
    np.testing.assert_array_equal(after["kernel"], before["kernel"])
    np.testing.assert_array_equal(after["dense"], before["dense"])


def test_learning_rates_scale_the_sgd_steps():
    """With SGD, the A step is exactly skew_lr * gradient."""
    model = build_model()
    x, y = data(batch=4)
    model.compile(
        optimizer=scornn_optimizer(
            optimizer=keras.optimizers.SGD(0.02),
            skew_optimizer=keras.optimizers.SGD(0.005),
        ),
        loss="mse",
    )
    import tensorflow as tf

    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x) - y) ** 2)
    variables = model.trainable_variables
    grads = tape.gradient(loss, variables)
    values = [ops.convert_to_numpy(v).copy() for v in variables]
    model.train_on_batch(x, y)
    for var, grad, value in zip(variables, grads, values):
        lr = 0.005 if var.path.endswith("skew_parameters") else 0.02
        np.testing.assert_allclose(ops.convert_to_numpy(var), value - lr * grad.numpy(), atol=1e-6)


def test_saves_and_loads_with_the_model(tmp_path):
    model = build_model()
    model.compile(
        optimizer=scornn_optimizer(
            optimizer=keras.optimizers.Adam(1e-2),
            skew_optimizer=keras.optimizers.RMSprop(1e-3),
        ),
        loss="mse",
    )
    x, y = data()
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = keras.saving.load_model(path)
    opt = loaded.optimizer
    assert isinstance(opt, ScoRNNOptimizer)
    assert isinstance(opt.optimizer, keras.optimizers.Adam)
    assert isinstance(opt.skew_optimizer, keras.optimizers.RMSprop)
    assert np.isclose(float(opt.skew_optimizer.learning_rate), 1e-3)
    saved_state = [ops.convert_to_numpy(v) for v in model.optimizer.variables]
    loaded_state = [ops.convert_to_numpy(v) for v in opt.variables]
    assert len(saved_state) == len(loaded_state) > 2
    for a, b in zip(saved_state, loaded_state):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(ops.convert_to_numpy(loaded(x)), ops.convert_to_numpy(model(x)))
    # both continue training identically
    model.train_on_batch(x, y)
    loaded.train_on_batch(x, y)
    np.testing.assert_allclose(
        ops.convert_to_numpy(loaded(x)),
        ops.convert_to_numpy(model(x)),
        atol=1e-6,
    )


def test_config_round_trip_and_bad_arguments():
    opt = ScoRNNOptimizer(
        optimizer="adam",
        skew_optimizer=keras.optimizers.SGD(0.5),
        skew_variable_name="my_skew",
    )
    config = opt.get_config()
    clone = ScoRNNOptimizer.from_config(config)
    assert clone.skew_variable_name == "my_skew"
    assert isinstance(clone.optimizer, keras.optimizers.Adam)
    assert np.isclose(float(clone.skew_optimizer.learning_rate), 0.5)
    same = keras.optimizers.SGD()
    with pytest.raises(ValueError, match="`optimizer` and `skew_optimizer`"):
        ScoRNNOptimizer(optimizer=same, skew_optimizer=same)
    with pytest.raises(ValueError, match="`skew_variable_name`"):
        ScoRNNOptimizer(skew_variable_name="")
    with pytest.raises(ValueError, match="`skew_optimizer`"):
        ScoRNNOptimizer(skew_optimizer=42)
