"""The emitter of `keras.layers.GRU` / `GRUCell` (reset_after=True; state
`[h]`), and the GRU arithmetic a skim cell's emitter builds on
(`gru_weights`, `gru_update`).
"""

import numpy as np

from keras_skim.export.emitter_registry import CellEmitter, register_emitter
from keras_skim.export.errors import ExportError
from keras_skim.export.weights import check_activations, f32, to_numpy


def gru_weights(cell, prefix, size):
    """(kernel, recurrent kernel, input bias, recurrent bias) of a GRU
    (reset_after=True) whose weights are named `{prefix}kernel`, ... as
    float64; zero biases without use_bias."""
    kernel = to_numpy(getattr(cell, f"{prefix}kernel"))
    recurrent = to_numpy(getattr(cell, f"{prefix}recurrent_kernel"))
    if cell.use_bias:
        bias = to_numpy(getattr(cell, f"{prefix}bias")).reshape(2, 3 * size)
    else:
        bias = np.zeros((2, 3 * size))
    return kernel, recurrent, bias[0], bias[1]


def gru_update(tf, x_zr, x_h, h_zr, h_h, h_prev):
    """h_new from the input part (x_*) and the recurrent part (h_*)."""
    z, r = tf.split(tf.sigmoid(x_zr + h_zr), 2, axis=1)
    candidate = tf.tanh(x_h + r * h_h)
    return candidate + z * (h_prev - candidate)


@register_emitter("GRUCell")
class GRUEmitter(CellEmitter):
    model_kind = "gru"
    flop_kind = "gru"

    def __init__(self, cell):
        super().__init__(cell)
        check_activations(cell)
        if not getattr(cell, "reset_after", True):
            raise ExportError(f"cell {cell.name!r}: only GRUs with reset_after=True are exported")
        self.kernel, self.recurrent, self.input_bias, self.recurrent_bias = gru_weights(cell, "", self.units)
        self.input_dim = self.kernel.shape[0]

    def input_projections(self):
        return None, (self.kernel, self.input_bias)

    def initial_state(self):
        return [np.zeros((1, self.units), np.float32)]

    def read_step(self, state, read_row, carry):
        import tensorflow as tf

        d = self.units
        h = state[0]
        hp = tf.matmul(h, tf.constant(f32(self.recurrent))) + tf.constant(f32(self.recurrent_bias))
        x_zr, x_h = tf.split(read_row, [2 * d, d], axis=1)
        h_zr, h_h = tf.split(hp, [2 * d, d], axis=1)
        return [gru_update(tf, x_zr, x_h, h_zr, h_h, h)]
