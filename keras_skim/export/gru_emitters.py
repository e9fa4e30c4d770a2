"""Emitters for `keras.layers.GRU` / `GRUCell` (reset_after=True) and
`SkimGRUCell`.

State layout: plain GRU `[h]`; Skim-GRU with d' > 0 `[h, h_small, h_rest]`.
"""

import numpy as np

from keras_skim.export.emitter_registry import (
    CellEmitter,
    SkimInputProjections,
    register_emitter,
)
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


@register_emitter("SkimGRUCell")
class SkimGRUEmitter(SkimInputProjections, GRUEmitter):
    model_kind = "skim_gru"
    skims = True

    def __init__(self, cell):
        super().__init__(cell)
        self.read_skim_gate(cell)
        if self.small_units:
            (
                self.small_kernel,
                self.small_recurrent,
                self.small_input_bias,
                self.small_recurrent_bias,
            ) = gru_weights(cell, "small_", self.small_units)

    def initial_state(self):
        d, ds = self.units, self.small_units
        if not ds:
            return super().initial_state()
        return [np.zeros((1, n), np.float32) for n in (d, ds, d - ds)]

    def pre_step(self, state, pre_row):
        import tensorflow as tf

        h = state[0]
        if not self.small_units:
            a = tf.matmul(h, tf.constant(f32(self.gate_recurrent))) + pre_row
            return tf.reshape(a, []), ()
        ds = self.small_units
        weights = np.concatenate([self.small_recurrent, self.gate_recurrent], axis=1)
        bias = np.concatenate([self.small_recurrent_bias, np.zeros(1)])
        hp = tf.matmul(h, tf.constant(f32(weights))) + tf.constant(f32(bias))
        h_zr, h_h, h_gate = tf.split(hp, [2 * ds, ds, 1], axis=1)
        x_zr, x_h, x_gate = tf.split(pre_row, [2 * ds, ds, 1], axis=1)
        return tf.reshape(h_gate + x_gate, []), (x_zr, x_h, h_zr, h_h)

    def skim_step(self, state, carry):
        import tensorflow as tf

        if not self.small_units:
            return [tf.identity(s) for s in state]
        _, h_small, h_rest = state
        h_small = gru_update(tf, *carry, h_small)
        return [tf.concat([h_small, h_rest], axis=1), h_small, h_rest]

    def read_step(self, state, read_row, carry):
        import tensorflow as tf

        if not self.small_units:
            return super().read_step(state, read_row, carry)
        d, ds = self.units, self.small_units
        (h,) = super().read_step(state[:1], read_row, carry)
        h_small, h_rest = tf.split(h, [ds, d - ds], axis=1)
        return [h, h_small, h_rest]
