"""Models with skim cells save and reload as .keras and .h5 with identical outputs."""

import keras
import numpy as np
import pytest

import keras_skim
from keras_skim import SkimGRUCell, SkimLSTMCell


def _model(cell):
    model = keras.Sequential(
        [
            keras.Input((10,), dtype="int32"),
            keras.layers.Embedding(30, 6, mask_zero=True),
            keras.layers.Bidirectional(keras.layers.RNN(cell, return_sequences=True)),
            keras.layers.RNN(SkimLSTMCell(5, 1, threshold=0.3)),
            keras.layers.Dense(2),
        ]
    )
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def _train_one_step(model, x, y):
    """One real training step (weights and optimizer state that are not the initial ones), run
    eagerly: tracing the training graph of these RNNs takes about nine times the CPU of the step
    itself. predict, which the tests compare, is traced as usual."""
    model.run_eagerly = True
    logs = model.train_on_batch(x, y, return_dict=True)
    model.run_eagerly = False
    return logs


@pytest.fixture(scope="module")
def trained_models():
    """cell class -> (a model trained one step with its threshold set, its ids, its outputs):
    made on first use, then shared by that cell's .keras and .h5 cases (the trace of the
    training step and of predict are the slow part)."""
    models = {}

    def get(cell_class):
        if cell_class not in models:
            rs = np.random.RandomState(0)
            ids = rs.randint(0, 30, (8, 10)).astype("int32")
            ids[:, 7:] = 0
            model = _model(cell_class(7, 2, gamma=0.03, threshold=0.45, seed=4))
            _train_one_step(model, ids, rs.randint(0, 2, 8))
            keras_skim.set_threshold(model, 0.55, layer_name=model.layers[1].name)
            models[cell_class] = model, ids, model.predict(ids, verbose=0)
        return models[cell_class]

    return get


@pytest.mark.parametrize("cell_class, extension", [(SkimLSTMCell, "keras"), (SkimLSTMCell, "h5"), (SkimGRUCell, "h5")])
def test_save_and_reload_give_identical_outputs(tmp_path, trained_models, cell_class, extension):
    model, ids, outputs = trained_models(cell_class)
    path = tmp_path / f"m.{extension}"
    model.save(path)
    restored = keras_skim.load_model(path)
    np.testing.assert_array_equal(outputs, restored.predict(ids, verbose=0))
    np.testing.assert_array_equal(model.predict(ids, verbose=0), outputs)  # saving changed nothing
    thresholds = [c.threshold for c in keras_skim.skim_cells(restored)]
    assert thresholds == pytest.approx([0.55, 0.55, 0.3])
    assert isinstance(keras_skim.skim_cells(restored)[0], cell_class)


def test_keras_load_model_finds_the_cells_once_keras_skim_is_imported(tmp_path):
    model = _model(SkimLSTMCell(4, 1))
    model.save(tmp_path / "m.keras")
    restored = keras.saving.load_model(tmp_path / "m.keras", safe_mode=True)
    assert len(keras_skim.skim_cells(restored)) == 3


def test_load_model_errors_name_the_file(tmp_path):
    from keras_skim.model_io import ModelLoadError

    with pytest.raises(ModelLoadError, match="no such file"):
        keras_skim.load_model(tmp_path / "missing.keras")
    weights_only = tmp_path / "w.weights.h5"
    _model(SkimLSTMCell(4, 1)).save_weights(weights_only)
    with pytest.raises(ModelLoadError, match="without a model config"):
        keras_skim.load_model(weights_only)


@pytest.mark.parametrize("layer_class, extension", [(keras_skim.SkimLSTM, "keras"), (keras_skim.SkimGRU, "h5")])
def test_layers_that_own_their_loop_reload_and_plan_for_export(tmp_path, layer_class, extension):
    from keras_skim.export.plan import plan_model

    rs = np.random.RandomState(1)
    ids = rs.randint(1, 30, (8, 10)).astype("int32")
    ids[:, 6:] = 0
    model = keras.Sequential(
        [
            keras.Input((10,), dtype="int32"),
            keras.layers.Embedding(30, 6, mask_zero=True),
            layer_class(7, 2, gamma=0.03, threshold=0.45, seed=4, name="skim_rnn"),
            keras.layers.Dense(1),
        ]
    )
    model.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True))
    logs = _train_one_step(model, ids, rs.randint(0, 2, (8, 1)))
    assert 0.0 <= logs["skim_rate"] <= 1.0 and logs["skim_loss"] > 0.0
    path = tmp_path / f"m.{extension}"
    model.save(path)
    restored = keras_skim.load_model(path)
    assert type(restored.get_layer("skim_rnn")) is layer_class
    np.testing.assert_array_equal(model.predict(ids, verbose=0), restored.predict(ids, verbose=0))
    statistics = keras_skim.skim_statistics(restored, ids)
    assert statistics["tokens"] == (ids != 0).sum()
    plan = plan_model(restored)
    assert plan.rnn_layer_name == "skim_rnn" and plan.emitter.model_kind.startswith("skim")
