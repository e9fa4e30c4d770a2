"""The Keras internals behind `keras.layers.RNN(SkimLSTMCell(...))` still do
what keras_skim/keras_internals.py relies on; a Keras release that
moves one fails here with its name."""

import importlib

import keras
import numpy as np
import pytest

MOVED = "Keras moved or changed {what}: update keras_skim/keras_internals.py (checked with Keras 3.15)"


def _internals():
    try:
        return importlib.import_module("keras_skim.keras_internals")
    except ImportError as error:
        pytest.fail(MOVED.format(what=f"an import ({error})"))


class _Probe(keras.layers.Layer):
    """Records what the internals report from inside a call."""

    def __init__(self, seen):
        super().__init__()
        # a bound method, which Keras does not track as layer state
        self._record = seen.append

    def call(self, x, training=None):
        internals = _internals()
        self._record((internals.calling_layer(), internals.python_training_flag()))
        return x


def test_dropout_rnn_cell_base_is_asked_for_its_masks_before_the_loop():
    internals = _internals()
    calls = []

    class Cell(keras.layers.Layer, internals.DropoutRNNCell):
        state_size = 2
        dropout = 0.0
        recurrent_dropout = 0.0

        def get_dropout_mask(self, step_input):
            calls.append("mask")
            return super().get_dropout_mask(step_input)

        def call(self, x, states):
            return states[0], states

    keras.layers.RNN(Cell())(np.zeros((1, 3, 2), "float32"))
    if calls != ["mask"]:
        pytest.fail(MOVED.format(what="DropoutRNNCell (keras.layers.RNN no longer asks it for its dropout mask)"))


def test_call_context_names_the_outermost_layer_and_the_training_flag():
    internals = _internals()
    seen = []
    inputs = keras.Input((2,))
    model = keras.Model(inputs, _Probe(seen)(inputs))
    seen.clear()
    model(np.zeros((1, 2), "float32"), training=True)
    if len(seen) != 1 or seen[0][0] is not model or seen[0][1] is not True:
        pytest.fail(MOVED.format(what="the layer call context (global_state 'current_call_ctx')"))
    assert internals.calling_layer() is None
    assert internals.python_training_flag() is None


def test_tracked_layers_reach_nested_sublayers():
    internals = _internals()
    rnn = keras.layers.RNN(keras.layers.SimpleRNNCell(2))
    inner = keras.Sequential([keras.Input((3, 2)), rnn])
    outer = keras.Sequential([keras.Input((3, 2)), inner])
    try:
        found = list(internals.tracked_layers(outer))
    except AttributeError:
        pytest.fail(MOVED.format(what="Layer._flatten_layers"))
    assert any(layer is rnn for layer in found) and any(layer is outer for layer in found)


def test_an_inner_loop_set_on_the_instance_runs_the_loop():
    internals = _internals()
    rnn = keras.layers.RNN(keras.layers.SimpleRNNCell(2))
    seen = []

    def loop(layer, sequences, initial_state, mask, training=False):
        seen.append(layer)
        return type(layer).inner_loop(layer, sequences, initial_state, mask, training=training)

    internals.replace_inner_loop(rnn, loop)
    assert internals.replaced_inner_loop(rnn) is loop
    rnn(np.zeros((1, 3, 2), "float32"))
    if seen != [rnn]:
        pytest.fail(MOVED.format(what="keras.layers.RNN.call's lookup of self.inner_loop"))
    assert internals.replaced_inner_loop(keras.layers.RNN(keras.layers.SimpleRNNCell(2))) is None
