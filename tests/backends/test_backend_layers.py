"""The layers on the other Keras backends (issue 34): with KERAS_BACKEND=jax
(or torch) every public layer and model trains with `model.fit` under
`jit_compile`, predicts, reports its statistics and round-trips `.keras`, and
the package imports without TensorFlow. `.ci/backends` runs this file in a
venv with `jax[cpu]` and no TensorFlow; the TensorFlow suite covers the same
layers in tests/layers, so this module skips there."""

import os
import subprocess
import sys

import keras
import numpy as np
import pytest

pytestmark = pytest.mark.skipif(
    keras.backend.backend() == "tensorflow",
    reason="the TensorFlow backend runs tests/layers; these run under .ci/backends (KERAS_BACKEND=jax)",
)

import keras_skim  # noqa: E402
from keras_skim import ScoRNNCell, SkimGRU, SkimGRUCell, SkimLSTM, SkimLSTMCell, StructuralJumpLSTM  # noqa: E402

CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LENGTH = 12
RECURRENT = {
    "SkimLSTM": lambda: SkimLSTM(12, 3, gamma=0.05, seed=3),
    "SkimGRU": lambda: SkimGRU(12, 3, gamma=0.05, seed=3),
    "RNN(SkimLSTMCell)": lambda: keras.layers.RNN(SkimLSTMCell(12, 3, gamma=0.05, seed=3)),
    "RNN(SkimGRUCell)": lambda: keras.layers.RNN(SkimGRUCell(12, 0, gamma=0.05, seed=3)),
    "RNN(ScoRNNCell)": lambda: keras.layers.RNN(ScoRNNCell(12)),
}


def _data(size=48, seed=0):
    rs = np.random.RandomState(seed)
    ids = rs.randint(4, 40, (size, LENGTH)).astype("int32")
    lengths = rs.randint(3, LENGTH + 1, size)
    ids[np.arange(LENGTH)[None, :] >= lengths[:, None]] = 0
    return ids, rs.randint(0, 2, size), int(lengths.sum())


def _classifier(make_recurrent):
    keras.utils.set_random_seed(1)
    model = keras.Sequential(
        [
            keras.Input((LENGTH,), dtype="int32"),
            keras.layers.Embedding(40, 8, mask_zero=True),
            make_recurrent(),
            keras.layers.Dense(2),
        ]
    )
    model.compile(
        keras.optimizers.Adam(0.01), keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=True
    )
    return model


def _round_trip(model, path, ids):
    before = model.predict(ids, verbose=0)
    model.save(path)
    loaded = keras.saving.load_model(path)
    after = loaded.predict(ids, verbose=0)
    for a, b in zip(keras.tree.flatten(before), keras.tree.flatten(after)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    return loaded


def test_the_layers_import_without_tensorflow():
    code = (
        # Keras first: `import keras_skim; from keras_skim import SkimLSTMCell` with
        # Keras not yet imported hits a circular import in keras_skim/__init__.py's
        # registration (on every backend, TensorFlow too).
        "import sys, keras, keras_skim\n"
        "from keras_skim import SkimLSTM, SkimGRU, SkimLSTMCell, SkimGRUCell, ScoRNNCell, StructuralJumpLSTM\n"
        "from keras_skim import skim_statistics, TextStructure\n"
        "assert 'tensorflow' not in sys.modules, sorted(m for m in sys.modules if m.startswith('tensorflow'))[:3]\n"
    )
    env = {**os.environ, "PYTHONPATH": CHECKOUT}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=CHECKOUT, timeout=120)


# These also run `fit` with validation and `evaluate`, checking the logged
# skim statistics; SkimLSTM also trains a twin from the same seed.
LOGGED = ("SkimLSTM", "RNN(SkimGRUCell)")


@pytest.mark.parametrize("name", sorted(RECURRENT))
def test_layer_fits_predicts_reports_and_round_trips(name, tmp_path):
    ids, labels, real_tokens = _data()
    model = _classifier(RECURRENT[name])
    weights, count = [np.array(w) for w in model.trainable_weights], len(model.weights)
    validation = (ids, labels) if name in LOGGED else None
    history = model.fit(ids, labels, epochs=2, batch_size=16, verbose=0, validation_data=validation).history
    assert np.all(np.isfinite(history["loss"])) and history["loss"][-1] < history["loss"][0], history
    assert any(not np.allclose(a, np.array(b)) for a, b in zip(weights, model.trainable_weights))
    assert model.predict(ids, verbose=0).shape == (len(ids), 2)
    if "Sco" not in name:
        stats = keras_skim.skim_statistics(model, ids, batch_size=16, progress=False)
        assert stats["tokens"] == real_tokens and 0.0 <= stats["skim_rate"] <= 1.0, stats
        everything = keras_skim.skim_statistics(model, ids, threshold=1.0, progress=False)
        assert everything["skimmed"] == real_tokens, everything
    if name in LOGGED:
        _check_the_logged_skim_statistics(model, history, ids, labels)
        assert len(model.weights) == count
    if name == "SkimLSTM":
        # Under JAX each loop step folds its index into a key drawn before
        # the loop: the same seed trains the same (the first epoch: before validation).
        twin = _classifier(RECURRENT[name]).fit(ids, labels, epochs=1, batch_size=16, verbose=0).history
        assert twin["loss"][0] == history["loss"][0], (twin, history)
    _round_trip(model, str(tmp_path / "model.keras"), ids)


