"""Long work shows progress on stderr: evaluation of many texts, and the
first build of the custom-op library."""

import io

import keras
import numpy as np

from keras_skim.models.text_classifier.text_classifier_training import evaluate_model


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_evaluate_shows_a_bar_for_a_baseline_and_agrees_with_predict(capsys):
    ids = keras.Input((6,), dtype="int32")
    x = keras.layers.LSTM(4)(keras.layers.Embedding(20, 4, mask_zero=True)(ids))
    model = keras.Model(ids, keras.layers.Dense(1)(x))
    texts = np.random.default_rng(0).integers(1, 20, size=(70, 6)).astype(np.int32)
    labels = (model.predict(texts, verbose=0)[:, 0] >= 0).astype(np.int32)
    labels[:7] = 1 - labels[:7]
    result = evaluate_model(model, texts, labels, batch_size=32, progress=True)
    assert result["accuracy"] == 63 / 70 and result["skim_rate"] == 0.0
    assert "evaluating" in capsys.readouterr().err
