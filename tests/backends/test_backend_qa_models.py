"""The question-answering models on the other Keras backends (issue 34, item 1): with KERAS_BACKEND=jax
`LSTMAttentionQA`, `BiDAF` and `ClozeQA` import without TensorFlow, train with `model.fit` under
`jit_compile`, predict, report their skim statistics and round-trip `.keras` with identical outputs.
`.ci/backends` runs this file beside test_backend_layers.py; the TensorFlow suite covers the same models
in tests/span_qa and tests/models, so this module skips there. The data is a few short examples so that
the XLA compilations stay short."""

import os
import subprocess
import sys

import keras
import numpy as np
import pytest

pytestmark = pytest.mark.skipif(
    keras.backend.backend() == "tensorflow",
    reason="the TensorFlow backend runs tests/span_qa and tests/models; these run under .ci/backends",
)

from keras_skim.model_kinds import skim_gate  # noqa: E402
from keras_skim.models import BiDAF, ClozeQA, LSTMAttentionQA, compile_span_reader  # noqa: E402
from keras_skim.models.cloze_qa.cloze_training import evaluate_cloze  # noqa: E402
from keras_skim.models.span_qa.span_reader import skim_rates  # noqa: E402

CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONTEXT_WORDS = 5  # real words per context, then padding


def _fit_and_check(model, inputs, labels):
    """Fits two epochs under XLA; the loss is finite and the weights move."""
    assert model.jit_compile, "fit must run under jit_compile (Keras' 'auto' on JAX)"
    weights = [np.array(w) for w in model.trainable_weights]
    assert weights, "the model is built"
    history = model.fit(inputs, labels, epochs=2, batch_size=2, verbose=0).history
    assert np.all(np.isfinite(history["loss"])), history
    assert any(not np.allclose(a, np.array(b)) for a, b in zip(weights, model.trainable_weights))
    return history


def _round_trip(model, path, inputs):
    before = model.predict(inputs, verbose=0)
    model.save(path)
    loaded = keras.saving.load_model(path)
    assert type(loaded) is type(model) and loaded.get_config() == model.get_config()
    after = loaded.predict(inputs, verbose=0)
    for a, b in zip(keras.tree.flatten(before), keras.tree.flatten(after)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    return before


def test_the_qa_models_import_without_tensorflow():
    code = (
        "import sys, keras, keras_skim\n"
        "from keras_skim.models import BiDAF, ClozeQA, LSTMAttentionQA, compile_span_reader\n"
        "from keras_skim.models.span_qa.span_qa_training import evaluate_span_reader\n"
        "from keras_skim.models.cloze_qa.cloze_training import evaluate_cloze\n"
        "assert 'tensorflow' not in sys.modules, sorted(m for m in sys.modules if m.startswith('tensorflow'))[:3]\n"
    )
    env = {**os.environ, "PYTHONPATH": CHECKOUT}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=CHECKOUT, timeout=120)


def _spans():
    rng = np.random.default_rng(0)
    context = rng.integers(2, 30, (4, CONTEXT_WORDS + 2)).astype("int32")
    context[:, CONTEXT_WORDS:] = 0
    question = rng.integers(2, 30, (4, 3)).astype("int32")
    question[:, 2:] = 0
    return (context, question), (rng.integers(0, 2, 4), rng.integers(2, CONTEXT_WORDS, 4))


@pytest.mark.parametrize(
    "model_class, cells",
    [(LSTMAttentionQA, ("skim-lstm", "lstm")), (BiDAF, ("skim-gru", "lstm", "lstm", "lstm"))],
)
def test_span_reader_fits_predicts_reports_and_round_trips(model_class, cells, tmp_path):
    inputs, spans = _spans()
    keras.utils.set_random_seed(1)
    sizes = {"highway_layers": 1} if model_class is BiDAF else {}
    model = model_class(30, embedding_dim=4, units=3, small_units=2, cells=cells, seed=1, **sizes)
    model.build((inputs[0].shape, inputs[1].shape))  # the weights exist before fit, to see them move
    compile_span_reader(model)
    history = _fit_and_check(model, inputs, spans)
    # The skim layer's Gumbel samples skim about half of the tokens in training (issue 34: 0 on JAX once).
    assert all(0.0 < rate < 1.0 for rate in history["skim_rate"]), history
    start, end = _round_trip(model, str(tmp_path / "reader.keras"), inputs)
    assert np.asarray(start).shape == np.asarray(end).shape == inputs[0].shape
    assert np.all(np.asarray(start)[:, CONTEXT_WORDS:] < -1e8), "padding is never a start"
    real = 2 * CONTEXT_WORDS * len(inputs[0])  # each direction reads every real context word
    # One inference read at a threshold of 1 (the token counts and the LSTM layers' zero skim rate hold at
    # every threshold, so a read at the layers' own threshold would check nothing more).
    gate = skim_gate()
    with gate.thresholds_set_to(gate.gated_cells(model), 1.0):
        counts = [np.asarray(c).sum(axis=0) for c in model.read(inputs, training=False)[2]]
    report = skim_rates(model.READERS, counts)
    for cell, row in zip(cells, report.values()):
        assert row["forward"]["tokens"] + row["backward"]["tokens"] == real, report
        # an LSTM layer skims nothing; a skim layer reads iff p(read) >= 1: nothing is read
        assert row["skim_rate"] == (0.0 if cell == "lstm" else 1.0), report


def test_cloze_qa_fits_predicts_reports_and_round_trips(tmp_path):
    rng = np.random.default_rng(0)
    tokens = rng.integers(2, 30, (4, 8)).astype("int32")
    tokens[:, 6:] = 0
    inputs = {"tokens": tokens, "candidates": rng.integers(2, 30, (4, 3)).astype("int32")}
    labels = rng.integers(0, 3, 4).astype("int32")
    keras.utils.set_random_seed(1)
    model = ClozeQA(30, cell="skim-lstm", embedding_dim=4, units=4, small_units=2, num_candidates=3, seed=2)
    model.compile(
        optimizer="adam",
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=[keras.metrics.SparseCategoricalAccuracy(name="accuracy")],
    )
    history = _fit_and_check(model, inputs, labels)
    # Training draws Gumbel samples: about half of the tokens skimmed with the initial weights.
    assert all(0.0 < rate < 1.0 for rate in history["skim_rate"]), history
    assert _round_trip(model, str(tmp_path / "cloze.keras"), inputs).shape == (4, 3)
    assert evaluate_cloze(model, inputs, labels, threshold=1.0)["skim_rate"] == 1.0
    assert evaluate_cloze(model, inputs, labels, threshold=0.0)["skim_rate"] == 0.0
