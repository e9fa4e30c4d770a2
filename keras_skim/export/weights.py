"""Reading a Keras cell's weights as float64 NumPy arrays, and small helpers
shared by the emitters."""

import numpy as np

from keras_skim.export.errors import ExportError


def to_numpy(variable):
    from keras import ops

    return np.asarray(ops.convert_to_numpy(variable), dtype=np.float64)


def activation_name(activation):
    import keras

    name = keras.activations.serialize(activation)
    if isinstance(name, dict):
        name = name.get("config", {}).get("name", name.get("class_name"))
    return str(name)


def check_activations(cell, expected=("tanh", "sigmoid")):
    got = (activation_name(cell.activation), activation_name(cell.recurrent_activation))
    if got != tuple(expected):
        raise ExportError(f"cell {cell.name!r} uses activations {got}; the exporter supports {tuple(expected)}")


def reorder_lstm_gates(matrix, size):
    """Keras' LSTM column order (i, f, c, o) -> (i, f, o, c) on the last axis."""
    i, f, c, o = (matrix[..., k * size : (k + 1) * size] for k in range(4))
    return np.concatenate([i, f, o, c], axis=-1)


def f32(array):
    return np.ascontiguousarray(np.asarray(array, dtype=np.float32))


def gate_difference(cell):
    """The skim gate as one column: l_read - l_skim = x k + h r + b.

    Reading iff sigmoid(l_read - l_skim) >= threshold needs only the
    difference of the two logits, so the exported graph projects onto one
    column instead of two.

    Returns:
        (kernel [in, 1], recurrent [d, 1], bias [1]) as NumPy arrays.
    """
    kernel = to_numpy(cell.gate_kernel)
    recurrent = to_numpy(cell.gate_recurrent_kernel)
    bias = to_numpy(cell.gate_bias)
    return kernel[:, :1] - kernel[:, 1:], recurrent[:, :1] - recurrent[:, 1:], bias[:1] - bias[1:]