def _check_the_logged_skim_statistics(model, history, ids, labels):
    """skim_rate and skim_loss in `fit`'s epoch logs and `evaluate`'s result
    (issue 34: they were 0 on JAX): the counts are the cell's state, carried
    by the trainer as the model's non-trainable variables, not weights (the
    caller checks that fit added no weight)."""
    # In training a token is skimmed when its Gumbel sample favours skimming:
    # about half of them with the gate's initial weights.
    assert all(0.05 < rate < 0.95 for rate in history["skim_rate"]), history
    assert all(loss > 0.0 for loss in history["skim_loss"]) and all(v > 0.0 for v in history["val_skim_loss"]), history
    # Validation decides with the threshold: the exact rate of the final weights.
    exact = keras_skim.skim_statistics(model, ids, batch_size=16, progress=False)["skim_rate"]
    assert exact > 0.0 and history["val_skim_rate"][-1] == pytest.approx(exact, abs=1e-6), (history, exact)
    result = model.evaluate(ids, labels, batch_size=16, verbose=0, return_dict=True)
    assert result["skim_rate"] == pytest.approx(exact, abs=1e-6) and result["skim_loss"] > 0.0, result
    (cell,) = [layer for layer in model._flatten_layers() if hasattr(layer, "skim_rate")]
    counts = cell.skim_rate.state_variables + cell.skim_loss.state_variables
    assert not any(v is w for v in counts for w in model.weights)
    assert all(any(v is w for w in model.non_trainable_variables) for v in counts)
    assert cell.skim_rate.variables == [] and cell.skim_loss.variables == []


def test_gumbel_draws_differ_between_steps():
    """Under JAX each loop step folds its index into a key drawn before the
    loop: the draws differ from step to step (the same seed training the
    same: test_layer_fits_predicts_reports_and_round_trips[SkimLSTM])."""
    # Unrolled, so that each step's draw is a concrete array (JAX traces a
    # rolled loop once); the draws come from the same per-step seeds.
    cell = SkimLSTMCell(4, 1, seed=5)
    seen = []
    draw = cell._gumbel_noise

    def record(*args):
        seen.append(np.asarray(draw(*args)))
        return seen[-1]

    cell._gumbel_noise = record
    keras.layers.RNN(cell, unroll=True)(np.ones((2, 6, 3), "float32"), training=True)
    assert len(seen) == 6 and len({d.tobytes() for d in seen}) == 6


def test_structural_jump_lstm_fits_predicts_reports_and_round_trips(tmp_path):
    from keras_skim.models.structural_jump.structural_jump_statistics import structural_jump_statistics

    rs = np.random.RandomState(2)
    ids = rs.randint(2, 30, (32, LENGTH)).astype("int32")
    ids[:, 9:] = 0
    labels = rs.randint(0, 2, 32)
    model = StructuralJumpLSTM(30, separator_ids=[2], sentence_end_ids=[3], units=8, agent_units=4, embedding_dim=6)
    model.compile(keras.optimizers.Adam(0.01), jit_compile=True)
    history = model.fit(ids, labels, epochs=2, batch_size=8, verbose=0).history
    assert np.all(np.isfinite(history["loss"])) and 0.0 < history["read_fraction"][-1] <= 1.0, history
    stats = structural_jump_statistics(model, ids, batch_size=8)
    words = int(((ids != 0) & (ids != 2) & (ids != 3)).sum())
    assert stats["words"] == words and stats["read"] + stats["skipped"] + stats["jumped"] == words, stats
    out = model.predict(ids, verbose=0)
    # The steps past a text's words (run here: shapes stay static) change nothing.
    assert not np.any(np.asarray(out["trace"])[:, 9:]), "the trace is zero past the words"
    _round_trip(model, str(tmp_path / "sj.keras"), ids)


LOAD_AND_EXPORT_ON_TENSORFLOW = """
import sys, numpy as np, keras
from keras_skim.export.exporter import export_model
folder = sys.argv[1]
model = keras.saving.load_model(folder + "/model.keras")
logits = model.predict(np.load(folder + "/ids.npy"), verbose=0)
np.testing.assert_allclose(logits, np.load(folder + "/logits.npy"), atol=1e-5)
result = export_model(folder + "/model.keras", folder + "/export", parity_samples=2, backend="builtin")
assert result.parity.ok, result.parity
print("exported", result.metadata["model_kind"])
"""


@pytest.mark.skipif(
    not os.environ.get("KERAS_SKIM_TF_PYTHON"), reason="KERAS_SKIM_TF_PYTHON (a TensorFlow venv's python) is not set"
)
def test_a_model_trained_here_loads_and_exports_on_tensorflow(tmp_path):
    # Trained in this process (the backend's own); TensorFlow's side needs its venv.
    from keras_skim.models.text_classifier.text_classifier import build_text_classifier, compile_text_classifier

    keras.utils.set_random_seed(0)
    model = build_text_classifier("skim-lstm", 40, 12, embedding_dim=8, units=12, small_units=3, seed=1)
    compile_text_classifier(model)
    rs = np.random.RandomState(0)
    ids = rs.randint(1, 40, (32, 12)).astype("int32")
    model.fit(ids, rs.randint(0, 2, 32), epochs=1, batch_size=8, verbose=0)
    model.save(tmp_path / "model.keras")
    np.save(tmp_path / "ids.npy", ids)
    np.save(tmp_path / "logits.npy", np.asarray(model.predict(ids, verbose=0)))
    env = {**os.environ, "PYTHONPATH": CHECKOUT, "KERAS_BACKEND": "tensorflow"}
    done = subprocess.run(
        [os.environ["KERAS_SKIM_TF_PYTHON"], "-c", LOAD_AND_EXPORT_ON_TENSORFLOW, str(tmp_path)],
        env=env,
        timeout=600,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "exported skim_lstm" in done.stdout
    assert (tmp_path / "export").is_dir()
