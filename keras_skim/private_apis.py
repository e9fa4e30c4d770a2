"""The private Keras APIs keras-skim still uses, in one place, with why.

Each one is reached through a function here, so that a Keras release that
moves it breaks one known spot, and `tests/test_private_apis.py` fails with
a message naming the API, the Keras version and what it is used for
(`check_private_apis()` does the same at run time). Everything else in
keras-skim uses public Keras / TensorFlow APIs; the ones that went:
`tensorflow.compiler.tf2xla.python.xla.dynamic_update_slice` (now
`keras.ops.slice_update`), `tensorflow.lite.python.schema_py_generated` (now
ai-edge-litert's `schema_py_generated`, the runtime's own dependency) and
`keras.optimizers.MultiOptimizer` / `OptimizerMap` (absent from Keras 3.12;
the orthogonal cell's two-learning-rate optimizer now dispatches by
variable path itself).

The layers import their `keras.src` privates (`global_state`,
`DropoutRNNCell`, the `RNN.inner_loop` hook) through one module of their own,
`keras_skim/keras_internals.py`; they are listed in
`LAYER_PRIVATE_APIS` so that the same test covers them.
"""

import importlib

# name -> (where it is used, why there is no public API)
PRIVATE_APIS = {
    "keras.src.ops.numpy.NotEqual": (
        "keras_skim/model_io.py (.h5 loading)",
        "Keras writes the mask of Embedding(mask_zero=True) into an .h5 config as a bare NotEqual operation "
        "that its own .h5 loader does not know; only the class itself resolves it",
    ),
    "keras.optimizers.RMSprop._velocities": (
        "keras_skim.PerTensorClipRMSprop (a model family's optimizer)",
        "TF1's RMSProp starts its mean-square accumulators at 1; Keras has no initializer argument for them",
    ),
    "keras.optimizers.Optimizer._clip_gradients": (
        "keras_skim.PerTensorClipRMSprop (a model family's optimizer)",
        "the hook where Keras clips gradients after unscaling them; per-tensor average-norm clipping "
        "(TF1's clip_by_average_norm) is not one of clipnorm / clipvalue / global_clipnorm",
    ),
}

# Owned by keras_skim/keras_internals.py (listed here so that one test covers every private API).
LAYER_PRIVATE_APIS = {
    "keras.src.backend.common.global_state.get_global_attribute": (
        "keras_skim/keras_internals.py (skim cells)",
        "the current call context, to find the RNN that runs a skim cell (skim loss)",
    ),
    "keras.src.layers.rnn.dropout_rnn_cell.DropoutRNNCell": (
        "keras_skim/keras_internals.py (skim and orthogonal cells)",
        "the dropout-mask base class of Keras' own cells",
    ),
    "keras.layers.RNN.inner_loop": (
        "keras_skim/keras_internals.py (skim cells)",
        "patched on the instance to add the skim cells' accounting to the RNN loop",
    ),
    "keras.layers.Layer._flatten_layers": (
        "keras_skim/keras_internals.py (skim cells)",
        "walks the layers of the calling model to find its RNNs",
    ),
}


class PrivateApiMoved(ImportError):
    """A private Keras API keras-skim needs is not where it was; the message
    names it, the Keras version, its use and why it is needed."""


def resolve(dotted):
    """The object at `dotted` (module path, then attributes).

    Raises:
        PrivateApiMoved: one line naming the API and the installed Keras.
    """
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        try:
            for attribute in parts[split:]:
                value = getattr(value, attribute)
        except AttributeError:
            break
        return value
    raise PrivateApiMoved(_moved_message(dotted))


def _moved_message(dotted):
    import keras

    used_by, why = {**PRIVATE_APIS, **LAYER_PRIVATE_APIS}.get(dotted, ("keras-skim", "unknown"))
    return (
        f"Keras {keras.__version__} moved or removed the private API {dotted}, which {used_by} needs ({why}); "
        "keras-skim supports the Keras versions in its requirements (pip install 'keras-skim[train]')"
    )


def _probe(name):
    """Resolves `name`; the two optimizer privates are probed on a built
    optimizer (the accumulators are instance attributes) and through the
    behaviour keras-skim relies on (Keras calls the clipping hook in `apply`)."""
    if name == "keras.optimizers.RMSprop._velocities":
        import keras
        import numpy as np

        optimizer = keras.optimizers.RMSprop()
        variable = keras.Variable(np.zeros(3, "float32"))
        optimizer.build([variable])
        velocities = getattr(optimizer, "_velocities", None)
        if not velocities or tuple(velocities[0].shape) != (3,):
            raise PrivateApiMoved(_moved_message(name))
        return velocities
    if name == "keras.optimizers.Optimizer._clip_gradients":
        import keras
        import numpy as np

        hook = resolve(name)

        class ZeroingSGD(keras.optimizers.SGD):
            def _clip_gradients(self, grads):
                return [g * 0 for g in grads]

        variable = keras.Variable(np.ones(2, "float32"))
        ZeroingSGD(1.0).apply([keras.ops.ones(2)], [variable])
        if not np.array_equal(keras.ops.convert_to_numpy(variable), np.ones(2, "float32")):
            raise PrivateApiMoved(_moved_message(name) + " (Keras no longer calls it in apply)")
        return hook
    return resolve(name)


def check_private_apis(names=None):
    """One-line problems, one per private API that does not resolve (empty: all there)."""
    problems = []
    for name in names or [*PRIVATE_APIS, *LAYER_PRIVATE_APIS]:
        try:
            _probe(name)
        except PrivateApiMoved as err:
            problems.append(str(err))
    return problems


def not_equal_operation():
    """`keras.src.ops.numpy.NotEqual`, for `custom_objects` of an .h5 load."""
    return resolve("keras.src.ops.numpy.NotEqual")


def rmsprop_velocities(optimizer):
    """The mean-square accumulators of a built `keras.optimizers.RMSprop`."""
    velocities = getattr(optimizer, "_velocities", None)
    if velocities is None:
        raise PrivateApiMoved(_moved_message("keras.optimizers.RMSprop._velocities"))
    return velocities


# The name of the base optimizer's gradient-clipping hook, which
# PerTensorClipRMSprop overrides (Keras calls it after unscaling the gradients).
CLIP_GRADIENTS_HOOK = "_clip_gradients"
