"""The Keras internals the skim cells use, in one place, and why.

`keras.layers.RNN(cell)` with a skim cell (the design card's usage) must add the
skim loss, which needs the cell's bookkeeping state after the loop; the RNN
layer drops that state and offers no public hook for it. The cells get one
through these private Keras 3 APIs (checked with Keras 3.15):

- `DropoutRNNCell`: the base class that makes `keras.layers.RNN.call` call
  the cell's `get_dropout_mask` once before its loop (the moment the cell
  finds the RNN layer that runs it) and that keeps the dropout masks.
- The layer call context (`global_state` "current_call_ctx"): the
  outermost layer being called, whose tracked sublayers hold that RNN
  layer, and the Python `training` flag of the call.
- `Layer._flatten_layers`: the tracked sublayers of that layer.
- The stateless scope (`stateless_scope.get_stateless_scope`): whether a
  cell's statistics can be updated or read in this call (JAX runs `call` in a
  scope that maps only the model's variables, and a batch's metrics in one
  that maps only the metrics' own), and the JAX trainer's purge of the
  variables' values during an epoch (`Variable._value` is None then).
- An instance attribute `inner_loop` on that RNN layer: `RNN.call` looks
  `self.inner_loop` up after the hook, so a bound method set on the instance
  runs the loop and then adds the loss.

The skim layers (the model-kind table's `ModelKind.layer` of the kinds that
skim) own their loop (as `keras.layers.LSTM` does, by overriding the public
`inner_loop`) and need none of this but `DropoutRNNCell`. `tests/layers/test_keras_internals.py`
fails with the name of the moved API when a Keras release moves one.
"""

import types

from keras.src.backend.common import global_state, stateless_scope
from keras.src.layers.rnn.dropout_rnn_cell import DropoutRNNCell

__all__ = [
    "DropoutRNNCell",
    "calling_layer",
    "python_training_flag",
    "tracked_layers",
    "replace_inner_loop",
    "replaced_inner_loop",
    "variables_readable",
    "variables_writable",
]


def _call_context():
    return global_state.get_global_attribute("current_call_ctx")


def calling_layer():
    """The outermost layer being called (the model in `fit`), or None."""
    context = _call_context()
    return None if context is None else context.entry_layer


def python_training_flag():
    """The `training` flag of the current layer call when it is a Python bool,
    else None (no call, or a symbolic flag that cannot be read here)."""
    context = _call_context()
    training = None if context is None else context.get_value("training")
    return training if isinstance(training, bool) else None


def tracked_layers(layer):
    """`layer` and all its tracked sublayers, recursively."""
    return layer._flatten_layers(include_self=True, recursive=True)


def replaced_inner_loop(rnn):
    """The function set by `replace_inner_loop` on `rnn`, or None."""
    current = rnn.__dict__.get("inner_loop")
    return getattr(current, "__func__", None)


def replace_inner_loop(rnn, function):
    """Makes `rnn.inner_loop(...)` call `function(rnn, ...)`, on this instance
    only. A bound method (not a closure), so that a copy of the layer binds
    the copy; `object.__setattr__` keeps it out of Keras' tracking."""
    object.__setattr__(rnn, "inner_loop", types.MethodType(function, rnn))


def variables_writable(variables):
    """Whether updates of `variables` in the current call are kept: always
    outside a stateless scope, inside one only when it maps them (a JAX
    trainer's `stateless_call` maps the weights, not the metrics, whose
    values it may even have freed)."""
    scope = stateless_scope.get_stateless_scope()
    if scope is None:
        return True
    return all(scope.get_current_value(v) is not None for v in variables)


def variables_readable(variables):
    """Whether `variables` have a value in the current call: outside a
    stateless scope, or mapped by it, or not purged. Keras' JAX trainer
    detaches the model's variables during an epoch (`_purge_model_variables`)
    and computes a batch's metrics in a scope that maps only the metrics'
    own variables."""
    scope = stateless_scope.get_stateless_scope()
    return all(
        (scope is not None and scope.get_current_value(v) is not None) or v._value is not None for v in variables
    )
