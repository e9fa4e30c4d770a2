"""The fused training loop (skim_training_loop: input products of all steps
in one matmul before the loop, the bookkeeping after it) computes what the
cell's own per-step call computes.

The reference runs the cell step by step in Python, as `keras.layers.RNN`
ran it before the fast path: `cell(x_t, states, training=True)`, the states
held at masked steps, then the cell's accounting. Both sides get the same
weights, the same Gumbel noise (the cell's noise source replaced by a fixed
array) and the same dropout masks.
"""

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_skim import SkimGRU, SkimGRUCell, SkimLSTM, SkimLSTMCell

BATCH, STEPS, FEATURES = 5, 7, 4


def _batch():
    rs = np.random.RandomState(0)
    x = rs.normal(size=(BATCH, STEPS, FEATURES)).astype("float32")
    mask = np.arange(STEPS)[None, :] < np.array([7, 5, 3, 7, 1])[:, None]
    mask[1, :2] = False  # left padding
    mask[3, 3] = False  # a hole
    # Large enough that both choices happen at temperature 0.5.
    noise = rs.gumbel(size=(BATCH, STEPS, 2)).astype("float32") * 2.0
    return x, mask, noise


def _randomise(cell, seed=5):
    rs = np.random.RandomState(seed)
    for v in cell.trainable_weights:
        v.assign(rs.normal(0, 0.5, v.shape).astype("float32"))


def _per_step_reference(cell, x, mask, noise, monkeypatch):
    """h after the sequence, and the skim loss, from the per-step call."""
    steps = iter(range(STEPS))
    monkeypatch.setattr(cell, "_gumbel_noise", lambda shape: tf.constant(noise[:, next(steps)]))
    states = cell.get_initial_state(BATCH)
    states[-1] = tf.cast(states[-1], "float32")
    initial_stats = states[-1]
    cell.get_dropout_mask(x[:, 0])
    cell.get_recurrent_dropout_mask(states[0])
    cell._rnn_will_account = True
    for t in range(STEPS):
        _, new_states = cell(x[:, t], states, training=True)
        keep = tf.constant(mask[:, t : t + 1])
        states = [tf.where(keep, n, s) for n, s in zip(new_states, states)]
    loss = cell._account(initial_stats, states[-1])
    cell.reset_dropout_mask()
    cell.reset_recurrent_dropout_mask()
    return states[0], loss


def _gradients(run, cell, probe):
    with tf.GradientTape() as tape:
        h, skim_loss = run()
        loss = tf.reduce_sum(h * probe) + skim_loss
    return [np.asarray(g) for g in tape.gradient(loss, cell.trainable_weights)], np.asarray(h), float(skim_loss)


@pytest.mark.parametrize("cell_class", [SkimLSTMCell, SkimGRUCell])
@pytest.mark.parametrize("small_units", [0, 2])
@pytest.mark.parametrize("dropout", [0.0, 0.3])
def test_fused_loop_has_the_per_step_cells_gradients(cell_class, small_units, dropout, monkeypatch):
    x, mask, noise = _batch()
    cell = cell_class(6, small_units, gamma=0.5, dropout=dropout, recurrent_dropout=dropout, seed=3)
    assert cell.fused_loop  # the default
    layer = keras.layers.RNN(cell)
    layer(x[:1])
    _randomise(cell)
    cell.temperature.assign(0.5)
    probe = np.random.RandomState(1).normal(size=(6,)).astype("float32")
    seed_state = np.asarray(cell.seed_generator.state)

    def fast():
        cell.seed_generator.state.assign(seed_state)
        with monkeypatch.context() as patch:
            patch.setattr(cell, "_gumbel_noise", lambda shape: tf.constant(noise))
            h = layer(x, mask=tf.constant(mask), training=True)
        return h, tf.add_n(layer.losses)

    def per_step():
        cell.seed_generator.state.assign(seed_state)
        with monkeypatch.context() as patch:
            return _per_step_reference(cell, x, mask, noise, patch)

    got, h_fast, loss_fast = _gradients(fast, cell, probe)
    want, h_step, loss_step = _gradients(per_step, cell, probe)
    np.testing.assert_allclose(h_fast, h_step, rtol=1e-5, atol=1e-6)
    assert loss_fast == pytest.approx(loss_step, rel=1e-5)
    for name, a, b in zip([v.path for v in cell.trainable_weights], got, want):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6, err_msg=name)
    # Both choices were taken, so both candidates' gradients were compared.
    decisions = np.asarray(cell.skim_rate.result())
    assert 0.0 < decisions < 1.0


