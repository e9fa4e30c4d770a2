"""The authors' RMSprop (per-tensor average-norm clipping, accumulators at
1) and the linear decay of the target weight delta."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_skim import EntropyWeightDecay, PerTensorClipRMSprop, StructuralJumpLSTM


def test_one_step_equals_tf1_rmsprop_with_clip_by_average_norm():
    rs = np.random.RandomState(0)
    small = tf.Variable(rs.normal(size=(3, 2)).astype("float32"))
    large = tf.Variable(rs.normal(size=(4,)).astype("float32"))
    g_small = rs.normal(0, 0.01, (3, 2)).astype("float32")  # below the clip: unchanged
    g_large = rs.normal(0, 5.0, (4,)).astype("float32")  # clipped to norm 0.1 * 4
    before = [small.numpy(), large.numpy()]
    opt = PerTensorClipRMSprop(learning_rate=0.01)
    opt.apply_gradients([(tf.constant(g_small), small), (tf.constant(g_large), large)])
    for var, g, start in ((small, g_small, before[0]), (large, g_large, before[1])):
        clipped = g * min(1.0, 0.1 * g.size / np.linalg.norm(g))
        ms = 0.9 * 1.0 + 0.1 * clipped**2  # the accumulator starts at 1
        np.testing.assert_allclose(var.numpy(), start - 0.01 * clipped / np.sqrt(ms + 1e-10), rtol=1e-5)
    assert np.linalg.norm(g_large) > 0.1 * 4


def test_sparse_embedding_gradients_are_clipped_like_dense_ones():
    layer = keras.layers.Embedding(6, 2)
    layer.build((None,))
    start = layer.embeddings.numpy()
    opt = PerTensorClipRMSprop(learning_rate=0.1, clip_average_norm=0.01)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(tf.constant([1, 1, 4])) * 50.0)
    grad = tape.gradient(loss, layer.embeddings)
    assert isinstance(grad, tf.IndexedSlices)
    opt.apply_gradients([(grad, layer.embeddings)])
    dense = np.zeros((6, 2), "float32")
    dense[1], dense[4] = 100.0, 50.0
    clipped = dense * min(1.0, 0.01 * 12 / np.linalg.norm(dense))
    want = start - 0.1 * clipped / np.sqrt(0.9 + 0.1 * clipped**2 + 1e-10)
    np.testing.assert_allclose(layer.embeddings.numpy(), want, rtol=1e-5)


def test_optimizer_config_round_trip():
    opt = PerTensorClipRMSprop(learning_rate=1e-3, clip_average_norm=0.2, initial_accumulator=0.0)
    clone = PerTensorClipRMSprop.from_config(opt.get_config())
    assert (clone.clip_average_norm, clone.initial_accumulator) == (0.2, 0.0)
    with pytest.raises(ValueError, match="clip_average_norm"):
        PerTensorClipRMSprop(clip_average_norm=-1)


@pytest.fixture(scope="module")
def compiled_model():
    """One model compiled once for the callbacks' fits below: a new compile traces the training
    step again (seconds of CPU). SGD(0.0) leaves the weights as they are; each test starts the
    optimizer's step count (which the callbacks read) at 0 and sets the loss weight it checks."""
    model = StructuralJumpLSTM(20, [2], [3], units=4, agent_units=2, embedding_dim=3)
    model.compile(keras.optimizers.SGD(0.0))
    return model


def test_entropy_weight_decays_linearly_then_stays(compiled_model):
    schedule = EntropyWeightDecay(decay_steps=10, initial=0.1, final=0.005)
    assert [schedule.weight_at(s) for s in (0, 5, 10, 20)] == pytest.approx([0.1, 0.0525, 0.005, 0.005])
    model = compiled_model
    model.optimizer.iterations.assign(0)
    ids = np.random.RandomState(0).randint(4, 20, (12, 5))
    history = model.fit(
        ids, ids[:, 0] % 2, batch_size=4, epochs=2, verbose=0, callbacks=[EntropyWeightDecay(decay_steps=4)]
    )
    # Set before each batch: steps 0..5 -> the last batch ran at step 5 >= 4.
    assert history.history["entropy_weight"] == pytest.approx([0.1 - 0.095 * 2 / 4, 0.005])
    assert model.get_config()["entropy_weight"] == pytest.approx(0.005)
    with pytest.raises(ValueError, match="decay_steps"):
        EntropyWeightDecay(decay_steps=0)


def test_read_budget_checkpoint_keeps_the_most_accurate_epoch_within_budget():
    from keras_skim.models.structural_jump.read_budget_checkpoint import ReadBudgetCheckpoint

    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1, use_bias=False)])
    epochs = [  # (accuracy, read fraction, reward)
        (0.80, 0.90, 0.70),
        (0.78, 0.55, 0.75),
        (0.79, 0.60, 0.74),
        (0.81, 0.70, 0.76),
        (0.70, 0.20, 0.77),
    ]
    callback = ReadBudgetCheckpoint(0.6)
    callback.set_model(model)
    callback.on_train_begin()
    for epoch, (acc, read, reward) in enumerate(epochs):
        model.set_weights([np.full((1, 1), epoch, "float32")])
        callback.on_epoch_end(epoch, {"val_accuracy": acc, "val_read_fraction": read, "val_reward": reward})
    callback.on_train_end()
    assert callback.selected_epoch == 2 and callback.within_budget
    assert model.get_weights()[0][0, 0] == 2
    # No epoch within the budget: the best reward (the authors' rule).
    callback = ReadBudgetCheckpoint(0.1)
    callback.set_model(model)
    callback.on_train_begin()
    for epoch, (acc, read, reward) in enumerate(epochs):
        callback.on_epoch_end(epoch, {"val_accuracy": acc, "val_read_fraction": read, "val_reward": reward})
    assert callback.selected_epoch == 4 and not callback.within_budget
    with pytest.raises(ValueError, match="budget"):
        ReadBudgetCheckpoint(1.5)


def test_critic_warmup_turns_the_actor_loss_off_for_the_first_steps(compiled_model):
    from keras_skim import CriticWarmup

    model = compiled_model
    model.optimizer.iterations.assign(0)
    model.actor_weight = 7.0
    ids = np.random.RandomState(0).randint(4, 20, (16, 5))
    seen = []
    record = keras.callbacks.LambdaCallback(on_train_batch_begin=lambda b, logs: seen.append(model.actor_weight))
    model.fit(ids, ids[:, 0] % 2, batch_size=4, verbose=0, callbacks=[CriticWarmup(3), record])
    assert seen == [0.0, 0.0, 0.0, 7.0]
    assert model.actor_weight == 7.0 and model.get_config()["actor_weight"] == 7.0
    # The loss really drops the actor term while beta is 0.
    out = model(ids, training=True)
    model.reset_metrics()
    model.actor_weight = 0.0
    without = float(model.compute_loss(ids, ids[:, 0] % 2, out))
    model.actor_weight = 7.0
    with_actor = float(model.compute_loss(ids, ids[:, 0] % 2, out))
    actor = float(model.trackers["actor_loss"].result())  # mean of the two equal calls
    assert with_actor - without == pytest.approx(7.0 * actor, rel=1e-4, abs=1e-6)
