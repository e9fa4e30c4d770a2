"""The skim loss (paper eq. 8) enters training through plain `model.fit`.

The settings (loss scaling, sample weights, uses of the outputs, stacking,
mixed precision) are in test_skim_loss_settings.py; MirroredStrategy in
test_distributed_training.py.
"""

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_skim import SkimGRUCell, SkimLSTMCell
from keras_skim.models.skim_rnn.skim_cell_base import NUM_STATS


def _padded_batch(rs, batch=5, steps=8, features=4):
    x = rs.normal(size=(batch, steps, features)).astype("float32")
    lengths = np.array([8, 5, 3, 8, 1])[:batch]
    mask = np.arange(steps)[None, :] < lengths[:, None]
    return x, mask, lengths


def _explicit_skim_loss(cell, gamma, x, mask, outputs):
    """gamma * mean over each sequence's real tokens of -log p_skim, batch mean,
    recomputed outside the loop from the layer's own output sequence."""
    h_prev = tf.concat([tf.zeros_like(outputs[:, :1]), outputs[:, :-1]], axis=1)
    logits = (
        tf.einsum("btf,fk->btk", x, cell.gate_kernel)
        + tf.einsum("btu,uk->btk", h_prev, cell.gate_recurrent_kernel)
        + cell.gate_bias
    )
    neg_log_p_skim = -tf.nn.log_softmax(logits, axis=-1)[..., 1]
    m = tf.cast(mask, tf.float32)
    per_sequence = tf.reduce_sum(neg_log_p_skim * m, axis=1) / tf.reduce_sum(m, axis=1)
    return gamma * tf.reduce_mean(per_sequence)


@pytest.mark.parametrize("cell_class", [SkimLSTMCell, SkimGRUCell])
def test_added_loss_equals_explicit_skim_loss_and_has_its_gradient(cell_class):
    rs = np.random.RandomState(0)
    x, mask, _ = _padded_batch(rs)
    probe = rs.normal(size=(6,)).astype("float32")

    def gradients(gamma, explicit_gamma):
        cell = cell_class(6, 2, gamma=gamma, seed=11)
        layer = keras.layers.RNN(cell, return_sequences=True)
        layer(x[:1], mask=mask[:1])
        rs_w = np.random.RandomState(5)
        for v in cell.trainable_weights:
            v.assign(rs_w.normal(0, 0.5, v.shape).astype("float32"))
        with tf.GradientTape() as tape:
            out = layer(x, mask=tf.constant(mask), training=True)
            # Only real steps count in the task loss too.
            task = tf.reduce_sum(out * probe * tf.cast(mask, tf.float32)[..., None])
            explicit = _explicit_skim_loss(cell, explicit_gamma, x, mask, out)
            # A custom loop adds the layers' losses, as for any Keras add_loss.
            added = tf.add_n(layer.losses) if layer.losses else tf.constant(0.0)
            loss = task + explicit + added
        grads = [np.asarray(g) for g in tape.gradient(loss, cell.trainable_weights)]
        return grads, float(added), float(_explicit_skim_loss(cell, 0.5, x, mask, out))

    added, added_value, explicit_value = gradients(gamma=0.5, explicit_gamma=0.0)
    reference, _, _ = gradients(gamma=0.0, explicit_gamma=0.5)
    plain, _, _ = gradients(gamma=0.0, explicit_gamma=0.0)
    assert added_value == pytest.approx(explicit_value, rel=1e-5)
    for got, want in zip(added, reference):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
    # And the term really changes the gate's gradients.
    assert not np.allclose(added[-3], plain[-3])


def test_gradients_reach_the_gate_in_training():
    rs = np.random.RandomState(1)
    x = rs.normal(size=(4, 6, 3)).astype("float32")
    cell = SkimLSTMCell(8, 2, gamma=0.0, seed=1)
    layer = keras.layers.RNN(cell)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(x, training=True) ** 2)
    grads = dict(
        zip([v.path.split("/")[-1] for v in cell.trainable_weights], tape.gradient(loss, cell.trainable_weights))
    )
    for name in ("gate_kernel", "gate_recurrent_kernel", "gate_bias", "small_kernel", "kernel"):
        assert grads[name] is not None and np.abs(np.asarray(grads[name])).sum() > 0, name


def _toy_text_task(seed=0, n=192, steps=16, vocab=40):
    rs = np.random.RandomState(seed)
    lengths = rs.randint(4, steps + 1, n)
    ids = np.zeros((n, steps), "int32")
    for i, length in enumerate(lengths):
        ids[i, :length] = rs.randint(1, vocab, length)
    labels = (ids[:, 0] % 2).astype("float32")
    return ids, labels


def _skim_model(gamma, steps=16, vocab=40):
    model = keras.Sequential(
        [
            keras.Input((steps,), dtype="int32"),
            keras.layers.Embedding(vocab, 8, mask_zero=True),
            keras.layers.RNN(SkimLSTMCell(16, 4, gamma=gamma, seed=3)),
            keras.layers.Dense(1, activation="sigmoid"),
        ]
    )
    model.compile(keras.optimizers.Adam(1e-2), "binary_crossentropy", metrics=["accuracy"])
    return model


def test_higher_gamma_gives_higher_skim_rate_in_fit_logs():
    from keras_skim import GumbelTemperatureSchedule, skim_statistics

    ids, labels = _toy_text_task()
    rates = {}
    for gamma in (0.0, 1.0):
        keras.utils.set_random_seed(7)
        model = _skim_model(gamma)
        history = model.fit(
            ids,
            labels,
            epochs=2,
            batch_size=32,
            verbose=0,
            callbacks=[GumbelTemperatureSchedule(rate=1e-2)],
        )
        assert "skim_rate" in history.history
        assert history.history["temperature"][-1] < 1.0
        rates[gamma] = skim_statistics(model, ids)["skim_rate"]
        # (evaluate's skim_rate: test_logged_skim_rate_counts_every_real_token)
    assert rates[1.0] > rates[0.0] + 0.2, rates


