"""The Skim-RNN cells' emitters (`SkimLSTMCell`, `SkimGRUCell`): the big
cell's step is the plain LSTM's or GRU's emitter (`keras_skim.export`), the
gate and the small cell are added here.

State layout, chosen so that the frequent skim step needs no slicing:
Skim-LSTM with d' > 0 `[h, c_small, c_rest, h_rest]`, Skim-GRU with d' > 0
`[h, h_small, h_rest]` (the read step, the rarer one, pays for the
concatenation and the split); with d' = 0 the plain cell's state.
"""

import numpy as np

from keras_skim.export.emitter_registry import register_emitter
from keras_skim.export.gru_emitters import GRUEmitter, gru_update, gru_weights
from keras_skim.export.lstm_emitters import LSTMEmitter, lstm_gate_weights
from keras_skim.export.weights import f32, gate_difference, to_numpy


class SkimInputProjections:
    """Mixin for the skim emitters: reads the gate, and lets the small cell's
    and the gate's input projections share one table, next to the big cell's.

    Comes before the plain cell emitter in the bases so that it extends its
    `input_projections`; the emitter sets `small_kernel` and
    `small_input_bias` when `small_units` > 0.
    """

    def read_skim_gate(self, cell):
        self.small_units = int(cell.small_units)
        self.default_threshold = float(cell.threshold)
        self.gate_kernel, self.gate_recurrent, self.gate_bias = gate_difference(cell)

    def input_projections(self):
        _, read = super().input_projections()
        if not self.small_units:
            return (self.gate_kernel, self.gate_bias), read
        kernel = np.concatenate([self.small_kernel, self.gate_kernel], axis=1)
        bias = np.concatenate([self.small_input_bias, self.gate_bias])
        return (kernel, bias), read


@register_emitter("SkimLSTMCell")
class SkimLSTMEmitter(SkimInputProjections, LSTMEmitter):
    model_kind = "skim_lstm"
    skims = True

    def __init__(self, cell):
        super().__init__(cell)
        self.read_skim_gate(cell)
        if self.small_units:
            small_bias = to_numpy(cell.small_bias) if cell.use_bias else None
            self.small_kernel, self.small_recurrent, self.small_input_bias = lstm_gate_weights(
                to_numpy(cell.small_kernel),
                to_numpy(cell.small_recurrent_kernel),
                small_bias,
                self.small_units,
            )

    def initial_state(self):
        d, ds = self.units, self.small_units
        if not ds:
            return super().initial_state()
        return [np.zeros((1, n), np.float32) for n in (d, ds, d - ds, d - ds)]

    def pre_step(self, state, pre_row):
        import tensorflow as tf

        h = state[0]
        if not self.small_units:
            a = tf.matmul(h, tf.constant(f32(self.gate_recurrent))) + pre_row
            return tf.reshape(a, []), ()
        weights = np.concatenate([self.small_recurrent, self.gate_recurrent], axis=1)
        a = tf.matmul(h, tf.constant(f32(weights))) + pre_row
        ds = self.small_units
        sig, g, gate = tf.split(a, [3 * ds, ds, 1], axis=1)
        return tf.reshape(gate, []), (sig, g)

    def skim_step(self, state, carry):
        import tensorflow as tf

        if not self.small_units:
            return [tf.identity(s) for s in state]
        h, c_small, c_rest, h_rest = state
        sig, g = carry
        i, f, o = tf.split(tf.sigmoid(sig), 3, axis=1)
        c_small = f * c_small + i * tf.tanh(g)
        h_small = o * tf.tanh(c_small)
        return [tf.concat([h_small, h_rest], axis=1), c_small, c_rest, h_rest]

    def read_step(self, state, read_row, carry):
        import tensorflow as tf

        if not self.small_units:
            return super().read_step(state, read_row, carry)
        d, ds = self.units, self.small_units
        h, c_small, c_rest, _ = state
        c = tf.concat([c_small, c_rest], axis=1)
        h, c = super().read_step([h, c], read_row, carry)
        c_small, c_rest = tf.split(c, [ds, d - ds], axis=1)
        _, h_rest = tf.split(h, [ds, d - ds], axis=1)
        return [h, c_small, c_rest, h_rest]


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
