"""`--patience-steps`: early stopping counted in training steps (Seo et al.'s 3,000), the best epoch kept."""

import numpy as np
import pytest

from keras_skim.cli.main import main


def _model():
    import keras

    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    return model


def _epoch(callback, model, steps, accuracy, weight):
    for step in range(steps):
        callback.on_train_batch_end(step)
    model.set_weights([np.full((2, 1), weight, np.float32), np.zeros(1, np.float32)])
    callback.on_epoch_end(0, {"val_accuracy": accuracy})


def test_it_stops_after_the_patience_in_steps_and_keeps_the_best_epoch():
    from keras_skim.models.text_classifier.step_patience import StepPatience

    model = _model()
    callback = StepPatience(250)
    callback.set_model(model)
    model.stop_training = False  # as fit() sets it
    callback.on_train_begin()
    _epoch(callback, model, 100, 0.6, 1.0)
    _epoch(callback, model, 100, 0.7, 2.0)  # best, at step 200
    _epoch(callback, model, 100, 0.7, 3.0)  # not better: 100 steps since the best
    assert not model.stop_training
    _epoch(callback, model, 100, 0.65, 4.0)  # 200 steps
    assert not model.stop_training
    _epoch(callback, model, 100, 0.69, 5.0)  # 300 >= 250: stop
    assert model.stop_training and (callback.best_step, callback.stopped_step) == (200, 500)
    callback.on_train_end()
    assert np.all(model.get_weights()[0] == 2.0)


def test_in_a_real_fit_it_counts_steps_across_epochs():
    import keras

    from keras_skim.models.text_classifier.step_patience import StepPatience

    model = _model()
    # Learning rate 0: the validation accuracy never improves after the first epoch (4 steps of 8 texts).
    model.compile(keras.optimizers.SGD(0.0), "mse", metrics=["accuracy"])
    x, y = np.ones((32, 2), np.float32), np.ones((32, 1), np.float32)
    callback = StepPatience(8)
    history = model.fit(x, y, batch_size=8, epochs=50, validation_data=(x, y), callbacks=[callback], verbose=0)
    assert (callback.best_step, callback.stopped_step, len(history.history["loss"])) == (4, 12, 3)


@pytest.mark.parametrize("value", [0, -1, 2.5, True])
def test_a_bad_patience_is_refused(value):
    from keras_skim.models.text_classifier.step_patience import StepPatience

    with pytest.raises(ValueError, match="patience_steps must be an integer >= 1"):
        StepPatience(value)


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--patience-steps", "0"], "argument --patience-steps: expected a positive integer, got '0'"),
        (["--patience-steps", "9", "--no-early-stopping"], "--patience-steps and --no-early-stopping exclude"),
        (["--patience-steps", "9", "--cell", "sj-lstm"], "--patience-steps does not apply to --cell sj-lstm"),
    ],
)
def test_the_train_command_refuses_a_bad_patience_in_one_line(tmp_path, capsys, extra, message):
    assert main(["train", "--data", "rotten_tomatoes", "-o", str(tmp_path / "m"), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
