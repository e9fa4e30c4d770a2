"""Training under tf.distribute.MirroredStrategy on two logical CPU devices.

Runs in a subprocess: logical devices must be configured before TensorFlow
initialises, which the rest of the test session has already done.
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

SCRIPT = textwrap.dedent(
    """
    import json, numpy as np, tensorflow as tf
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()])
    import keras
    from keras_skim import SkimLSTMCell, GumbelTemperatureSchedule, skim_statistics
    keras.utils.set_random_seed(0)
    rs = np.random.RandomState(0)
    ids = np.zeros((128, 12), "int32")
    for i, n in enumerate(rs.randint(3, 13, 128)):
        ids[i, :n] = rs.randint(1, 30, n)
    labels = (ids[:, 0] % 2).astype("float32")
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        model = keras.Sequential([
            keras.Input((12,), dtype="int32"),
            keras.layers.Embedding(30, 8, mask_zero=True),
            keras.layers.RNN(SkimLSTMCell(16, 4, gamma=1.0, seed=1)),
            keras.layers.Dense(1)])
        model.compile(keras.optimizers.Adam(1e-2),
                      keras.losses.BinaryCrossentropy(from_logits=True))
    history = model.fit(ids, labels, epochs=3, batch_size=32, verbose=0,
                        callbacks=[GumbelTemperatureSchedule(rate=1e-2)])
    exact = skim_statistics(model, ids)["skim_rate"]

    # One fit step's gradients against the explicit loss: each replica runs
    # half of the batch with the same noise state, so the explicit loss is
    # the mean of the two halves' losses.
    from tests.training import skim_loss_reference as ref
    toy_ids, toy_labels = ref.toy_batch()
    with strategy.scope():
        toy, parts = ref.build("last", 1.0)
    saved = ref.snapshot(toy, parts)
    got, toy_history = ref.fit_gradients(toy, toy_ids, toy_labels)
    want, task, skim = None, 0.0, 0.0
    for half in (slice(0, 4), slice(4, 8)):
        ref.restore(toy, parts, saved)
        g, t, s = ref.reference_gradients(toy, parts, "last", toy_ids[half], toy_labels[half], 1.0)
        want = g if want is None else [(a + b) / 2 for a, b in zip(want, g)]
        task, skim = task + t / 2, skim + s / 2
    without = None
    for half in (slice(0, 4), slice(4, 8)):
        ref.restore(toy, parts, saved)
        g, _, _ = ref.reference_gradients(toy, parts, "last", toy_ids[half], toy_labels[half], 0.0)
        without = g if without is None else [(a + b) / 2 for a, b in zip(without, g)]
    print(json.dumps({"replicas": strategy.num_replicas_in_sync,
                      "loss": history.history["loss"],
                      "skim_rate": history.history["skim_rate"],
                      "exact": exact,
                      "error": ref.relative_error(got, want),
                      "error_without_skim_loss": ref.relative_error(got, without),
                      "logged_loss": toy_history["loss"][0],
                      "logged_skim_loss": toy_history["skim_loss"][0],
                      "explicit_loss": task + skim,
                      "explicit_skim_loss": skim}))
    """
)


def test_mirrored_strategy_on_two_logical_cpus_trains_with_the_skim_loss():
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        timeout=600,
        env={"TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": "", **_env()},
        cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["replicas"] == 2
    assert all(np.isfinite(result["loss"]))
    # gamma = 1 pushes the gate towards skimming on both replicas.
    assert result["skim_rate"][-1] > result["skim_rate"][0]
    assert result["exact"] > 0.5
    # The fit step's gradients are those of task loss + gamma * eq. 8 over the
    # global batch (not divided or multiplied by the replica count).
    assert result["error"] < 1e-5
    assert result["error_without_skim_loss"] > 0.05
    assert result["logged_loss"] == pytest.approx(result["explicit_loss"], rel=1e-5)
    assert result["logged_skim_loss"] == pytest.approx(result["explicit_skim_loss"], rel=1e-5)


def _env():
    return {k: v for k, v in os.environ.items() if k not in ("TF_CPP_MIN_LOG_LEVEL",)}
