"""skim_statistics runs one compiled probe per model and counts exactly what
the cell decides step by step."""

import keras
import numpy as np
import pytest

from keras_skim import SkimLSTMCell
from keras_skim.models.skim_rnn import skim_statistics as module
from keras_skim.models.skim_rnn.skim_statistics import read_decisions, skim_predictions, skim_statistics

V, T = 40, 9


def _model():
    ids = keras.Input((T,), dtype="int32")
    x = keras.layers.Embedding(V, 8, mask_zero=True)(ids)
    x = keras.layers.RNN(SkimLSTMCell(6, 2, seed=1))(x)
    return keras.Model(ids, keras.layers.Dense(1)(x))


def _texts():
    rng = np.random.default_rng(3)
    lengths = [1, 9, 5, 3]
    ids = np.zeros((len(lengths), T), np.int32)
    for row, n in enumerate(lengths):
        ids[row, :n] = rng.integers(1, V, size=n)
    return ids, lengths


def test_counts_equal_the_cells_own_step_by_step_decisions():
    model, (ids, lengths) = _model(), _texts()
    for threshold in (0.3, 0.62):
        stats = skim_statistics(model, ids, batch_size=4, threshold=threshold, progress=False)
        read = sum(int(read_decisions(model, ids[row, :n], threshold=threshold).sum()) for row, n in enumerate(lengths))
        assert stats["tokens"] == sum(lengths)  # padding never counts
        assert stats["skimmed"] == sum(lengths) - read
        assert stats["skim_rate"] == pytest.approx((sum(lengths) - read) / sum(lengths))


def test_one_compiled_probe_per_model_its_logits_and_its_progress_bar(capsys):
    model, (ids, _) = _model(), _texts()
    assert skim_statistics(model, ids, threshold=0.0, progress=False)["skim_rate"] == 0.0
    probe = module._PROBES[model][False]
    assert skim_statistics(model, ids, threshold=1.5, progress=False)["skim_rate"] == 1.0
    assert module._PROBES[model][False] is probe  # the threshold is a variable: no new trace
    assert capsys.readouterr().err == ""
    stats = skim_statistics(model, ids, batch_size=3, threshold=0.5, progress=True)
    err = capsys.readouterr().err
    assert "skim statistics" in err and f"{len(ids)}/{len(ids)}" in err
    logits, same = skim_predictions(model, ids, batch_size=3, threshold=0.5, progress=False)
    assert same == stats
    np.testing.assert_allclose(logits, model.predict(ids, verbose=0), rtol=1e-5, atol=1e-6)