def test_skim_rate_metric_counts_only_real_tokens():
    ids, _ = _toy_text_task(n=6)
    model = _skim_model(0.0)
    from keras_skim import set_threshold, skim_statistics

    set_threshold(model, 1.5)  # always skim
    stats = skim_statistics(model, ids)
    assert stats["skim_rate"] == 1.0
    assert stats["tokens"] == float((ids != 0).sum())
    set_threshold(model, 0.0)  # always read
    assert skim_statistics(model, ids)["skim_rate"] == 0.0


def test_masked_steps_change_nothing():
    rs = np.random.RandomState(2)
    x = rs.normal(size=(2, 7, 3)).astype("float32")
    mask = np.ones((2, 7), bool)
    mask[:, 4:] = False
    cell = SkimLSTMCell(5, 2)
    layer = keras.layers.RNN(cell, return_state=True)
    out_masked, *states_masked = layer(x, mask=mask)
    out_short, *states_short = layer(x[:, :4])
    np.testing.assert_allclose(out_masked, out_short, atol=1e-6)
    for a, b in zip(states_masked[:2], states_short[:2]):
        np.testing.assert_allclose(a, b, atol=1e-6)
    assert states_masked[2].shape[-1] == NUM_STATS


def test_bidirectional_and_stacked_layers_train():
    ids, labels = _toy_text_task(n=64)
    model = keras.Sequential(
        [
            keras.Input((16,), dtype="int32"),
            keras.layers.Embedding(40, 8, mask_zero=True),
            keras.layers.Bidirectional(keras.layers.RNN(SkimLSTMCell(8, 2), return_sequences=True)),
            keras.layers.RNN(SkimGRUCell(8, 2)),
            keras.layers.Dense(1, activation="sigmoid"),
        ]
    )
    # Eager: tracing this training graph costs many times the steps (the traced
    # fit of both: test_skim_loss_settings.py, settings bidirectional and stacked_layers).
    model.compile("adam", "binary_crossentropy", run_eagerly=True)
    history = model.fit(ids, labels, epochs=1, batch_size=16, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    from keras_skim import skim_cells, skim_statistics

    assert len(skim_cells(model)) == 3
    stats = skim_statistics(model, ids)
    assert len(stats["layers"]) == 3
    assert stats["tokens"] == 3 * float((ids != 0).sum())


def test_logged_skim_rate_counts_every_real_token():
    # Counted from the final bookkeeping state: the last time step too.
    from keras_skim import skim_statistics

    ids, labels = _toy_text_task(n=40)
    ids[:5] = np.where(ids[:5] == 0, 7, ids[:5])  # some full-length texts
    model = _skim_model(0.0)
    logs = model.evaluate(ids, labels, batch_size=16, verbose=0, return_dict=True)
    assert float(model.layers[1].cell.skim_rate.tokens) == float((ids != 0).sum())
    assert logs["skim_rate"] == pytest.approx(skim_statistics(model, ids)["skim_rate"], abs=1e-6)


def test_training_without_an_rnn_layer_that_adds_the_loss_is_refused():
    class Untracked(keras.layers.Layer):
        def call(self, x, training=False):
            # An RNN layer made inside call() is no sublayer of the model.
            return keras.layers.RNN(SkimLSTMCell(4, 1, gamma=0.1))(x, training=training)

    inputs = keras.Input((5, 3))
    model = keras.Model(inputs, keras.layers.Dense(1)(Untracked()(inputs)))
    model.compile("sgd", "mse")
    with pytest.raises(ValueError, match="not a tracked sublayer"):
        model.fit(np.zeros((2, 5, 3), "float32"), np.zeros((2, 1)), verbose=0)

    cell = SkimLSTMCell(4, 1, gamma=0.1)
    keras.layers.RNN(cell)(np.zeros((2, 5, 3), "float32"))
    with pytest.raises(ValueError, match="outside keras.layers.RNN"):
        cell(np.zeros((2, 3), "float32"), cell.get_initial_state(2), training=True)
    # Inference, or gamma = 0, needs no RNN layer.
    cell(np.zeros((2, 3), "float32"), cell.get_initial_state(2))


def test_bookkeeping_is_exact_past_float16_range_under_mixed_precision():
    steps = 2200  # float16 counts stop at 2048; float16 sums of ~0.7 drift
    x = np.random.RandomState(0).normal(size=(1, steps, 3)).astype("float32")
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        cell = SkimLSTMCell(4, 1, gamma=0.5, threshold=0.0)
        layer = keras.layers.RNN(cell)
        run = tf.function(lambda x: (layer(x), layer.losses[0]))
        _, added = run(x)
    finally:
        keras.mixed_precision.set_global_policy("float32")
    assert cell.compute_dtype == "float16"
    assert float(cell.skim_rate.tokens) == steps
    assert float(cell.skim_rate.result()) == 0.0  # threshold 0 reads all
    assert float(cell.skim_loss.result()) == pytest.approx(float(added))
    # The same weights in float32, eq. 8 written out.
    twin = SkimLSTMCell(4, 1, gamma=0.5, threshold=0.0, dtype="float32")
    sequence = keras.layers.RNN(twin, return_sequences=True)
    sequence(x[:, :2])
    for a, b in zip(twin.weights, cell.weights):
        a.assign(b)
    out = tf.function(sequence)(x)
    mask = np.ones((1, steps), bool)
    assert float(added) == pytest.approx(float(_explicit_skim_loss(twin, 0.5, x, mask, out)), rel=1e-2)
