"""LSTMAttentionQA and BiDAF: the attention against a NumPy reference, fit, the per-layer skim counts and
the .keras round trip with identical outputs."""

import numpy as np
import pytest

keras = pytest.importorskip("keras")

from keras_skim.models import BiDAF, LSTMAttentionQA, TrilinearSimilarity, compile_span_reader  # noqa: E402
from keras_skim.models.span_qa.span_qa_ops import attend  # noqa: E402


def numpy_attention(x, q, w, question_mask):
    """a_t = softmax_j(w^T [x_t; q_j; x_t * q_j]) over the real question words, u_t = sum_j a_tj q_j, written
    with the concatenation the paper writes (Skim-RNN, Appendix A.1), one (t, j) at a time."""
    batch, length, _ = x.shape
    u = np.zeros_like(x)
    scores = np.zeros((batch, length, q.shape[1]))
    for b in range(batch):
        for t in range(length):
            for j in range(q.shape[1]):
                scores[b, t, j] = np.concatenate([x[b, t], q[b, j], x[b, t] * q[b, j]]) @ w
            real = scores[b, t][question_mask[b]]
            weights = np.exp(real - real.max()) / np.exp(real - real.max()).sum()
            u[b, t] = weights @ q[b][question_mask[b]]
    return scores, u


def test_the_attention_matches_the_numpy_reference():
    rng = np.random.default_rng(3)
    x, q = rng.normal(size=(2, 4, 3)).astype("float32"), rng.normal(size=(2, 5, 3)).astype("float32")
    question_mask = np.array([[True] * 5, [True, True, True, False, False]])
    layer = TrilinearSimilarity()
    scores = np.asarray(layer(x, q))
    w = np.asarray(layer.kernel)[:, 0]
    expected_scores, expected_u = numpy_attention(x.astype("float64"), q.astype("float64"), w, question_mask)
    np.testing.assert_allclose(scores, expected_scores, rtol=1e-5, atol=1e-5)
    u = np.asarray(attend(scores, q, question_mask))
    np.testing.assert_allclose(u, expected_u, rtol=1e-5, atol=1e-5)
    # golden values: the padded question words get no weight, so changing them changes nothing
    q_changed = q.copy()
    q_changed[1, 3:] = 100.0
    u_changed = np.asarray(attend(np.asarray(layer(x, q_changed)), q_changed, question_mask))
    np.testing.assert_allclose(u_changed[1], u[1], rtol=1e-5, atol=1e-5)


REAL_WORDS, REAL_QUESTION_WORDS = 4, 2  # per example, then padding: short, as each eager read steps every token


def _data():
    rng = np.random.default_rng(0)
    context = rng.integers(2, 40, (6, REAL_WORDS + 2)).astype("int32")
    context[:, REAL_WORDS:] = 0
    question = rng.integers(2, 40, (6, REAL_QUESTION_WORDS + 1)).astype("int32")
    question[:, REAL_QUESTION_WORDS:] = 0
    return context, question, rng.integers(0, 2, 6), rng.integers(2, REAL_WORDS, 6)


@pytest.mark.parametrize(
    "model_class, cells",
    [(LSTMAttentionQA, ("skim-lstm", "skim-gru")), (BiDAF, ("skim-lstm", "lstm", "skim-gru", "lstm"))],
)
def test_fit_counts_and_keras_round_trip(tmp_path, model_class, cells):
    context, question, start, end = _data()
    model = model_class(40, embedding_dim=6, units=5, small_units=2, cells=cells, seed=1)
    compile_span_reader(model)
    history = model.fit((context, question), (start, end), epochs=1, batch_size=3, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    read = model.read((context, question))
    start_logits, end_logits, counts = read
    assert start_logits.shape == end_logits.shape == context.shape
    # padding is never a start: its logit is far below every real token's
    assert np.all(np.asarray(start_logits)[:, REAL_WORDS:] < -1e8)
    assert len(counts) == len(model.READERS)
    for cell, count in zip(cells, counts):
        count = np.asarray(count).sum(axis=0)  # (direction, [tokens, skimmed])
        assert count[:, 0].tolist() == [6.0 * REAL_WORDS] * 2  # every real token of the 6 contexts, each direction
        if cell == "lstm":
            assert count[:, 1].tolist() == [0.0, 0.0]
        assert np.all(count[:, 1] <= count[:, 0])
    path = tmp_path / "reader.keras"
    model.save(path)
    loaded = keras.saving.load_model(path)
    assert type(loaded) is model_class and loaded.get_config() == model.get_config()
    # the loaded model's logits and counts are the model's, bit for bit (`read` is what `call` returns, and more)
    for a, b in zip(keras.tree.flatten(read), keras.tree.flatten(loaded.read((context, question)))):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_a_skim_threshold_of_one_skims_every_token_and_zero_reads_every_token():
    from keras_skim.model_kinds import skim_gate

    context, question, _, _ = _data()
    model = LSTMAttentionQA(40, embedding_dim=6, units=5, small_units=2, cells="skim-lstm", seed=2)
    gate = skim_gate()
    for threshold, skimmed in ((1.0, 6.0 * REAL_WORDS), (0.0, 0.0)):
        with gate.thresholds_set_to(gate.skim_cells(model), threshold):
            counts = [np.asarray(c).sum(axis=0) for c in model.read((context, question))[2]]
        assert [c[:, 1].tolist() for c in counts] == [[skimmed, skimmed]] * 2


def test_a_wrong_cell_is_refused():
    with pytest.raises(ValueError, match="each cell must be one of"):
        LSTMAttentionQA(10, cells=("lstm", "sj-lstm"))
    with pytest.raises(ValueError, match="4 reading layers"):
        BiDAF(10, cells=("lstm", "lstm"))


@pytest.mark.parametrize("model_class", [LSTMAttentionQA, BiDAF])
def test_the_per_token_reading_masks_agree_with_the_layers_counts(model_class):
    from keras_skim.models.span_qa.span_qa_show import reading_masks

    context, question, _, _ = _data()
    cells = ("skim-lstm", "lstm", "skim-gru", "skim-lstm")[: len(model_class.READERS)]
    model = model_class(40, embedding_dim=6, units=5, small_units=2, cells=cells, seed=4)
    context_ids, question_ids = context[0, :REAL_WORDS], question[0, :REAL_QUESTION_WORDS]  # without padding
    start, _, masks = reading_masks(model, context_ids, question_ids, threshold=0.5)
    counts = model.read((context_ids[None], question_ids[None]))[2]
    assert start.shape == (REAL_WORDS,) and len(masks) == 2 * len(cells)
    for name, cell, count in zip(model.READERS, cells, counts):
        count = np.asarray(count)[0]
        for index, direction in enumerate(("forward", "backward")):
            mask = masks[(name, direction)]
            assert mask.shape == (REAL_WORDS,) and set(mask.tolist()) <= {0, 1}
            assert int((1 - mask).sum()) == int(count[index, 1]), (name, direction)
            if cell == "lstm":
                assert mask.tolist() == [1] * REAL_WORDS