@pytest.mark.parametrize(
    "layer_class, cell_class, kwargs",
    [(SkimLSTM, SkimLSTMCell, {"unit_forget_bias": False}), (SkimGRU, SkimGRUCell, {})],
)
def test_layer_equals_rnn_of_its_cell_in_training_and_inference(layer_class, cell_class, kwargs):
    x, mask, _ = _batch()
    layer = layer_class(6, 2, gamma=0.5, seed=9, return_sequences=True, **kwargs)
    plain = keras.layers.RNN(cell_class(6, 2, gamma=0.5, seed=9, **kwargs), return_sequences=True)
    layer(x[:1])
    plain(x[:1])
    _randomise(layer.cell)
    plain.cell.set_weights(layer.cell.get_weights())
    plain.cell.seed_generator.state.assign(layer.cell.seed_generator.state)
    for cell in (layer.cell, plain.cell):
        cell.skim_rate.reset_state()
    for training in (True, False):
        a = layer(x, mask=tf.constant(mask), training=training)
        b = plain(x, mask=tf.constant(mask), training=training)
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    # One skim-loss term each: the layer's loop adds it, no hook adds it twice.
    assert len(layer.losses) == len(plain.losses) == 1
    assert float(layer.losses[0]) == float(plain.losses[0])
    assert float(layer.cell.skim_rate.result()) == float(plain.cell.skim_rate.result())


def test_layer_config_round_trip_and_attributes():
    layer = SkimLSTM(12, 3, gamma=0.02, threshold=0.4, dropout=0.1, seed=7, return_sequences=True, name="skim")
    config = layer.get_config()
    clone = SkimLSTM.from_config(config)
    assert clone.get_config() == config
    for name in ("units", "small_units", "gamma", "threshold", "dropout", "seed", "return_sequences", "name"):
        assert getattr(clone, name) == getattr(layer, name)
    assert clone.unit_forget_bias is True
    layer.threshold = 0.7
    assert layer.cell.threshold == 0.7
    with pytest.raises(ValueError, match="small_units"):
        SkimGRU(4, 4)


@pytest.mark.parametrize("layer_class", [SkimLSTM, SkimGRU])
def test_fused_loop_equals_keras_loop_backwards_sequences_without_bias(layer_class, monkeypatch):
    """go_backwards, return_sequences, use_bias=False and a recurrent
    activation other than the sigmoid, against the same layer run by
    keras.layers.RNN's own per-step loop (`fused_loop = False`)."""
    x, mask, noise = _batch()
    layer = layer_class(
        6, 2, gamma=0.5, use_bias=False, recurrent_activation="hard_sigmoid", go_backwards=True, return_sequences=True
    )
    layer(x[:1])
    _randomise(layer.cell)
    probe = np.random.RandomState(1).normal(size=(STEPS, 6)).astype("float32")

    def run(fused):
        layer.cell.fused_loop = fused
        # Keras' loop calls the cell once before its loop (for the output
        # shape), then at each step; the fused loop draws all steps at once.
        draws = iter([noise[:, 0]] + [noise[:, k] for k in range(STEPS)])
        with monkeypatch.context() as patch:
            patch.setattr(
                layer.cell,
                "_gumbel_noise",
                lambda shape: tf.constant(noise if len(shape) == 3 else next(draws)),
            )
            with tf.GradientTape() as tape:
                y = layer(x, mask=tf.constant(mask), training=True)
                loss = tf.reduce_sum(y * probe) + tf.add_n(layer.losses)
        grads = tape.gradient(loss, layer.trainable_weights)
        return np.asarray(y), float(loss), [np.asarray(g) for g in grads]

    y_fused, loss_fused, got = run(True)
    y_keras, loss_keras, want = run(False)
    np.testing.assert_allclose(y_fused, y_keras, rtol=1e-5, atol=1e-6)
    assert loss_fused == pytest.approx(loss_keras, rel=1e-5)
    for name, a, b in zip([v.path for v in layer.trainable_weights], got, want):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("layer_class", [SkimLSTM, SkimGRU])
def test_fused_loop_gradients_are_the_same_traced_with_unknown_batch_and_with_xla(layer_class, monkeypatch):
    """The loop traced as `fit` traces it (a `tf.while_loop` with the batch
    size unknown, where the mix's written-out gradient and the row select
    run), and compiled by XLA, gives the eager loop's outputs and gradients."""
    x, mask, noise = _batch()
    layer = layer_class(6, 2, gamma=0.5)
    layer(x[:1])
    _randomise(layer.cell)
    layer.cell.temperature.assign(0.5)
    monkeypatch.setattr(layer.cell, "_gumbel_noise", lambda shape: tf.constant(noise))
    probe = np.random.RandomState(1).normal(size=(6,)).astype("float32")

    def step(inputs, real):
        with tf.GradientTape() as tape:
            y = layer(inputs, mask=real, training=True)
            loss = tf.reduce_sum(y * probe) + tf.add_n(layer.losses)
        return [y, loss] + tape.gradient(loss, layer.trainable_weights)

    want = [np.asarray(v) for v in step(tf.constant(x), tf.constant(mask))]
    signature = [tf.TensorSpec((None, STEPS, FEATURES)), tf.TensorSpec((None, STEPS), tf.bool)]
    for jit in (False, True):
        got = tf.function(step, input_signature=signature, jit_compile=jit)(tf.constant(x), tf.constant(mask))
        for name, a, b in zip(["output", "loss"] + [v.path for v in layer.trainable_weights], got, want):
            np.testing.assert_allclose(np.asarray(a), b, rtol=1e-4, atol=1e-6, err_msg=f"{name}, jit_compile={jit}")
